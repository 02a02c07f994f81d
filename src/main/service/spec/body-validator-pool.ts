/**
 * Request bodies validated in worker threads (issue 16). A body's validator runs with `allErrors` (the
 * error text lists up to five problems), and over the spec's document blocks, a oneOf of ~24 kinds each
 * with nested `nodes`, that costs time exponential in the document's nesting: every kind that fails on
 * `type` still checks the children against its own item schemas. Measured on the event loop: a valid 1 MB
 * change-request body 1.3-1.4 s of CPU, a valid 100 KB comment 65-75 ms; a 1.1 KB comment of five nested
 * lists with a leaf's text a number 2.7 s and 6.6 million errors, and one more level ran the process out
 * of its 4 GB heap.
 *
 * So each worker judges a body in two steps, with validators it compiles itself the way the registry
 * does (openapi-spec.ts: AJV_OPTIONS, UNCHECKED_FORMATS, the spec's components under SPEC_ID), the same
 * generated code standalone-validators.ts ships:
 * 1. the verdict, from a validator without `allErrors` (each schema stops at its first error, so it is
 *    linear in the body: a valid 32 MB body in 0.4 s against ~50 s with `allErrors`). The verdict is the
 *    same: `allErrors` only decides whether to go on collecting errors once one is found, and bodies are
 *    validated without coercion or defaults;
 * 2. for an invalid body only, the error text as the registry gives it: the `allErrors` validator and
 *    `formatErrors` (its source sent to the worker). Within EXPLAIN_LIMIT_MS and the worker's heap limit;
 *    past either, the worker is ended and the text is step 1's errors, formatted the same way: still the
 *    body's first problems, only fewer of them.
 * The event loop only sends the body's bytes (transferred) and reads a short answer.
 *
 * Like the validator warm-up, the worker's script is CommonJS run with `eval` (no build entry of its own).
 * Where no worker can start, `validate` resolves undefined and the caller validates in place, as before.
 */
import { availableParallelism } from 'node:os'
import { Worker } from 'node:worker_threads'
import { formatErrors } from './openapi-spec'
import type { JsonSchema } from './types'
import { WorkerPool } from '../worker-pool'
import { AJV_WORKER_PRELUDE, ajvWorkerData } from './worker-ajv'

/** Step 2's time limit: the `allErrors` run of a body with a few errors takes well under a second per MB. */
const EXPLAIN_LIMIT_MS = 10_000
/** Step 1's: linear in the body (0.4 s for 32 MB here); a loaded machine is several times slower. */
const JUDGE_LIMIT_MS = 120_000
/** A worker's heap: a parsed 32 MB body takes ~100 MB; past this, step 2's errors end it (~2 million). */
const WORKER_HEAP_MB = 512
/** An idle worker ends after this long (each holds two compiled sets of validators, some tens of MB). */
const IDLE_MS = 30_000

const WORKER_SOURCE = `${AJV_WORKER_PRELUDE}
const { formatErrorsSource } = workerData
const formatErrors = (0, eval)('(' + formatErrorsSource + ')')
const judging = createAjv({ allErrors: false, coerceTypes: false })
const explaining = createAjv({ coerceTypes: false })
const judges = new Map()
const explainers = new Map()
function compiled(cache, ajv, key, schema) {
  let fn = cache.get(key)
  if (!fn) cache.set(key, (fn = ajv.compile(schema)))
  return fn
}

parentPort.on('message', ({ id, key, schema, bytes }) => {
  try {
    const body = JSON.parse(Buffer.from(bytes).toString('utf8'))
    const judge = compiled(judges, judging, key, schema)
    if (judge(body)) return parentPort.postMessage({ id, valid: true })
    parentPort.postMessage({ id, firstErrors: formatErrors('body', judge.errors) })
    const explain = compiled(explainers, explaining, key, schema)
    explain(body)
    parentPort.postMessage({ id, allErrors: formatErrors('body', explain.errors) })
  } catch (error) {
    parentPort.postMessage({ id, failed: String((error && error.message) || error) })
  }
})
parentPort.postMessage({ ready: true })
`

type WorkerMessage = { ready: true } | { id: number; valid: true } | { id: number; firstErrors: string } | { id: number; allErrors: string } | { id: number; failed: string }

export interface BodyValidatorPoolOptions {
  /** Workers at most (default: one per core, up to 2). */
  size?: number
  /** Step 2's time limit (default EXPLAIN_LIMIT_MS). */
  explainLimitMs?: number
}

export class BodyValidatorPool {
  private readonly pool: WorkerPool<WorkerMessage>
  private readonly explainLimitMs: number

  constructor(options: BodyValidatorPoolOptions = {}) {
    this.explainLimitMs = options.explainLimitMs ?? EXPLAIN_LIMIT_MS
    this.pool = new WorkerPool<WorkerMessage>({
      size: options.size ?? Math.min(2, availableParallelism()),
      idleMs: IDLE_MS,
      create: () =>
        new Worker(WORKER_SOURCE, {
          eval: true,
          name: 'quire-body-validator',
          resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
          workerData: { ...ajvWorkerData(), formatErrorsSource: String(formatErrors) },
        }),
      label: 'the body validator worker',
      fallback: 'request bodies are validated on the main thread',
      warningType: 'QuireBodyValidator',
    })
  }

  /**
   * The error text of a body (its UTF-8 JSON) against the schema compiled under `key`, null when valid, as
   * SpecRegistry.validateBody gives it; undefined where no worker can run.
   */
  validate(key: string, schema: JsonSchema, bytes: Uint8Array): Promise<string | null | undefined> {
    return new Promise((settle) => {
      /** Step 1's errors once the body is known invalid: they stand in if step 2 is cut short. */
      let firstErrors: string | undefined
      this.pool.run({
        timeLimitMs: JUDGE_LIMIT_MS,
        // Transferred, not copied: the bytes are this job's own (see body-validation.ts).
        send: (worker, id) => worker.postMessage({ id, key, schema, bytes }, [bytes.buffer as ArrayBuffer]),
        receive: (message) => {
          if ('firstErrors' in message) {
            // Invalid: the worker goes on to the full error text, within its own limit.
            firstErrors = message.firstErrors
            return this.explainLimitMs
          }
          // A body the worker could not parse or judge (a schema ajv refuses): the registry fails as loudly.
          settle('valid' in message ? null : 'allErrors' in message ? message.allErrors : undefined)
          return 'done'
        },
        unavailable: () => settle(undefined),
        // Past step 1, its first errors; in step 1 (a body whose verdict alone overran), a 400 of its own.
        lost: (loss) => settle(firstErrors ?? `body could not be validated: ${'overranMs' in loss ? `it took longer than ${Math.round(loss.overranMs / 1000)} s` : loss.reason}`),
      })
    })
  }

  /** Why bodies are validated in place, if they are. */
  get fallbackReason(): string | undefined {
    return this.pool.fallbackReason
  }

  close(): Promise<void> {
    return this.pool.close()
  }
}

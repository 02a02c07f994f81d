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

interface Job {
  key: string
  schema: JsonSchema
  bytes: Uint8Array
  /** The error text, null when valid, undefined when no worker could judge it (validate in place). */
  settle: (verdict: string | null | undefined) => void
}

interface Pooled {
  worker: Worker
  ready: boolean
  busy?: { id: number; job: Job; firstErrors?: string; timer?: NodeJS.Timeout }
  idleTimer?: NodeJS.Timeout
}

export interface BodyValidatorPoolOptions {
  /** Workers at most (default: one per core, up to 2). */
  size?: number
  /** Step 2's time limit (default EXPLAIN_LIMIT_MS). */
  explainLimitMs?: number
}

export class BodyValidatorPool {
  private readonly workers: Pooled[] = []
  private readonly queue: Job[] = []
  private readonly size: number
  private readonly explainLimitMs: number
  private nextId = 0
  /** Why no worker can run here, once one failed to start: from then on bodies are validated in place. */
  private broken: string | undefined

  constructor(options: BodyValidatorPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? Math.min(2, availableParallelism()))
    this.explainLimitMs = options.explainLimitMs ?? EXPLAIN_LIMIT_MS
  }

  /**
   * The error text of a body (its UTF-8 JSON) against the schema compiled under `key`, null when valid, as
   * SpecRegistry.validateBody gives it; undefined where no worker can run.
   */
  validate(key: string, schema: JsonSchema, bytes: Uint8Array): Promise<string | null | undefined> {
    if (this.broken !== undefined) return Promise.resolve(undefined)
    return new Promise((settle) => {
      this.queue.push({ key, schema, bytes, settle })
      this.dispatch()
    })
  }

  /** Why bodies are validated in place, if they are. */
  get fallbackReason(): string | undefined {
    return this.broken
  }

  async close(): Promise<void> {
    const workers = this.workers.splice(0)
    for (const pooled of workers) this.settle(pooled, undefined)
    for (const job of this.queue.splice(0)) job.settle(undefined)
    await Promise.all(workers.map((pooled) => pooled.worker.terminate()))
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.workers.find((pooled) => !pooled.busy) ?? (this.workers.length < this.size ? this.start() : undefined)
      if (!idle) return
      const job = this.queue.shift() as Job
      clearTimeout(idle.idleTimer)
      const id = this.nextId++
      idle.busy = { id, job }
      if (idle.ready) this.startClock(idle, JUDGE_LIMIT_MS)
      idle.worker.ref()
      // Transferred, not copied: the bytes are this job's own (see body-validation.ts).
      idle.worker.postMessage({ id, key: job.key, schema: job.schema, bytes: job.bytes }, [job.bytes.buffer as ArrayBuffer])
    }
  }

  private start(): Pooled | undefined {
    let worker: Worker
    try {
      worker = new Worker(WORKER_SOURCE, {
        eval: true,
        name: 'quire-body-validator',
        resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
        workerData: {
          ...ajvWorkerData(),
          formatErrorsSource: String(formatErrors),
        },
      })
    } catch (error) {
      this.giveUp(`the body validator worker could not start: ${String(error)}`)
      return undefined
    }
    const pooled: Pooled = { worker, ready: false }
    this.workers.push(pooled)
    worker.on('message', (message: WorkerMessage) => this.received(pooled, message))
    worker.on('error', (error) => this.lost(pooled, `the body validator worker failed: ${error.message}`))
    worker.on('exit', (code) => this.lost(pooled, `the body validator worker exited with code ${code}`))
    return pooled
  }

  private received(pooled: Pooled, message: WorkerMessage): void {
    if ('ready' in message) {
      pooled.ready = true
      if (pooled.busy) this.startClock(pooled, JUDGE_LIMIT_MS)
      return
    }
    const busy = pooled.busy
    if (busy?.id !== message.id) return
    if ('firstErrors' in message) {
      // Invalid: the worker goes on to the full error text, within its limit; this one stands in past it.
      busy.firstErrors = message.firstErrors
      clearTimeout(busy.timer)
      this.startClock(pooled, this.explainLimitMs)
      return
    }
    // A body the worker could not parse or judge (a schema ajv refuses): the registry fails as loudly.
    this.settle(pooled, 'valid' in message ? null : 'allErrors' in message ? message.allErrors : undefined)
    pooled.worker.unref()
    pooled.idleTimer = setTimeout(() => this.retire(pooled), IDLE_MS).unref()
    this.dispatch()
  }

  private startClock(pooled: Pooled, ms: number): void {
    if (pooled.busy) pooled.busy.timer = setTimeout(() => this.overrun(pooled), ms)
  }

  /** Past a step's limit: the worker is ended (the only way to stop ajv) and replaced by the next job's. */
  private overrun(pooled: Pooled): void {
    if (!this.remove(pooled)) return
    this.settleLost(pooled, `it took longer than ${Math.round((pooled.busy?.firstErrors === undefined ? JUDGE_LIMIT_MS : this.explainLimitMs) / 1000)} s`)
    void pooled.worker.terminate()
    this.dispatch()
  }

  /** A worker that failed or exited: before it was ready, workers cannot run here at all. */
  private lost(pooled: Pooled, reason: string): void {
    if (!this.remove(pooled)) return // retired, overrun or closed on purpose
    if (!pooled.ready) return this.giveUp(reason, pooled)
    this.settleLost(pooled, reason)
    this.dispatch()
  }

  /**
   * The job of a worker lost mid-way: past step 1, its first errors; in step 1 (a body whose verdict
   * alone overran the limits), a 400 of its own, as the text says.
   */
  private settleLost(pooled: Pooled, reason: string): void {
    const firstErrors = pooled.busy?.firstErrors
    this.settle(pooled, firstErrors ?? `body could not be validated: ${reason}`)
  }

  private giveUp(reason: string, pooled?: Pooled): void {
    if (this.broken === undefined) process.emitWarning(`${reason}; request bodies are validated on the main thread from now on`, 'QuireBodyValidator')
    this.broken ??= reason
    if (pooled) this.settle(pooled, undefined)
    for (const job of this.queue.splice(0)) job.settle(undefined)
  }

  private settle(pooled: Pooled, verdict: string | null | undefined): void {
    const busy = pooled.busy
    if (!busy) return
    pooled.busy = undefined
    clearTimeout(busy.timer)
    busy.job.settle(verdict)
  }

  private remove(pooled: Pooled): boolean {
    const at = this.workers.indexOf(pooled)
    if (at === -1) return false
    this.workers.splice(at, 1)
    clearTimeout(pooled.idleTimer)
    return true
  }

  private retire(pooled: Pooled): void {
    if (pooled.busy || !this.remove(pooled)) return
    void pooled.worker.terminate()
  }
}

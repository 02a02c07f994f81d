/**
 * Request validators compiled in a worker thread (issue 16). ajv compiles a validator by generating its
 * JavaScript, which for the request bodies that hold a document (a change request's update, a comment,
 * a review...) takes 70-110 ms of CPU in one piece: the service's event loop answered nothing meanwhile.
 *
 * The worker sets up ajv exactly as the registry does (openapi-spec.ts: AJV_OPTIONS, UNCHECKED_FORMATS, the
 * spec's components under SPEC_ID), compiles every job with ajv's standalone code generation (`code:
 * { source: true }`, `ajv/dist/standalone`), and sends the code back in groups: one module per group, its
 * validators sharing the functions of the schemas they reference (the document's blocks are one ~730 KB
 * core shared by 15 bodies; a module per validator would repeat it 15 times). Groups are packed largest
 * validator first up to GROUP_CHARS of code. With each group comes V8's code cache for it, made in the
 * worker after running its validators once: loading a module from its cache costs the event loop a few ms
 * per MB of code where parsing it costs ~15 (measured: 2.6 MB in 6-8 ms against 29-40 ms).
 *
 * The code is the same code ajv would generate and run in place, from the same schemas and options: the
 * same checks, coercions and errors. It `require`s only ajv's runtime helpers and ajv-formats' formats,
 * resolved as this module resolves its own packages.
 */
import { createRequire } from 'node:module'
import vm from 'node:vm'
import { Worker } from 'node:worker_threads'
import type { ValidateFunction } from 'ajv'
import type { RequestValidatorJob } from './openapi-spec'
import { AJV_WORKER_PRELUDE, ajvWorkerData } from './worker-ajv'

/** The largest module of validators the worker makes (unless one validator alone is larger), in characters of code. */
const GROUP_CHARS = 1_000_000

/** One module of standalone validators: the jobs it holds (their positions in the list sent), its code and V8's cache of it. */
export interface StandaloneGroup {
  jobs: number[]
  /** A function expression `(function (require, exports) {...})` that fills `exports` with `v<job>` validators. */
  source: string
  cachedData: Uint8Array
}

/** What the worker sends: a group; jobs it could not compile (left to the registry, which will fail as loudly); then done. */
export type CompilerMessage = { group: StandaloneGroup } | { failed: number[]; reason: string } | { done: true }

/** What generated code may `require`: ajv's runtime helpers and ajv-formats' format checks. */
function isRuntimeModule(name: string): boolean {
  return name.startsWith('ajv/dist/runtime/') || name === 'ajv-formats/dist/formats'
}

const requirePackage = createRequire(import.meta.url)

function requireRuntime(name: string): unknown {
  if (!isRuntimeModule(name)) throw new Error(`standalone validator code requires ${name}, which is not one of ajv's runtime modules`)
  return requirePackage(name)
}

/**
 * The worker's script (CommonJS, run with `eval`: it needs no build step or bundle entry of its own, and
 * starts the same from tsx, vitest and the compiled CLI; the desktop app's bundle is not tried yet, and
 * where it cannot start, validator-warmup.ts compiles in place). ajv is set up by worker-ajv.ts's prelude.
 */
const WORKER_SOURCE = `${AJV_WORKER_PRELUDE}
const vm = require('node:vm')
const { groupChars, jobs } = workerData
const standaloneCode = load('ajv/dist/standalone').default

/** Runs the group's validators once, so that V8's cache of it holds them compiled, and sends it. */
function send(ajv, group) {
  const source = '(function (require, exports) {' + standaloneCode(ajv, group.ids) + '\\n})'
  const script = new vm.Script(source, { filename: 'quire-request-validators.js' })
  const exports = {}
  script.runInThisContext()(load, exports)
  for (const validate of Object.values(exports)) validate({})
  const cachedData = new Uint8Array(script.createCachedData())
  parentPort.postMessage({ group: { jobs: group.jobs, source, cachedData } }, [cachedData.buffer])
}

for (const coerce of [true, false]) {
  const ajv = createAjv({ coerceTypes: coerce ? 'array' : false, code: { source: true } })
  const sized = []
  for (const [index, job] of jobs.entries()) {
    if (job.coerce !== coerce) continue
    const id = 'v' + index
    try {
      ajv.addSchema(job.schema, id)
      sized.push({ index, id, chars: standaloneCode(ajv, ajv.getSchema(id)).length })
    } catch (error) {
      parentPort.postMessage({ failed: [index], reason: String(error && error.message || error) })
    }
  }
  // Largest first: the validators that share a large core (a document's blocks) meet in one group.
  sized.sort((a, b) => b.chars - a.chars)
  let group = { jobs: [], ids: {} }
  for (const { index, id } of sized) {
    const ids = { ...group.ids, [id]: id }
    if (group.jobs.length > 0 && standaloneCode(ajv, ids).length > groupChars) {
      send(ajv, group)
      group = { jobs: [index], ids: { [id]: id } }
    } else {
      group = { jobs: [...group.jobs, index], ids }
    }
  }
  if (group.jobs.length > 0) send(ajv, group)
}
parentPort.postMessage({ done: true })
`

/**
 * Starts the worker that compiles these jobs; it sends CompilerMessages and ends once done. It does not
 * keep the process alive.
 */
export function startValidatorCompiler(jobs: RequestValidatorJob[]): Worker {
  const worker = new Worker(WORKER_SOURCE, {
    eval: true,
    name: 'quire-validator-compiler',
    workerData: {
      ...ajvWorkerData(),
      groupChars: GROUP_CHARS,
      jobs: jobs.map(({ schema, coerce }) => ({ schema, coerce })),
    },
  })
  worker.unref()
  return worker
}

/**
 * The group's validators by job position, loaded from the worker's code and V8's cache of it (one turn,
 * a few ms per MB); `cacheRejected` where V8 would not take the cache and parsed the code instead.
 */
export function instantiateGroup(group: StandaloneGroup): { validators: Map<number, ValidateFunction>; cacheRejected: boolean } {
  const script = new vm.Script(group.source, { filename: 'quire-request-validators.js', cachedData: group.cachedData })
  const exports: Record<string, ValidateFunction> = {}
  ;(script.runInThisContext() as (require: (name: string) => unknown, exports: object) => void)(requireRuntime, exports)
  const validators = new Map<number, ValidateFunction>()
  for (const job of group.jobs) {
    const validate = exports[`v${job}`]
    if (typeof validate !== 'function') throw new Error(`the worker's validator module lacks job ${job}`)
    validators.set(job, validate)
  }
  return { validators, cacheRejected: script.cachedDataRejected === true }
}

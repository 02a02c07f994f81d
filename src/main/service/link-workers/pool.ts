/**
 * Worker threads that parse runs of markdown for their links (issue 16): remark costs seconds per
 * megabyte, and a service that parsed a large page on its event loop answered nothing else meanwhile.
 * `parseRunsOffThread` (a `RunParser` for `parseLinksAhead`) hands the runs to a small pool of workers
 * in batches, each worker taking the next batch when it is done, and resolves with their results in
 * order; the event loop only sends and receives messages. Runs of plain prose never come here:
 * `parseLinksAhead` reads them with the linear scanner (`content/markdown/link-scanner.ts`) first, so the
 * pool gets only what needs remark (HTML of other shapes, definitions, nested brackets...).
 *
 * Where the worker's script comes from:
 * - the compiled CLI (scripts/build-cli.mjs) bundles `worker.ts` as an entry of its own and defines
 *   `__QUIRE_LINK_WORKER__` as that file's path; the desktop app's build (electron.vite.config.ts) does
 *   too, and its backend process names the file with `useLinkWorkerScript`;
 * - otherwise (tsx, vitest) the worker runs `worker.ts` itself, with tsx's loader.
 * When no worker can be started (a packaged app with neither), the runs are parsed on the calling thread
 * one at a time with the event loop given back in between: slower, but nothing stalls for long.
 * Markdown that remark cannot parse (it throws, or takes longer than `timeLimitMs`: deeply nested block
 * quotes cost it time quadratic in their depth) rejects with a `LinkParseError`, and is not parsed again
 * on the calling thread: its worker is ended and replaced, so the bound holds for the whole service.
 * Workers are started on first use, do not keep the process alive, and end after a while idle.
 * The same workers convert a large page body to its JSON document (`convert`: one round of
 * content/markdown/document/deferred-refs.ts per message), under the same time limit and fallback.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { parseChunkLinks, type ChunkLinks } from '../../content/markdown/chunk-links'
import { convertDocument, type ConvertedDocument, type DocumentJob, type DocumentRound } from '../../content/markdown/document/deferred-refs'
import type { RunParser } from '../../content/markdown/links'
import type { LinkWorkerMessage, LinkWorkerRequest } from './worker'

/** Defined by scripts/build-cli.mjs: the bundled worker's absolute path. */
declare const __QUIRE_LINK_WORKER__: string | undefined

/** Characters of markdown per message: a few tens of milliseconds of parsing, so batches balance. */
const BATCH_CHARS = 64 * 1024
/** An idle worker ends after this long (each holds remark and its heap, some tens of MB). */
const IDLE_MS = 30_000
/** A batch (64 KB) takes remark well under a second; this leaves room for a loaded machine. */
const TIME_LIMIT_MS = 30_000
/**
 * A document gets the time limit once per megabyte of body (remark takes 1.5-2 s of CPU per MB, so a
 * 20 MB page needs more than one limit), at least once: nested quotes cost time quadratic in their depth,
 * so a page of them still overruns by far.
 */
const DOCUMENT_CHARS_PER_LIMIT = 1024 * 1024

/** Markdown that could not be parsed for its links: remark failed on it or took too long. */
export class LinkParseError extends Error {
  override name = 'LinkParseError'
}

/** No worker could start: the runs are parsed on the calling thread instead. */
class WorkerUnavailable extends Error {}

/** What a worker answered: a batch's links or a document, as the job asked. */
type Outcome = ChunkLinks[] | ConvertedDocument | LinkParseError | WorkerUnavailable

/** One message's work: a batch of runs, or one round of a document's conversion. */
type Job = { texts: string[] } | { document: DocumentJob }

interface Batch {
  job: Job
  /** Its own time limit, where it is not the pool's (a document's grows with its size). */
  timeLimitMs?: number
  settle: (outcome: Outcome) => void
}

interface PooledWorker {
  worker: Worker
  /** Its script loaded (it said so): a failure from then on is the markdown's, not the setup's. */
  ready: boolean
  busy?: { id: number; batch: Batch; timer?: NodeJS.Timeout }
  idleTimer?: NodeJS.Timeout
}

export interface LinkWorkerPoolOptions {
  /** Workers at most (default: one per core up to 4, leaving a core to the event loop beyond 2). */
  size?: number
  /** The worker's script (default: see the top of this file). */
  script?: URL
  /** A batch of runs taking longer is given up with a `LinkParseError` (default 30 s). */
  timeLimitMs?: number
}

export class LinkWorkerPool {
  private readonly workers: PooledWorker[] = []
  private readonly queue: Batch[] = []
  private readonly size: number
  private readonly script: URL | undefined
  private readonly timeLimitMs: number
  private nextId = 0
  /** Set once a worker could not start: from then on runs are parsed on the calling thread. */
  private broken: string | undefined

  constructor(options: LinkWorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultPoolSize())
    this.script = options.script
    this.timeLimitMs = options.timeLimitMs ?? TIME_LIMIT_MS
  }

  /**
   * Parses `texts` with `parseChunkLinks` in the workers; results in the order of `texts`. Rejects with
   * a `LinkParseError` when a run cannot be parsed (see the top of this file).
   */
  readonly parse: RunParser = async (texts) => {
    if (texts.length === 0) return []
    if (this.broken !== undefined) return parseOnThisThread(texts)
    const batches = intoBatches(texts)
    const outcomes = await Promise.all(batches.map((batch) => new Promise<Outcome>((settle) => this.enqueue({ job: { texts: batch }, settle }))))
    const failure = outcomes.find((outcome) => outcome instanceof LinkParseError)
    if (failure) throw failure
    const results: ChunkLinks[] = []
    for (const [i, outcome] of outcomes.entries()) results.push(...(outcome instanceof WorkerUnavailable ? await parseOnThisThread(batches[i]) : (outcome as ChunkLinks[])))
    return results
  }

  /**
   * One round of a document's conversion (`convertDocument`, content/markdown/document/deferred-refs.ts) in a
   * worker, under the same time limit as a batch of runs; rejects with a `LinkParseError` when remark fails
   * or overruns. Without workers it runs on the calling thread, in one turn: slower to the others, but
   * correct, and only where no worker can start at all.
   */
  readonly convert: DocumentRound = async (document) => {
    const outcome = this.broken !== undefined ? undefined : await new Promise<Outcome>((settle) =>
            this.enqueue({ job: { document }, settle, timeLimitMs: Math.round(this.timeLimitMs * Math.max(1, document.body.length / DOCUMENT_CHARS_PER_LIMIT)) }),
          )
    if (outcome instanceof LinkParseError) throw outcome
    if (outcome === undefined || outcome instanceof WorkerUnavailable) return convertOnThisThread(document)
    return outcome as ConvertedDocument
  }

  /** Why the pool parses on the calling thread, if it does. */
  get fallbackReason(): string | undefined {
    return this.broken
  }

  /** Ends every worker; batches still queued are parsed on the calling thread. */
  async close(): Promise<void> {
    const workers = this.workers.splice(0)
    for (const pooled of workers) this.settleBusy(pooled, new WorkerUnavailable('link worker pool closed'))
    for (const batch of this.queue.splice(0)) batch.settle(new WorkerUnavailable('link worker pool closed'))
    await Promise.all(workers.map((pooled) => pooled.worker.terminate()))
  }

  private enqueue(batch: Batch): void {
    this.queue.push(batch)
    this.dispatch()
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      const idle = this.workers.find((pooled) => !pooled.busy) ?? (this.workers.length < this.size ? this.start() : undefined)
      if (!idle) return
      const batch = this.queue.shift() as Batch
      clearTimeout(idle.idleTimer)
      const id = this.nextId++
      idle.busy = { id, batch }
      // The time limit counts the parse, not a new worker's start (loading remark, compiling it under tsx).
      if (idle.ready) this.startClock(idle)
      idle.worker.ref()
      idle.worker.postMessage({ id, ...batch.job } satisfies LinkWorkerRequest)
    }
  }

  private start(): PooledWorker | undefined {
    let worker: Worker
    try {
      const script = this.script ? { url: this.script } : workerScript()
      worker = 'url' in script ? new Worker(script.url, { name: 'quire-link-parser' }) : new Worker(script.code, { eval: true, name: 'quire-link-parser' })
    } catch (error) {
      this.giveUp(`link worker could not start: ${String(error)}`)
      return undefined
    }
    const pooled: PooledWorker = { worker, ready: false }
    this.workers.push(pooled)
    worker.on('message', (message: LinkWorkerMessage) => {
      if ('ready' in message) {
        pooled.ready = true
        if (pooled.busy) this.startClock(pooled)
        return
      }
      if (pooled.busy?.id !== message.id) return
      this.settleBusy(pooled, 'error' in message ? new LinkParseError(message.error) : 'document' in message ? message.document : message.results)
      worker.unref()
      pooled.idleTimer = setTimeout(() => this.retire(pooled), IDLE_MS).unref()
      this.dispatch()
    })
    worker.on('error', (error) => this.lost(pooled, `link worker failed: ${error.message}`))
    worker.on('exit', (code) => this.lost(pooled, `link worker exited with code ${code}`))
    return pooled
  }

  /**
   * A worker that failed or exited. Before its script loaded, workers cannot run here at all: its batch
   * and every queued one go back to the calling thread, as will all later ones. After, its batch failed
   * on the markdown (out of memory, say), and the next batch gets a new worker.
   */
  private lost(pooled: PooledWorker, reason: string): void {
    if (!this.remove(pooled)) return // retired, replaced or closed on purpose
    if (!pooled.ready) return this.giveUp(reason, pooled)
    this.settleBusy(pooled, new LinkParseError(`markdown could not be parsed: ${reason}`))
    this.dispatch()
  }

  private startClock(pooled: PooledWorker): void {
    if (pooled.busy) pooled.busy.timer = setTimeout(() => this.overrun(pooled), pooled.busy.batch.timeLimitMs ?? this.timeLimitMs)
  }

  /** A batch past the time limit: its worker is ended (the only way to stop remark) and replaced. */
  private overrun(pooled: PooledWorker): void {
    if (!this.remove(pooled)) return
    const limitMs = pooled.busy?.batch.timeLimitMs ?? this.timeLimitMs
    this.settleBusy(pooled, new LinkParseError(`markdown could not be parsed within ${Math.round(limitMs / 1000)} s (nested too deeply?)`))
    void pooled.worker.terminate()
    this.dispatch()
  }

  private giveUp(reason: string, pooled?: PooledWorker): void {
    if (this.broken === undefined) process.emitWarning(`${reason}; markdown links are parsed on the main thread from now on`, 'QuireLinkWorker')
    this.broken ??= reason
    if (pooled) this.settleBusy(pooled, new WorkerUnavailable(reason))
    for (const batch of this.queue.splice(0)) batch.settle(new WorkerUnavailable(reason))
  }

  private settleBusy(pooled: PooledWorker, outcome: Outcome): void {
    const busy = pooled.busy
    if (!busy) return
    pooled.busy = undefined
    clearTimeout(busy.timer)
    busy.batch.settle(outcome)
  }

  /** Takes a worker out of the pool; false when it was not in it any more. */
  private remove(pooled: PooledWorker): boolean {
    const at = this.workers.indexOf(pooled)
    if (at === -1) return false
    this.workers.splice(at, 1)
    clearTimeout(pooled.idleTimer)
    return true
  }

  private retire(pooled: PooledWorker): void {
    if (pooled.busy || !this.remove(pooled)) return
    void pooled.worker.terminate()
  }
}

/** One worker per core up to 4, leaving a core to the event loop where there are more than 2. */
function defaultPoolSize(): number {
  const cores = availableParallelism()
  return Math.max(1, Math.min(4, cores > 2 ? cores - 1 : cores))
}

/** The worker's script in a build that bundles it as an entry of its own (the Electron app's, out/main). */
let bundledScript: string | undefined

/** Names the bundled worker script (the desktop app's backend process does, at start). */
export function useLinkWorkerScript(file: string): void {
  bundledScript = file
}

/** The worker's code: the bundled script, or a few lines that register tsx and import the source. */
function workerScript(): { url: URL } | { code: string } {
  if (typeof __QUIRE_LINK_WORKER__ === 'string') return { url: pathToFileURL(__QUIRE_LINK_WORKER__) }
  if (bundledScript !== undefined) return { url: pathToFileURL(bundledScript) }
  // `--import tsx` in the worker's execArgv is not enough on Node 20 (its entry loads before the hooks).
  const tsxApi = pathToFileURL(tsxEsmApi()).href
  const source = new URL('./worker.ts', import.meta.url).href
  return { code: `import(${JSON.stringify(tsxApi)}).then(({ register }) => { register(); return import(${JSON.stringify(source)}) })` }
}

/** tsx's `tsx/esm/api` as `import` resolves it (require.resolve would give its CommonJS twin). */
function tsxEsmApi(): string {
  const manifest = createRequire(import.meta.url).resolve('tsx/package.json')
  const { exports } = JSON.parse(readFileSync(manifest, 'utf8')) as { exports: Record<string, { import: { default: string } }> }
  return path.join(path.dirname(manifest), exports['./esm/api'].import.default)
}

function intoBatches(texts: string[]): string[][] {
  const batches: string[][] = []
  let current: string[] = []
  let chars = 0
  for (const text of texts) {
    if (current.length > 0 && chars + text.length > BATCH_CHARS) {
      batches.push(current)
      current = []
      chars = 0
    }
    current.push(text)
    chars += text.length
  }
  if (current.length > 0) batches.push(current)
  return batches
}

/** The fallback: one run at a time on this thread, the event loop given back after each. */
async function parseOnThisThread(texts: string[]): Promise<ChunkLinks[]> {
  const results: ChunkLinks[] = []
  for (const text of texts) {
    results.push(parseChunkLinks(text))
    await new Promise<void>((resolve) => setImmediate(resolve))
  }
  return results
}

/** The fallback for a document: converted here, failures reported as the workers' are. */
function convertOnThisThread(document: DocumentJob): ConvertedDocument {
  try {
    return convertDocument(document)
  } catch (error) {
    throw new LinkParseError(`markdown could not be parsed: ${error instanceof Error ? error.message : String(error)}`)
  }
}

let shared: LinkWorkerPool | undefined

/**
 * Parses runs in the process's shared pool (started on first use). `QUIRE_LINK_PARSE_TIME_LIMIT_MS`
 * sets its time limit per batch (tests use a short one).
 */
const sharedPool = (): LinkWorkerPool => (shared ??= new LinkWorkerPool({ timeLimitMs: Number(process.env.QUIRE_LINK_PARSE_TIME_LIMIT_MS) || undefined }))

export const parseRunsOffThread: RunParser = (texts) => sharedPool().parse(texts)

/** One round of a document's conversion in the process's shared pool (`LinkWorkerPool.convert`). */
export const convertDocumentOffThread: DocumentRound = (job) => sharedPool().convert(job)

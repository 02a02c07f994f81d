/**
 * Worker threads that parse runs of markdown for their links (issue 16): remark costs seconds per
 * megabyte, and a service that parsed a large page on its event loop answered nothing else meanwhile.
 * `parseRunsOffThread` (a `RunParser` for `parseLinksAhead`) hands the runs to a small pool of workers
 * in batches, each worker taking the next batch when it is done, and resolves with their results in
 * order; the event loop only sends and receives messages.
 *
 * Where the worker's script comes from:
 * - the compiled CLI (scripts/build-cli.mjs) bundles `worker.ts` as an entry of its own and defines
 *   `__QUIRE_LINK_WORKER__` as that file's path;
 * - otherwise (tsx, vitest) the worker runs `worker.ts` itself, with tsx's loader.
 * When no worker can be started (a packaged app with neither), or one dies, the runs are parsed on the
 * calling thread one at a time with the event loop given back in between: slower, but nothing stalls.
 * Workers are started on first use, do not keep the process alive, and end after a while idle.
 */
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { availableParallelism } from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { parseChunkLinks, type ChunkLinks } from '../../content/markdown/chunk-links'
import type { RunParser } from '../../content/markdown/links'
import type { LinkWorkerReply, LinkWorkerRequest } from './worker'

/** Defined by scripts/build-cli.mjs: the bundled worker's absolute path. */
declare const __QUIRE_LINK_WORKER__: string | undefined

/** Characters of markdown per message: a few tens of milliseconds of parsing, so batches balance. */
const BATCH_CHARS = 64 * 1024
/** An idle worker ends after this long (each holds remark and its heap, some tens of MB). */
const IDLE_MS = 30_000

interface Batch {
  texts: string[]
  settle: (results: ChunkLinks[] | Error) => void
}

interface PooledWorker {
  worker: Worker
  busy?: { id: number; batch: Batch }
  idleTimer?: NodeJS.Timeout
}

export interface LinkWorkerPoolOptions {
  /** Workers at most (default: one per core up to 4, leaving a core to the event loop beyond 2). */
  size?: number
  /** The worker's script (default: see the top of this file). */
  script?: URL
}

export class LinkWorkerPool {
  private readonly workers: PooledWorker[] = []
  private readonly queue: Batch[] = []
  private readonly size: number
  private readonly script: URL | undefined
  private nextId = 0
  /** Set once a worker could not start or died: from then on runs are parsed on the calling thread. */
  private broken: string | undefined

  constructor(options: LinkWorkerPoolOptions = {}) {
    this.size = Math.max(1, options.size ?? defaultPoolSize())
    this.script = options.script
  }

  /** Parses `texts` with `parseChunkLinks` in the workers; results in the order of `texts`. */
  readonly parse: RunParser = async (texts) => {
    if (texts.length === 0) return []
    if (this.broken !== undefined) return parseOnThisThread(texts)
    const batches = intoBatches(texts)
    const settled = await Promise.all(batches.map((batch) => new Promise<ChunkLinks[] | Error>((settle) => this.enqueue({ texts: batch, settle }))))
    const results: ChunkLinks[] = []
    for (const [i, outcome] of settled.entries()) results.push(...(outcome instanceof Error ? await parseOnThisThread(batches[i]) : outcome))
    return results
  }

  /** Why the pool parses on the calling thread, if it does. */
  get fallbackReason(): string | undefined {
    return this.broken
  }

  /** Ends every worker; batches still queued are parsed on the calling thread. */
  async close(): Promise<void> {
    const workers = this.workers.splice(0)
    for (const pooled of workers) this.fail(pooled, new Error('link worker pool closed'))
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
      idle.worker.ref()
      idle.worker.postMessage({ id, texts: batch.texts } satisfies LinkWorkerRequest)
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
    const pooled: PooledWorker = { worker }
    this.workers.push(pooled)
    worker.on('message', (reply: LinkWorkerReply) => {
      const busy = pooled.busy
      if (!busy || busy.id !== reply.id) return
      pooled.busy = undefined
      worker.unref()
      busy.batch.settle('error' in reply ? new Error(reply.error) : reply.results)
      pooled.idleTimer = setTimeout(() => this.retire(pooled), IDLE_MS).unref()
      this.dispatch()
    })
    worker.on('error', (error) => this.giveUp(`link worker failed: ${error.message}`, pooled, error))
    worker.on('exit', (code) => this.giveUp(`link worker exited with code ${code}`, pooled))
    return pooled
  }

  /** A worker that cannot start or dies: its batch and every queued one go back to the calling thread. */
  private giveUp(reason: string, pooled?: PooledWorker, error = new Error(reason)): void {
    if (pooled && !this.workers.includes(pooled)) return // retired or closed on purpose
    if (this.broken === undefined) process.emitWarning(`${reason}; markdown links are parsed on the main thread from now on`, 'QuireLinkWorker')
    this.broken ??= reason
    if (pooled) this.fail(pooled, error)
    for (const batch of this.queue.splice(0)) batch.settle(error)
  }

  private fail(pooled: PooledWorker, error: Error): void {
    const at = this.workers.indexOf(pooled)
    if (at !== -1) this.workers.splice(at, 1)
    clearTimeout(pooled.idleTimer)
    pooled.busy?.batch.settle(error)
    pooled.busy = undefined
  }

  private retire(pooled: PooledWorker): void {
    if (pooled.busy) return
    const at = this.workers.indexOf(pooled)
    if (at !== -1) this.workers.splice(at, 1)
    void pooled.worker.terminate()
  }
}

/** One worker per core up to 4, leaving a core to the event loop where there are more than 2. */
function defaultPoolSize(): number {
  const cores = availableParallelism()
  return Math.max(1, Math.min(4, cores > 2 ? cores - 1 : cores))
}

/** The worker's code: the bundled script, or a few lines that register tsx and import the source. */
function workerScript(): { url: URL } | { code: string } {
  if (typeof __QUIRE_LINK_WORKER__ === 'string') return { url: pathToFileURL(__QUIRE_LINK_WORKER__) }
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

let shared: LinkWorkerPool | undefined

/** Parses runs in the process's shared pool (started on first use). */
export const parseRunsOffThread: RunParser = (texts) => (shared ??= new LinkWorkerPool()).parse(texts)

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
import { WorkerPool } from '../worker-pool'
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

export interface LinkWorkerPoolOptions {
  /** Workers at most (default: one per core up to 4, leaving a core to the event loop beyond 2). */
  size?: number
  /** The worker's script (default: see the top of this file). */
  script?: URL
  /** A batch of runs taking longer is given up with a `LinkParseError` (default 30 s). */
  timeLimitMs?: number
}

export class LinkWorkerPool {
  private readonly pool: WorkerPool<LinkWorkerMessage>
  private readonly timeLimitMs: number

  constructor(options: LinkWorkerPoolOptions = {}) {
    this.timeLimitMs = options.timeLimitMs ?? TIME_LIMIT_MS
    const script = options.script
    this.pool = new WorkerPool<LinkWorkerMessage>({
      size: options.size ?? defaultPoolSize(),
      idleMs: IDLE_MS,
      create: () => {
        const source = script ? { url: script } : workerScript()
        return 'url' in source ? new Worker(source.url, { name: 'quire-link-parser' }) : new Worker(source.code, { eval: true, name: 'quire-link-parser' })
      },
      label: 'link worker',
      fallback: 'markdown links are parsed on the main thread',
      warningType: 'QuireLinkWorker',
    })
  }

  /**
   * Parses `texts` with `parseChunkLinks` in the workers; results in the order of `texts`. Rejects with
   * a `LinkParseError` when a run cannot be parsed (see the top of this file).
   */
  readonly parse: RunParser = async (texts) => {
    if (texts.length === 0) return []
    if (this.pool.fallbackReason !== undefined) return parseOnThisThread(texts)
    const batches = intoBatches(texts)
    const outcomes = await Promise.all(batches.map((batch) => this.run({ texts: batch }, this.timeLimitMs)))
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
    const outcome = this.pool.fallbackReason !== undefined ? undefined : await this.run({ document }, Math.round(this.timeLimitMs * Math.max(1, document.body.length / DOCUMENT_CHARS_PER_LIMIT)))
    if (outcome instanceof LinkParseError) throw outcome
    if (outcome === undefined || outcome instanceof WorkerUnavailable) return convertOnThisThread(document)
    return outcome as ConvertedDocument
  }

  /** Why the pool parses on the calling thread, if it does. */
  get fallbackReason(): string | undefined {
    return this.pool.fallbackReason
  }

  /** Ends every worker; batches still queued are parsed on the calling thread. */
  close(): Promise<void> {
    return this.pool.close()
  }

  /** One message's work in a worker, under `timeLimitMs`: what it answered, or why it could not. */
  private run(job: Job, timeLimitMs: number): Promise<Outcome> {
    return new Promise((settle) =>
      this.pool.run({
        timeLimitMs,
        send: (worker, id) => worker.postMessage({ id, ...job } satisfies LinkWorkerRequest),
        receive: (message) => {
          if (!('ready' in message)) settle('error' in message ? new LinkParseError(message.error) : 'document' in message ? message.document : message.results)
          return 'done'
        },
        unavailable: (reason) => settle(new WorkerUnavailable(reason)),
        lost: (loss) =>
          settle(new LinkParseError('overranMs' in loss ? `markdown could not be parsed within ${Math.round(loss.overranMs / 1000)} s (nested too deeply?)` : `markdown could not be parsed: ${loss.reason}`)),
      }),
    )
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

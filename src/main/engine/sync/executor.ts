import { gitBlobOid } from '../../content'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import type { EntryKind, JournalEntry, SyncAction, SyncPlan } from './plan-types'

/** The space folder as the executor needs it; paths relative to the folder. */
export interface SpaceFiles {
  /** Git blob id of the file at `path`; undefined when there is none. */
  hash(path: string): Promise<string | undefined>
  /** Whether nothing at all is at `path`: what `hash` says by answering undefined, without reading a file. */
  isAbsent?(path: string): Promise<boolean>
  /** Atomic: readers see the old or the new content, never a mix. */
  write(path: string, data: Uint8Array): Promise<void>
  rename(from: string, to: string): Promise<void>
  remove(path: string): Promise<void>
  /** Makes every `write` so far durable (their folders synced); the journal is told of them only after. */
  flush?(): Promise<void>
}

/** Where remote content comes from (the gateway in the app, a map in tests). */
export interface ContentSource {
  page(id: string): Promise<Uint8Array>
  file(id: string, url: string): Promise<Uint8Array>
}

/** Progress is recorded as steps finish, so a killed pass resumes where it stopped. */
export interface JournalWriter {
  record(entry: JournalEntry): void
  forget(id: string, kind: EntryKind): void
  /** Runs `work` (several records) as one transaction. */
  commit?(work: () => void): void
}

export interface StepEvent {
  action: SyncAction
  outcome: 'done' | 'skipped' | 'failed'
  /** Steps finished so far, out of `total`. */
  index: number
  total: number
}

export interface ExecuteOptions {
  files: SpaceFiles
  source: ContentSource
  journal: JournalWriter
  /** Downloads in flight at once (the gateway still caps requests). */
  concurrency?: number
  /** Called after each step is recorded; an exception here stops the pass (like a crash would). */
  onStep?: (event: StepEvent) => void
}

export interface ExecutionResult {
  done: number
  /** Actions not performed because the local file changed since the plan was made. */
  skipped: Array<{ action: SyncAction; reason: string }>
  failed: Array<{ action: SyncAction; error: string }>
}

const utf8 = new TextEncoder()

/** Downloads journaled together: one folder sync per folder and one transaction per batch, not per file. */
const BATCH_SIZE = 128
const BATCH_MS = 1000

class StaleLocalFile extends Error {}

/**
 * Performs a plan. Every step first re-checks the file it touches (the user may have edited it since the
 * plan was made) and writes atomically. Renames and deletions are journaled one by one, as they happen;
 * downloads in batches, each once its files are durable, and whatever is pending when the pass stops for
 * any reason. A pass killed before a batch is journaled leaves complete files that the journal does not
 * know: the next plan adopts each one that holds the remote content, without downloading it again. A
 * step that fails is reported and the others go on; an unreachable service stops the pass (offline).
 */
export async function executePlan(plan: SyncPlan, options: ExecuteOptions): Promise<ExecutionResult> {
  const { files, source, journal } = options
  const result: ExecutionResult = { done: 0, skipped: [], failed: [] }
  const total = plan.actions.length
  let index = 0
  const commit = (work: () => void) => (journal.commit ? journal.commit(work) : work())
  const batch = new DownloadBatch(files, (entries) => commit(() => entries.forEach((e) => journal.record(e))))

  const finish = (action: SyncAction, outcome: StepEvent['outcome']) => {
    index++
    options.onStep?.({ action, outcome, index, total })
  }

  const perform = async (action: SyncAction): Promise<void> => {
    let outcome: StepEvent['outcome'] = 'done'
    try {
      await apply(action)
      result.done++
    } catch (error) {
      if (error instanceof ServiceUnreachableError) throw error
      if (error instanceof StaleLocalFile) {
        outcome = 'skipped'
        result.skipped.push({ action, reason: error.message })
      } else {
        outcome = 'failed'
        result.failed.push({ action, error: error instanceof Error ? error.message : String(error) })
      }
    }
    finish(action, outcome)
  }

  const apply = async (action: SyncAction): Promise<void> => {
    switch (action.type) {
      case 'forget':
        journal.forget(action.id, action.kind)
        return
      case 'delete':
        await expectHash(action.path, action.baseHash)
        await files.remove(action.path)
        journal.forget(action.id, action.kind)
        return
      case 'move':
        await expectHash(action.from, action.baseHash)
        await expectHash(action.to, undefined)
        await files.rename(action.from, action.to)
        journal.record({ id: action.id, kind: action.kind, path: action.to, oid: action.oid, baseHash: action.baseHash })
        return
      case 'adopt':
        await expectHash(action.path, action.oid)
        journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: action.oid })
        return
      case 'download': {
        const bytes = await content(action)
        const hash = gitBlobOid(bytes)
        if (action.oid !== '' && hash !== action.oid) throw new Error(`the service sent content for ${action.path} that does not match its oid`)
        await expectHash(action.path, action.expect)
        await files.write(action.path, bytes)
        batch.add({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: hash })
        return
      }
    }
  }

  const content = (action: Extract<SyncAction, { type: 'download' }>): Promise<Uint8Array> => {
    if (action.content !== undefined) return Promise.resolve(utf8.encode(action.content))
    if (action.kind === 'file') return source.file(action.id, action.url ?? '')
    return source.page(action.id)
  }

  const expectHash = async (path: string, expected: string | undefined) => {
    if (expected === undefined && files.isAbsent && (await files.isAbsent(path))) return
    const actual = await files.hash(path)
    if (actual !== expected) {
      throw new StaleLocalFile(expected === undefined ? `${path} appeared locally` : actual === undefined ? `${path} disappeared locally` : `${path} changed locally`)
    }
  }

  // Renames and deletions in order (they depend on each other); downloads in parallel; the summary,
  // which lists the pages the others put in place, last.
  const sequential = plan.actions.filter((a) => a.type !== 'download')
  const parallel = plan.actions.filter((a) => a.type === 'download' && a.kind !== 'summary')
  const last = plan.actions.filter((a) => a.type === 'download' && a.kind === 'summary')
  let stopped: { error: unknown } | undefined
  try {
    for (const action of sequential) await perform(action)

    let next = 0
    let abort: { error: unknown } | undefined
    const worker = async () => {
      while (!abort && next < parallel.length) {
        const action = parallel[next++]
        try {
          await perform(action)
        } catch (error) {
          abort ??= { error }
        }
      }
    }
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? 8) }, worker))
    if (abort) throw abort.error
    for (const action of last) await perform(action)
  } catch (error) {
    stopped = { error }
  }
  // However the pass ends (offline, a crash in a callback), what was written is journaled.
  try {
    await batch.close()
  } catch (error) {
    stopped ??= { error }
  }
  if (stopped) throw stopped.error
  return result
}

/**
 * Journal entries of finished downloads, committed in batches: first the files are made durable
 * (`flush`), then the batch goes into the journal in one transaction. A batch is committed once it is
 * large or old enough, in the background; one commit runs at a time.
 */
class DownloadBatch {
  private pending: JournalEntry[] = []
  private startedAt = 0
  private committing: Promise<void> = Promise.resolve()
  private failure: { error: unknown } | undefined

  constructor(
    private readonly files: SpaceFiles,
    private readonly record: (entries: JournalEntry[]) => void,
  ) {}

  add(entry: JournalEntry) {
    if (this.pending.length === 0) this.startedAt = Date.now()
    this.pending.push(entry)
    if (this.pending.length >= BATCH_SIZE || Date.now() - this.startedAt >= BATCH_MS) this.commit()
  }

  /** Commits what is pending and waits for every commit; rethrows a commit's failure. */
  async close(): Promise<void> {
    this.commit()
    await this.committing
    if (this.failure) throw this.failure.error
  }

  private commit() {
    if (this.pending.length === 0) return
    const entries = this.pending
    this.pending = []
    this.committing = this.committing.then(async () => {
      if (this.failure) return
      try {
        await this.files.flush?.()
        this.record(entries)
      } catch (error) {
        this.failure = { error }
      }
    })
  }
}

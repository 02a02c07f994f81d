import type { JSONDocument } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import { ServiceUnreachableError } from '../gateway/api-gateway'
import { LocalFileChanged } from '../workspace/atomic-write'
import { localizeLinks, type LocalLinks } from '../workspace/local-links'
import type { ByteStream, SpaceFiles } from '../workspace/space-files'
import { renderInclude } from './include-files'
import type { EntryKind, JournalEntry, SyncAction, SyncPlan } from './plan-types'

export type { SpaceFiles } from '../workspace/space-files'


/** Where remote content comes from (the gateway in the app, a map in tests). */
export interface ContentSource {
  page(id: string): Promise<Uint8Array>
  file(id: string, url: string): Promise<Uint8Array>
  /** File bytes handed to `sink` as they arrive, never held whole (used when the folder can write a stream). */
  fileInto?<T>(id: string, url: string, sink: (body: ByteStream) => Promise<T>): Promise<T>
  /** A reusable content's body as the spec's JSON document (the API gives it no other way). */
  reusableContent?(id: string): Promise<JSONDocument>
}

/** Progress is recorded after each step, so a killed pass resumes where it stopped. */
export interface JournalWriter {
  record(entry: JournalEntry): void
  forget(id: string, kind: EntryKind): void
  /** Runs `work` (a step's records) as one transaction, with whatever the writer keeps beside them. */
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
  /**
   * Steps under way at once (default STEPS_IN_FLIGHT). The gateway, not this, sets how many requests
   * are in flight (the service's rate-limit headers and its answers set its pace): this only has to
   * keep work waiting for it.
   */
  concurrency?: number
  /** Called after each step is recorded; an exception here stops the pass (like a crash would). */
  onStep?: (event: StepEvent) => void
  /** How many records of files that hold their remote content may wait, and how long in ms (JournalBatch; tests). */
  journalBatch?: { size: number; ms: number }
}

export interface ExecutionResult {
  done: number
  /** Actions not performed because the local file changed since the plan was made. */
  skipped: Array<{ action: SyncAction; reason: string }>
  failed: Array<{ action: SyncAction; error: string }>
}

const utf8 = new TextEncoder()

/** A page's bytes with its links to renamed files written to their local names (the same bytes when none is). */
function localBytes(remote: Uint8Array, path: string, links: LocalLinks): Uint8Array {
  const text = Buffer.from(remote.buffer, remote.byteOffset, remote.byteLength).toString('utf8')
  const local = localizeLinks(text, path, links)
  return local === text ? remote : utf8.encode(local)
}

/** Folders that received files are synced this often (and when the pass ends), not once per file. */
const FOLDER_SYNC_MS = 1000

/** A step the writer overtook: skipped, and the file stays a local edit that sync up sends (or keeps in a conflicted copy). */
const StaleLocalFile = LocalFileChanged

/**
 * Performs a plan. Every step re-checks the file it touches (the user may have edited it since the
 * plan was made) before its slow work and again, inside SpaceFiles, right before the rename or deletion
 * itself, so a save during the pass is never overwritten: the step is skipped and the file stays a
 * local edit. It writes atomically and records the result in the journal right after the rename: at
 * once, in the same turn, when the file differs from its remote oid (a killed pass leaves no such file
 * the journal does not know: sync up would take one for a new page); in batches when it holds exactly
 * the remote oid's bytes, which the next pass adopts (JournalBatch says why that is safe). The folders'
 * own entries are synced in rounds, one sync per folder, and all before the pass ends. A step that fails
 * is reported and the others go on; an unreachable service or a journal batch that cannot be recorded
 * stops the pass (offline, or an error; the run stays unfinished).
 */
export async function executePlan(plan: SyncPlan, options: ExecuteOptions): Promise<ExecutionResult> {
  const { files, source, journal } = options
  const result: ExecutionResult = { done: 0, skipped: [], failed: [] }
  const total = plan.actions.length
  let index = 0
  const journalBatch = new JournalBatch(journal, options.journalBatch ?? { size: JOURNAL_BATCH_SIZE, ms: JOURNAL_BATCH_MS })
  const commit = (work: () => void) => journalBatch.now(work)
  const commitMatching = (work: () => void) => journalBatch.later(work)
  const folderSyncs = new FolderSyncs(files)

  const finish = (action: SyncAction, outcome: StepEvent['outcome']) => {
    index++
    options.onStep?.({ action, outcome, index, total })
  }

  const performed = new Set<SyncAction>()
  const perform = async (action: SyncAction): Promise<void> => {
    let outcome: StepEvent['outcome'] = 'done'
    try {
      await apply(action)
      result.done++
      performed.add(action)
    } catch (error) {
      if (error instanceof ServiceUnreachableError || error instanceof JournalBatchFailed) throw error
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
        commit(() => journal.forget(action.id, action.kind))
        return
      case 'delete':
        await expectHash(action.path, action.baseHash)
        await files.remove(action.path, action.baseHash)
        commit(() => journal.forget(action.id, action.kind))
        return
      case 'move':
        await expectHash(action.from, action.baseHash)
        await expectHash(action.to, undefined)
        await files.rename(action.from, action.to, action.baseHash)
        commit(() => journal.record({ id: action.id, kind: action.kind, path: action.to, oid: action.oid, baseHash: action.baseHash }))
        return
      case 'recover': {
        await expectHash(action.file, action.hash)
        if (action.path !== action.file) await expectHash(action.path, undefined)
        const baseHash = await recoveredBase(action)
        await expectHash(action.file, action.hash)
        commit(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash }))
        return
      }
      case 'adopt':
        await expectHash(action.path, action.oid)
        commitMatching(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: action.oid }))
        return
      case 'download': {
        if (action.include) {
          const document = await includeDocument(action.include.contentId)
          const bytes = utf8.encode(renderInclude(document, action.path, action.include))
          const hash = gitBlobOid(bytes)
          await expectWritable(action.path, action.expect)
          await files.write(action.path, bytes, action.expect, false, hash)
          commit(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: hash }))
          folderSyncs.wrote()
          return
        }
        if (action.kind === 'file' && action.content === undefined && source.fileInto && files.writeStream) {
          // Written to disk as the bytes arrive: a space's files are most of what a first mirror moves.
          await expectWritable(action.path, action.expect)
          const writeStream = files.writeStream.bind(files)
          const hash = await source.fileInto(action.id, action.url ?? '', (body) => writeStream(action.path, body, action.expect, action.oid === '' ? undefined : action.oid))
          ;(hash === action.oid ? commitMatching : commit)(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: hash }))
          folderSyncs.wrote()
          return
        }
        const remote = await content(action)
        if (action.oid !== '' && gitBlobOid(remote) !== action.oid) throw new Error(`the service sent content for ${action.path} that does not match its oid`)
        const bytes = action.links ? localBytes(remote, action.path, action.links) : remote
        const hash = bytes === remote && action.oid !== '' ? action.oid : gitBlobOid(bytes)
        // Before writing a temp file for nothing; `write` checks again right before its rename.
        await expectWritable(action.path, action.expect)
        await files.write(action.path, bytes, action.expect, hash === action.oid, hash)
        ;(hash === action.oid ? commitMatching : commit)(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid: action.oid, baseHash: hash }))
        folderSyncs.wrote()
        return
      }
    }
  }

  /**
   * A save that reached a file after its step replaced or removed it undoes the step: its bytes are
   * back at the name (SpaceFiles.lateSaves), or a save renamed over the name after the step is there,
   * made from the text the step replaced. So the journal records again what it had for that file, and
   * the page is a local edit of that text, as when the save lands before the step: sync up merges it
   * with the remote change (three ways) rather than sending it over the remote change. Bytes that went
   * into a conflicted copy, the name holding what the step left, leave the step in place.
   */
  const undoOvertakenSteps = async () => {
    if (!files.lateSaves) return
    const saves = await files.lateSaves()
    if (saves.length === 0) return
    const replacing = new Map<string, Extract<SyncAction, { type: 'download' | 'delete' }>>()
    for (const action of performed) if ((action.type === 'download' && action.expect !== undefined) || action.type === 'delete') replacing.set(action.path, action)
    for (const save of saves) {
      const action = replacing.get(save.relative)
      if (!action) continue
      const baseHash = action.type === 'delete' ? action.baseHash : action.expect!
      if (save.went === 'in place' && action.journaledOid !== undefined) {
        const oid = action.journaledOid
        commit(() => journal.record({ id: action.id, kind: action.kind, path: action.path, oid, baseHash }))
      }
      result.done--
      result.skipped.push({ action, reason: `${save.relative} changed locally${save.went === 'copy' || save.copied ? ' (kept in a conflicted copy)' : ''}` })
    }
  }

  /**
   * The merge base of a recovered file: the hash of what a download of its entry would write (the remote
   * oid, unless its links or include are written locally). A page's text is fetched either way, so the
   * journal's record keeps it as the page's merge base (as a download's does).
   */
  const recoveredBase = async (action: Extract<SyncAction, { type: 'recover' }>): Promise<string> => {
    // Edited from an earlier version: that version is the merge base (its text kept by the pass).
    if (action.baseText !== undefined) return action.oid
    if (action.include) return gitBlobOid(utf8.encode(renderInclude(await includeDocument(action.include.contentId), action.path, action.include)))
    if (action.kind === 'file') return action.oid
    const remote = await content({ ...action, type: 'download' })
    if (gitBlobOid(remote) !== action.oid) throw new Error(`the service sent content for ${action.path} that does not match its oid`)
    return action.links ? gitBlobOid(localBytes(remote, action.path, action.links)) : action.oid
  }

  const includeDocument = (id: string): Promise<JSONDocument> => {
    if (!source.reusableContent) throw new Error(`reusable content ${id} cannot be read from this source`)
    return source.reusableContent(id)
  }

  const content = (action: Extract<SyncAction, { type: 'download' }>): Promise<Uint8Array> => {
    if (action.content !== undefined) return Promise.resolve(utf8.encode(action.content))
    if (action.kind === 'file') return source.file(action.id, action.url ?? '')
    return source.page(action.id)
  }

  /** Before a write's slow work: the file is still what the plan saw (the write itself looks when it can). */
  const expectWritable = async (path: string, expected: string | undefined) => {
    if (expected === undefined && files.refusesOccupied) return
    await expectHash(path, expected)
  }

  const expectHash = async (path: string, expected: string | undefined) => {
    if (expected === undefined && files.isAbsent && (await files.isAbsent(path))) return
    const actual = await files.hash(path)
    if (actual !== expected) {
      throw new StaleLocalFile(path, expected === undefined ? 'appeared' : actual === undefined ? 'disappeared' : 'changed')
    }
  }

  // Renames and deletions in order (they depend on each other); downloads in parallel; the summary,
  // which lists the pages the others put in place, last.
  const sequential = plan.actions.filter((a) => a.type !== 'download')
  const parallel = interleaved(plan.actions.filter((a) => a.type === 'download' && a.kind !== 'summary'))
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
    await Promise.all(Array.from({ length: Math.max(1, options.concurrency ?? STEPS_IN_FLIGHT) }, worker))
    if (abort) throw abort.error
    for (const action of last) await perform(action)
  } catch (error) {
    stopped = { error }
  }
  // However the pass ends (offline, a crash in a callback), a late save is put back, and what was
  // written is journaled and made durable.
  try {
    await undoOvertakenSteps()
  } catch (error) {
    stopped ??= { error }
  }
  try {
    journalBatch.flush()
  } catch (error) {
    stopped ??= { error }
  }
  try {
    await folderSyncs.close()
  } catch (error) {
    stopped ??= { error }
  }
  if (stopped) throw stopped.error
  return result
}

/**
 * Steps under way at once by default. It was 8, exactly the requests in flight that a rate of 100 a
 * second allows at an 80 ms round trip, so any time the service or the client spent kept the pass under
 * the rate (bench:network). Steps are cheap to hold (a page is small, a file streams to disk).
 */
const STEPS_IN_FLIGHT = 32

/**
 * Downloads in the plan's order, files spread evenly among the pages: a page costs a request (the API's
 * rate limit bounds those) and a file mostly bytes (from a file host, bounded by bandwidth), so mixed
 * they use both at once, where all the pages and then all the files would use one after the other.
 */
function interleaved(downloads: SyncAction[]): SyncAction[] {
  const files = downloads.filter((a) => a.type === 'download' && a.kind === 'file')
  if (files.length === 0 || files.length === downloads.length) return downloads
  const others = downloads.filter((a) => !(a.type === 'download' && a.kind === 'file'))
  const out: SyncAction[] = []
  let f = 0
  for (let i = 0; i < others.length; i++) {
    out.push(others[i])
    // After the i-th other step, as many files as keep their share even.
    for (const due = Math.floor(((i + 1) * files.length) / others.length); f < due; f++) out.push(files[f])
  }
  return out
}

/** The journal could not record a batch of written files: the pass stops (unfinished, so the next one resumes it). */
class JournalBatchFailed extends Error {
  constructor(override readonly cause: unknown) {
    super(`the journal could not record the files written: ${cause instanceof Error ? cause.message : String(cause)}`)
  }
}

/** Records of files that hold their remote content wait at most this many, and at most this long (ms). */
const JOURNAL_BATCH_SIZE = 64
const JOURNAL_BATCH_MS = 250

/**
 * The journal's writes, one transaction for many files. A record of a file that holds exactly its
 * remote content (it hashes to the remote oid: a download written as sent, an adopted file) may wait
 * for the batch's transaction; any other record is written at once, in one transaction with those
 * waiting (so records keep their order). Why waiting is safe: a pass killed before the batch commits
 * leaves files the journal does not know, each at its remote path holding its remote oid's bytes, and
 * its run unfinished. Sync up plans nothing while a run is unfinished (SpacePusher), and the next pass
 * adopts such a file (planner: an unjournaled file that hashes to the remote oid), so it is neither sent
 * as a new page nor overwritten nor lost. A record that differs from the oid (a page written with local
 * links, an include, SUMMARY.md) would not be adopted, so it never waits.
 */
class JournalBatch {
  private waiting: Array<() => void> = []
  private since = 0

  constructor(
    private readonly journal: JournalWriter,
    private readonly limits: { size: number; ms: number },
  ) {}

  now(work: () => void) {
    const works = this.take()
    this.run(() => {
      for (const w of works) w()
      work()
    }, works.length > 0)
  }

  later(work: () => void) {
    if (this.waiting.length === 0) this.since = Date.now()
    this.waiting.push(work)
    if (this.waiting.length >= this.limits.size || Date.now() - this.since >= this.limits.ms) this.flush()
  }

  flush() {
    const works = this.take()
    if (works.length > 0) this.run(() => works.forEach((w) => w()), true)
  }

  private take(): Array<() => void> {
    const works = this.waiting
    this.waiting = []
    return works
  }

  /** A failure of a transaction holding waiting records stops the pass: those files are written. */
  private run(work: () => void, batched: boolean) {
    try {
      if (this.journal.commit) this.journal.commit(work)
      else work()
    } catch (error) {
      if (batched) throw new JournalBatchFailed(error)
      throw error
    }
  }
}

/** Syncs the folders written to, in the background, one round at a time, at most every FOLDER_SYNC_MS. */
class FolderSyncs {
  private round: Promise<void> = Promise.resolve()
  private last = Date.now()
  private failure: { error: unknown } | undefined

  constructor(private readonly files: SpaceFiles) {}

  wrote() {
    if (Date.now() - this.last >= FOLDER_SYNC_MS) this.sync()
  }

  /** A last round for every write so far; rethrows a round's failure. */
  async close(): Promise<void> {
    this.sync()
    await this.round
    if (this.failure) throw this.failure.error
  }

  private sync() {
    const flush = this.files.flush
    if (!flush) return
    this.last = Date.now()
    this.round = this.round.then(() =>
      flush.call(this.files).catch((error: unknown) => {
        this.failure ??= { error }
      }),
    )
  }
}

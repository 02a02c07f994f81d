import { pushLinkFindings } from '../links/local-preflight'
import type { PreflightFinding } from '../links/preflight'
import { enqueueAction } from '../outbox/action-keys'
import { OutboxSender, type ChangeRequestGone, type DrainResult } from '../outbox/outbox-sender'
import { journalIntact } from '../sync/recovery-inputs'
import type { JournalEntry } from '../sync/plan-types'
import type { CacheRepository } from '../cache/cache-repository'
import type { OutboxOp } from '../outbox/outbox-types'
import type { ChangeRequest, Space } from '@gitbook/api'
import { checkOpenChangeRequest, settleChangeRequest } from './change-request-settle'
import { ChangeRequestTrust } from './change-request-trust'
import { holdOf, keptLocalFiles, rememberKeptLocal } from './hold'
import { baseTexts, missingSince, rememberMissingSince } from './missing-pages'
import { enclosingIn } from '../workspace/content-names'
import { StatJournal } from '../cache/stat-journal'
import { LocalScanner } from './local-scan'
import { changeRequestTexts, mergeTexts, refreshMain } from './main-view'
import { removeMarkers, removePostedMarkers } from './marker-removal'
import { rememberRevivable, revivablePages } from './revivals'
import { enqueuePlan } from './plan-to-outbox'
import { applyRewrites, closeResolvedConflicts, finishConflicts, keepOrphans } from './push-conflicts'
import { planPush } from './push-planner'
import type { PushPlan, PushReport } from './push-types'
import { deletionQuietMs, nowOf, stampOf, type SpacePusherOptions } from './pusher-context'
import { filesOf } from './sync-up-status'
import { carriedSummary, rememberSummaryEdit, summaryBase } from './summary-state'

export { stampOf, type SpacePusherOptions } from './pusher-context'

type MainView = ReturnType<CacheRepository['remoteTree']>

export interface PushResult {
  /** Changes written to the outbox by this push. */
  planned: number
  /** Operations the service answered during this push. */
  sent: number
  changeRequest?: { id: string; number?: number }
  conflicts: string[]
  reports: PushReport[]
  failures: string[]
  /** Set when the outbox could not be emptied (offline, rate limited, server errors): it is sent later. */
  stopped?: DrainResult['stopped']
  /** A change request of the writer was merged or closed and the workspace took it in. */
  settled?: { id: string; status: 'merged' | 'archived' | 'missing' }
  /** Why nothing was planned (a sync down pass is unfinished). */
  skipped?: string
  /** Removals held back for the quiet interval (a file an editor may be saving back): push again at `replanAt`. */
  waitingDeletions?: number
  /** When to push again (ms since the epoch) so the waiting removals are planned once the desk is quiet. */
  replanAt?: number
  /** Broken links this push adds (link pre-flight): it is sent all the same, the writer decides. */
  brokenLinks?: PreflightFinding[]
}

/** The pre-flight of a push; a check that fails never holds the push back. */
function preflightOf(folder: string, plan: PushPlan, listing?: Iterable<string>): PreflightFinding[] {
  try {
    return pushLinkFindings(folder, plan, listing)
  } catch {
    return []
  }
}

/**
 * Sync up for one space: local edits become content changes in the writer's one open change request,
 * markers become comments, both sides' edits are kept on conflict. Every outgoing operation is written
 * to the outbox before it is sent; every step is safe to repeat after a crash.
 *
 * A push: finish pending conflicts -> send what the outbox holds -> take in a merged or closed change
 * request -> plan from (journal, local files, main) -> write the plan to the outbox -> send it.
 */
export class SpacePusher {
  private readonly scanner: LocalScanner
  private readonly sender: OutboxSender
  /** Whether a watcher reports every change of the folder (the session's): only then may a plan be skipped. */
  private watched = false
  /** Changes the watcher reported, counted: one during a plan makes that plan's key stale. */
  private localChanges = 0
  /**
   * The paths the watcher reported changed since the last scan began: the next scan looks at these alone
   * (LocalScanner's view). Undefined when they cannot say all that changed — before a first scan, not
   * watched, a removal or an ignored name reported, Quire writing the folder itself — and the next scan
   * walks the whole folder.
   */
  private changedSince: Set<string> | undefined
  /** What the scanner's view was taken at: sync down journals the files it writes, so a move of either means a walk. */
  private viewKey: string | undefined
  /** The last plan, when it found nothing to do, with what it was planned from (`planKey`) and what it reported. */
  private quiet: { key: string; reports: PushReport[]; brokenLinks?: PreflightFinding[] } | undefined
  /** The journal and main's view as last read, kept while the cache says neither moved (`pagesVersion`). */
  private views: { version: string; journal: JournalEntry[]; main: MainView } | undefined
  /** The content files the last plan's scan listed (the link pre-flight's listing of the folder). */
  private listed: ReadonlyMap<string, unknown> | undefined
  /** The hold sync down is given, kept while the plan key stays the same. */
  private heldMemo: { key: string; held: Set<string> } | undefined
  /** Whether the writer's change request holds only this process's own batches (read back from nobody). */
  private readonly trust = new ChangeRequestTrust()
  /** The writer's change request as this push read it: where main is, when it is not outdated. */
  private readChangeRequest?: ChangeRequest
  /** The space as read beside it (when the change request was outdated). */
  private readSpace?: Promise<Space | undefined>

  constructor(private readonly o: SpacePusherOptions) {
    this.scanner = new LocalScanner(o.folder, () => StatJournal.of(o.cache, o.spaceId))
    this.sender = new OutboxSender(o.gateway, o.outbox, o.comments, {
      commentPosted: (op) => this.markerPosted(op),
      answered: (op, outcome) => this.trust.answered(op, outcome),
    })
  }

  get spaceId() {
    return this.o.spaceId
  }

  /**
   * A watcher now reports (or no longer reports) every change of this folder. Either way what happened
   * before it started is not known: the next push plans.
   */
  setWatched(watched: boolean) {
    this.watched = watched
    this.localChanges++
    this.changedSince = undefined
  }

  /**
   * The watcher saw a change in the folder: the next push plans. `paths` (relative, `/`): what changed,
   * when they say it all (`whole` false: no removal, no ignored name among the events); else the next
   * scan walks the whole folder.
   */
  noteLocalChange(paths?: readonly string[], whole = true) {
    this.localChanges++
    if (whole || !paths) this.changedSince = undefined
    else for (const p of paths) this.changedSince?.add(p)
  }

  /** Quire itself wrote files of the folder (a rewrite, a conflicted copy, a marker taken out): the next scan walks it. */
  private wroteFolder() {
    this.changedSince = undefined
  }

  /**
   * What a plan is made from, as far as it can change without a file of the folder changing: the
   * watcher's count, the space's revisions, this process's writes of the journal and remote tree, and
   * the outbox. Undefined when nothing watches the folder (every push plans then).
   */
  private planKey(): string | undefined {
    if (!this.watched) return undefined
    const { cache, outbox, spaceId } = this.o
    const space = cache.space(spaceId)
    return JSON.stringify([this.localChanges, space?.syncedRevision, space?.remoteRevision, cache.pagesVersion(spaceId), outbox.fingerprint(spaceId)])
  }

  /**
   * `reuse`: when nothing changed since a plan that found nothing to do (`planKey`: the watcher saw no
   * change, the journal, main and the outbox did not move), that plan stands and nothing is read.
   * `watched`: the push the watcher's report asked for; its scan may look at the reported paths alone
   * (`scanFolder`). Any other push (a cycle's, an explicit one, a removal's replan) walks the folder, so
   * a change the watcher has not reported yet (a rename in flight) is seen by it.
   */
  async push(options: { plan?: boolean; reuse?: boolean; watched?: boolean } = {}): Promise<PushResult> {
    const result: PushResult = { planned: 0, sent: 0, conflicts: [], reports: [], failures: [] }
    const { outbox, spaceId } = this.o
    outbox.ensureSession(spaceId, this.o.userId)

    if (outbox.conflicts(spaceId).length > 0) this.wroteFolder()
    await finishConflicts(this.o)
    if (!(await this.sendAll(result))) return this.finishResult(result)
    this.readChangeRequest = undefined
    this.readSpace = undefined
    if (!result.settled) {
      // A change request outdated at its last answer (a teammate merged) does not say where main is: the
      // space is asked beside it, in the same round trip.
      const sessionCr = outbox.session(spaceId)?.changeRequestId
      const outdated = sessionCr !== undefined && (outbox.changeRequest(sessionCr)?.data as { outdated?: boolean } | undefined)?.outdated === true
      const space = outdated ? this.o.gateway.client.spaces.getSpaceById(spaceId).then((r) => r.data, () => undefined) : undefined
      // The one read a save makes before it sends (issue 29): merged or closed, someone else's edit in it, main moved.
      const { gone, read } = await checkOpenChangeRequest(this.o)
      this.trust.seen(read)
      this.readChangeRequest = gone ? undefined : read
      this.readSpace = gone ? undefined : space
      if (gone) await this.settle(gone, result)
      else await space
    }
    // After taking in a merge, the space is pulled before the next plan (main must show the merge).
    if (options.plan === false || result.settled) return this.finishResult(result)

    const run = this.o.cache.run(spaceId)
    if (run) {
      result.skipped = `a sync down pass of this space is unfinished (${run.completed}/${run.total})`
      return this.finishResult(result)
    }
    // A journal that is new or lost entries does not know which file is which page yet: planned now,
    // every file would be a new page. The next sync down pass matches them (recovery) first.
    if (!journalIntact(this.o.cache, spaceId)) {
      result.skipped = 'the space folder is not matched to its pages yet (a new or rebuilt cache); the next sync down pass does it'
      return this.finishResult(result)
    }
    // Nothing changed since a plan that found nothing to do: that plan stands, nothing is read or planned
    // (an idle pass over a 20,000-page space costs nothing of the folder).
    const key = this.planKey()
    if (options.reuse && key !== undefined && this.quiet?.key === key) {
      result.reports.push(...this.quiet.reports)
      if (this.quiet.brokenLinks) result.brokenLinks = this.quiet.brokenLinks
      result.waitingDeletions = 0
      return this.finishResult(result)
    }
    this.quiet = undefined
    await closeResolvedConflicts(this.o)
    const plan = await this.plan({ watched: options.watched })
    result.reports.push(...plan.reports)
    const broken = preflightOf(this.o.folder, plan, this.listed?.keys())
    if (broken.length > 0) result.brokenLinks = broken
    if (plan.replanAt !== undefined) result.replanAt = plan.replanAt
    result.waitingDeletions = plan.waitingDeletions?.size ?? 0
    result.planned = await enqueuePlan(this.o, plan)
    // The plan took the revivable pages in (restored, or found gone): the outbox and the journal say the rest.
    rememberRevivable(this.o.cache, spaceId, [])
    if ([plan.rewrites, plan.markers, plan.conflicts, plan.orphans, plan.relocations].some((list) => list.length > 0)) this.wroteFolder()
    rememberKeptLocal(this.o.cache, spaceId, plan.keptLocal ?? [])
    rememberSummaryEdit(this.o.cache, spaceId, outbox.session(spaceId)?.generation, plan.summaryEdit)
    await applyRewrites(this.o, plan.rewrites)
    await removePostedMarkers(this.o, plan.markers.filter((m) => !m.post && this.o.outbox.byKey(m.key)?.state === 'done'))
    await keepOrphans(this.o, plan.orphans)
    for (const r of plan.relocations) {
      const journaled = this.o.cache.journal(this.o.spaceId).find((j) => j.kind === 'page' && j.id === r.pageId)
      if (journaled) this.o.cache.recordJournal(this.o.spaceId, { ...journaled, path: r.to, baseHash: r.hash })
    }
    await finishConflicts(this.o)
    await this.sendAll(result)
    if (key !== undefined && nothingToDo(plan, result) && this.planKey() === key) this.quiet = { key, reports: plan.reports, ...(broken.length > 0 ? { brokenLinks: broken } : {}) }
    return this.finishResult(result)
  }

  private finishResult(result: PushResult): PushResult {
    const session = this.o.outbox.session(this.o.spaceId)
    if (session?.changeRequestId) result.changeRequest = { id: session.changeRequestId, number: session.number }
    result.conflicts = this.o.outbox.conflicts(this.o.spaceId).map((c) => c.copyPath)
    return result
  }

  /** Drains the outbox; false when it stopped early (offline and the like). Takes in a change request found gone. */
  private async sendAll(result: PushResult): Promise<boolean> {
    // Rows the outbox sets aside while draining (their stored data unreadable) are reported with the failures.
    const asideBefore = new Set(this.o.outbox.setAside(this.o.spaceId).map((r) => r.seq))
    const drained = await this.sender.drain(this.o.spaceId)
    for (const row of this.o.outbox.setAside(this.o.spaceId)) if (!asideBefore.has(row.seq)) result.failures.push(`${row.kind} #${row.seq}: ${row.error}`)
    result.sent += drained.sent
    result.failures.push(...drained.failed.map((f) => `${f.op.kind} #${f.op.seq}${filesOf(f.op).length > 0 ? ` of ${filesOf(f.op).join(', ')}` : ''}: ${f.error}`))
    if (drained.gone) {
      await this.settle(drained.gone, result)
      return this.sendAll(result)
    }
    if (drained.stopped) {
      result.stopped = drained.stopped
      return false
    }
    return true
  }

  /** The plan of a push, from the journal, the change request's entries, the local files and main as it is now. */
  async plan(options: { watched?: boolean } = {}): Promise<PushPlan> {
    const { cache, outbox, spaceId } = this.o
    const read = await refreshMain(this.o, { changeRequest: this.readChangeRequest, space: this.readSpace })
    this.readChangeRequest = undefined
    this.readSpace = undefined
    const { journal, main } = this.pageViews()
    const pushed = outbox.entries(spaceId)
    const base = new Map(journal.map((j) => [j.path, j.baseHash]))
    const carried = new Map(pushed.map((p) => [p.path, p.hash]))
    const pagePaths = [...journal, ...pushed].filter((e) => e.kind === 'page').map((e) => e.path)
    const scan = await this.scanFolder((p, hash) => base.get(p) !== hash || (carried.has(p) && carried.get(p) !== hash), pagePaths, options.watched === true)
    this.listed = scan.files
    const now = nowOf(this.o).getTime()
    const missing = pagePaths.filter((p) => !scan.files.has(p) && enclosingIn(scan.skipped, p) === undefined)
    const since = missingSince(cache, spaceId)
    const plan = planPush({
      spaceId,
      journal,
      main,
      mergeTexts: await mergeTexts(this.o, journal, main.pages, scan.files, read),
      changeRequestTexts: await changeRequestTexts(this.o, journal, main.pages, scan.files, this.trust),
      local: scan.files,
      skipped: scan.skipped,
      summary: scan.summary,
      summaryBase: summaryBase(cache, spaceId, journal.find((j) => j.kind === 'summary')?.oid),
      summaryCarried: carriedSummary(cache, spaceId, outbox.session(spaceId)?.generation),
      pushed,
      posted: outbox.markerKeys(spaceId),
      userId: this.o.userId,
      refused: outbox.refusedKeys(spaceId),
      stamp: freeStamp(stampOf(nowOf(this.o)), outbox.conflicts(spaceId).map((c) => c.copyPath)),
      keptLocal: keptLocalFiles(cache, spaceId),
      skippedFiles: scan.skippedFiles,
      inodeMoves: scan.inodeMoves,
      baseTexts: missing.length > 0 ? baseTexts(this.o, journal, pushed, new Set(missing)) : undefined,
      now,
      missingSince: new Map(missing.map((p) => [p, since.get(p) ?? now])),
      deletionQuietMs: deletionQuietMs(this.o),
      revivable: revivablePages(cache, spaceId),
    })
    rememberMissingSince(cache, spaceId, plan.waitingDeletions ?? new Map())
    return plan
  }

  /**
   * The folder's files: only those the watcher reported changed when its reports say all that changed
   * since the last scan and the journal did not move (a sync down pass writes files it journals before
   * the watcher reports them), else the whole folder. What is reported during the scan is for the next.
   */
  private async scanFolder(wantText: (path: string, hash: string) => boolean, expected: string[], limited: boolean) {
    const { cache, spaceId } = this.o
    const viewKey = JSON.stringify([cache.space(spaceId)?.syncedRevision, cache.journalVersion(spaceId)])
    const changed = limited && this.watched && viewKey === this.viewKey ? this.changedSince : undefined
    this.changedSince = this.watched ? new Set() : undefined
    this.viewKey = undefined
    try {
      const scan = await this.scanner.scan(wantText, expected, changed)
      this.viewKey = viewKey
      return scan
    } catch (error) {
      this.changedSince = undefined
      throw error
    }
  }

  /** The journal and main's view, read from the cache only when it says they moved since the last read. */
  private pageViews(): { journal: JournalEntry[]; main: MainView } {
    const { cache, spaceId } = this.o
    const version = cache.pagesVersion(spaceId)
    if (this.views?.version !== version) this.views = { version, journal: cache.journal(spaceId), main: cache.remoteTree(spaceId) }
    return this.views
  }

  /**
   * The pages sync down must leave alone (hold.ts `holdOf`). `reuse`: computed again only when the plan
   * key moved, as it does with any change of the folder the watcher sees, of the journal or of the outbox.
   */
  hold(options: { reuse?: boolean } = {}): Set<string> {
    const key = this.planKey()
    if (options.reuse && key !== undefined && this.heldMemo?.key === key) return this.heldMemo.held
    const held = holdOf(this.o.cache, this.o.outbox, this.o.spaceId, this.o.folder)
    this.heldMemo = key !== undefined && this.planKey() === key ? { key, held } : undefined
    return held
  }

  /** A posted comment, reply or resolve leaves the file it was typed in. */
  private async markerPosted(op: OutboxOp) {
    const marker = 'marker' in op.payload ? op.payload.marker : undefined
    if (!marker) return
    this.wroteFolder()
    await removeMarkers(this.o, marker.path, [marker.source])
  }

  /** Takes in the writer's change request found merged, closed or missing (see settleChangeRequest). */
  async settle(gone: ChangeRequestGone, result?: PushResult) {
    this.wroteFolder()
    if ((await settleChangeRequest(this.o, gone)) && result) result.settled = gone
  }

  /* Explicit actions (CLI, app) */

  /** Merges the writer's open change request through the outbox, then takes the merge in. */
  async merge(changeRequestId: string): Promise<{ result: 'merge' | 'conflicts' | 'pending'; revision?: string }> {
    const { outbox, spaceId } = this.o
    const session = outbox.ensureSession(spaceId, this.o.userId)
    // The same merge asked twice is one op; asked again after the service did not merge, a retry.
    const { seq } = enqueueAction({ spaceId, generation: session.generation, kind: 'merge', payload: { changeRequestId } }, { outbox, userId: this.o.userId })
    const drained = await this.sender.drain(spaceId)
    const op = outbox.op(seq)
    if (!op || op.state !== 'done') {
      if (op?.state === 'failed') throw new Error(op.lastError ?? 'the merge was refused')
      if (drained.stopped) return { result: 'pending' }
      throw new Error('the merge was not sent')
    }
    const answer = op.result as { result: 'merge' | 'conflicts'; revision?: string }
    if (answer.result === 'merge' && session.changeRequestId === changeRequestId) await this.settle({ id: changeRequestId, status: 'merged' })
    return answer
  }

  /** The writer's change request for this space, as last seen. */
  openChangeRequest(): { id: string; number?: number } | undefined {
    const session = this.o.outbox.session(this.o.spaceId)
    return session?.changeRequestId ? { id: session.changeRequestId, number: session.number } : undefined
  }

  /** Sends whatever the outbox holds, without planning. */
  async flush(): Promise<DrainResult> {
    return this.sender.drain(this.o.spaceId)
  }
}

/** A plan that changes nothing, sent nothing and waits for nothing: planned again on the same inputs, it would be the same. */
function nothingToDo(plan: PushPlan, result: PushResult): boolean {
  const empty = [plan.changes, plan.bookkeeping, plan.markers, plan.conflicts, plan.rewrites, plan.orphans, plan.relocations].every((list) => list.length === 0)
  return empty && result.planned === 0 && result.sent === 0 && result.failures.length === 0 && !result.stopped && plan.replanAt === undefined && (plan.waitingDeletions?.size ?? 0) === 0 && plan.summaryEdit === undefined
}

/**
 * The stamp of this plan's conflicted copies: the time, with a number added when a copy the outbox still
 * knows has that stamp (a second conflict of a page within the same second would otherwise be given the
 * first one's name, and the writer's second version would be lost behind it).
 */
function freeStamp(stamp: string, copies: readonly string[]): string {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? stamp : `${stamp} ${n}`
    if (!copies.some((c) => c.includes(`(conflicted copy ${candidate})`))) return candidate
  }
}

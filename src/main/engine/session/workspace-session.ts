import { sep } from 'node:path'
import { deriveSpaceState, sameState, type SpaceSyncState } from '../../../shared/space-state'
import type { AccountRow, CacheRepository } from '../cache/cache-repository'
import type { CommentsRepository } from '../comments/comments-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { enqueueAction } from '../outbox/action-keys'
import type { OutboxRepository } from '../outbox/outbox-repository'
import type { NewOutboxOp, PayloadOf } from '../outbox/outbox-types'
import { workspaceHold } from '../push/hold'
import type { PushResult, SpacePusher } from '../push/space-pusher'
import { SyncEngine, type PassReport, type SyncProgressEvent } from '../sync/sync-engine'
import type { WatchedSpace } from '../watch/watcher'
import type { PreflightFinding } from '../links/preflight'
import { LinkPreflights } from './link-preflights'
import { SessionWatch } from './session-watch'
import { SpaceActivity } from './space-activity'
import { describeHolder, waitFor, type LeaseHolder, type LeaseKind, type WorkspaceLease } from '../cache/workspace-lease'
import { authErrorKey, storedSpaceFacts, unreachableKey } from './space-facts'
import { ActionRefusedError, authMessage, isAuthError, type ActionOutcome } from './session-outcomes'
import { LaterPushes } from './later-pushes'
import { SearchKeeper, searchedSpaces } from '../search/search-keeper'
import type { SearchAnswer, SearchOptions } from '../search/workspace-search'
import { SpacePushers } from './space-pushers'

export { ActionRefusedError, type ActionOutcome } from './session-outcomes'

export interface WorkspaceSessionOptions {
  cache: CacheRepository
  outbox: OutboxRepository
  comments: CommentsRepository
  account: AccountRow
  gateway: ApiGateway
  /** Root of the space folders, read at every pass (the app's setting may change). */
  workspace: () => string
  /** Local edits go up to change requests (sync up); on unless false. */
  syncUp?: boolean
  /** Watch the space folders (@parcel/watcher) and push a space as its files are saved; on unless false. */
  watch?: boolean
  debounceMs?: number
  renameWindowMs?: number
  /** How long a page file must stay missing before its deletion is sent (SpacePusherOptions.deletionQuietMs). */
  deletionQuietMs?: number
  usePolling?: boolean
  /** Time between cycles run by the timer; no timer when undefined. */
  intervalMs?: () => number | undefined
  /** Timer, watcher and resume cycles wait while this says so; `syncNow` does not. */
  paused?: () => boolean
  allowMassDelete?: boolean
  refreshLinks?: boolean
  now?: () => Date
  onEvent?: (event: SessionEvent) => void
  /** Every step of a pass, for a progress display (`quire sync`). */
  onProgress?: (event: SyncProgressEvent) => void
  /**
   * The cross-process lease on the workspace: only its holder syncs and sends (the outbox must be built
   * with the lease's claim). Without it the session assumes it is alone (tests, a single process).
   */
  lease?: { lease: WorkspaceLease; kind: LeaseKind; ttlMs?: number }
}

export type SessionEvent =
  /** A space's state changed (Syncthing-style: from and to). */
  | { type: 'state'; spaceId: string; from?: SpaceSyncState; to: SpaceSyncState }
  | { type: 'pass'; report: PassReport }
  | { type: 'push'; spaceId: string; result: PushResult }
  | { type: 'log'; level: 'info' | 'warning' | 'error'; message: string; spaceId?: string }
  /** The watcher saw files of a space folder settle after a save (paths relative, forward slashes): a preview follows them. */
  | { type: 'files'; spaceId: string; paths: string[] }

/**
 * One workspace of one signed-in account, the engine every front end drives: the app's backend,
 * `quire serve`, `quire watch` and `quire sync` are thin adapters over it. All work runs one piece at a
 * time on one queue (single flight), so a push never plans while a pass writes the same folder; a cycle
 * is push, pass, push (the pass may settle merges or free held pages); the watcher pushes a space about
 * a second after a save. Every action that changes the service goes through the durable outbox, so it
 * works offline and goes out exactly once when the service is back. Each space has one state, derived
 * from what the engine knows and emitted as an event whenever it changes.
 */
export class WorkspaceSession {
  private queue: Promise<void> = Promise.resolve()
  /** A cycle queued and not started yet: later requests join it rather than queue another. */
  private queuedCycle: Promise<void> | undefined
  private readonly queuedPushes = new Map<string, Promise<void>>()
  /** Spaces whose queued push was asked for by something other than the watcher's report: it walks the folder. */
  private readonly walkNext = new Set<string>()
  private readonly pushers: SpacePushers
  private readonly lastPush = new Map<string, PushResult>()
  /** The link pre-flight of each space folder, kept while the watcher sees none of its files change. */
  private readonly preflights: LinkPreflights
  private readonly running = new SpaceActivity()
  private readonly states = new Map<string, SpaceSyncState>()
  private authError: string | undefined
  private readonly watch: SessionWatch
  /** Whether the cycle queued next was asked for by the timer alone (see `cycle`). */
  private nextCycleByTimer = true
  private timer?: NodeJS.Timeout
  /** Pushes planned for later: a removal waits for the quiet interval, then its space is pushed again. */
  private readonly later: LaterPushes
  private stopped = false
  /** Another process holds the workspace: this session reads and queues, the holder syncs and sends. */
  private heldBy: LeaseHolder | undefined
  private readonly waiting = new AbortController()
  private readonly observers = new Set<(event: SessionEvent) => void>()
  private readonly unobserveReach: () => void
  /** The full-text index of the space folders: fed by the watcher, brought to the folders by each query. */
  private readonly searching: SearchKeeper

  readonly account: AccountRow
  readonly gateway: ApiGateway

  constructor(private readonly o: WorkspaceSessionOptions) {
    this.account = o.account
    this.gateway = o.gateway
    this.authError = o.cache.setting(authErrorKey(o.account.id)) || undefined
    this.pushers = new SpacePushers(o)
    this.later = new LaterPushes(() => (o.now?.() ?? new Date()).getTime())
    this.searching = new SearchKeeper(o.cache)
    const warn = (message: string) => this.emit({ type: 'log', level: 'warning', message })
    this.preflights = new LinkPreflights(warn)
    this.watch = new SessionWatch({
      debounceMs: o.debounceMs,
      renameWindowMs: o.renameWindowMs,
      usePolling: o.usePolling,
      pusher: (spaceId) => this.pusher(spaceId),
      running: () => !this.stopped,
      changed: (space, paths, whole) => this.filesChanged(space, paths, whole),
      warn,
    })
    // One fact for the whole session: any request finding the service away makes every space offline at
    // once (a push waiting out its retries included); the next answer gives each its own state back.
    this.unobserveReach = o.gateway.reachability.observe((reason) => {
      // Kept in the cache by the process that syncs, so `quire status` says offline too.
      if (!this.heldBy) o.cache.setSetting(unreachableKey(o.account.id), reason ?? '')
      this.refreshStates()
    })
  }

  /** Another listener beside the front end's `onEvent` (a test reading push results, a diagnostics view). */
  observe(listener: (event: SessionEvent) => void): () => void {
    this.observers.add(listener)
    return () => this.observers.delete(listener)
  }

  /**
   * Takes the workspace's lease; answers who holds it when another live process does (then nothing is
   * started: a CLI says so and exits, the app attaches with `start`, which waits for the lease).
   */
  claimWorkspace(): LeaseHolder | undefined {
    const lease = this.o.lease
    if (!lease || lease.lease.held) return undefined
    const result = lease.lease.acquire({ kind: lease.kind, ttlMs: lease.ttlMs, onLost: (by) => void this.lost(by) })
    this.heldBy = result.acquired ? undefined : result.holder
    return this.heldBy
  }

  /** Who else holds the workspace while this session only reads (undefined when it syncs). */
  get attachedTo(): LeaseHolder | undefined {
    return this.heldBy
  }

  /**
   * Runs the first cycle (unless paused), then keeps the timer and the watcher going. When another
   * process holds the workspace, the session attaches read-only and takes over when that process ends.
   */
  async start(options: { firstCycle?: boolean } = {}): Promise<void> {
    if (this.claimWorkspace()) {
      this.emit({ type: 'log', level: 'warning', message: `This workspace is synced by ${describeHolder(this.heldBy!)}; this one shows its work and takes over when it ends` })
      void this.waitForLease()
      return
    }
    if (options.firstCycle !== false && !this.paused()) await this.requestCycle()
    else await this.run(() => this.rewatch())
    this.schedule()
  }

  async stop(): Promise<void> {
    this.stopped = true
    this.unobserveReach()
    this.waiting.abort()
    clearTimeout(this.timer)
    this.later.cancelAll()
    await this.watch.close(this.spaces())
    await this.queue
    this.o.lease?.lease.release()
  }

  private async waitForLease() {
    const lease = this.o.lease
    if (!lease) return
    try {
      await waitFor(lease.lease, { kind: lease.kind, ttlMs: lease.ttlMs, onLost: (by) => void this.lost(by), signal: this.waiting.signal, pollMs: 1000 })
    } catch {
      return // stopped
    }
    this.heldBy = undefined
    this.emit({ type: 'log', level: 'info', message: 'This process now syncs the workspace' })
    await this.start()
  }

  /** Another process took the workspace over: stop syncing and sending, and wait to take it back. */
  private async lost(by: LeaseHolder | undefined) {
    if (this.stopped) return
    this.heldBy = by
    clearTimeout(this.timer)
    this.later.cancelAll()
    await this.watch.close(this.spaces())
    this.emit({ type: 'log', level: 'warning', message: `The workspace was taken over${by ? ` by ${describeHolder(by)}` : ''}; this one stops syncing until it ends` })
    void this.waitForLease()
  }

  /** Resolves once nothing is queued or running. */
  async idle(): Promise<void> {
    let seen: Promise<void> | undefined
    while (seen !== this.queue) {
      seen = this.queue
      await seen
    }
  }

  /**
   * Resolves once no push waits for later (removals held for the quiet interval were planned), and what
   * that started ran: `quire watch --once` ends with its deletions sent, not left for another run.
   */
  async settled(): Promise<void> {
    await this.idle()
    while (this.later.size > 0 && !this.stopped && !this.heldBy) {
      await this.later.next()
      await this.idle()
    }
  }

  /** A full cycle now, paused or not (Sync now). */
  syncNow(): Promise<void> {
    return this.requestCycle()
  }

  /** A cycle unless paused (after resume, a new selection, a merge). */
  requestCycle(options: { evenIfPaused?: boolean; timer?: boolean } = { evenIfPaused: true }): Promise<void> {
    if (this.stopped) return Promise.resolve()
    if (!options.evenIfPaused && this.paused()) return Promise.resolve()
    // Only the timer's own cycle may stand on what nothing changed since (a request joining it plans).
    if (!options.timer) this.nextCycleByTimer = false
    if (this.queuedCycle) return this.queuedCycle
    const cycle = this.run(async () => {
      this.queuedCycle = undefined
      const byTimer = this.nextCycleByTimer
      this.nextCycleByTimer = true
      await this.cycle(byTimer)
    })
    this.queuedCycle = cycle
    return cycle
  }

  /** One sync-down pass only (`quire sync`); undefined when it did not run (stopped, attached) or failed (logged as an event). */
  pass(): Promise<PassReport | undefined> {
    let report: PassReport | undefined
    return this.run(async () => {
      report = await this.passNow()
    }).then(() => report)
  }

  /**
   * Pushes one space (after the work already queued); one queued push per space at a time. `watched`:
   * asked for by the watcher's report alone, so its scan may look at the reported paths only (SpacePusher.push).
   */
  push(spaceId: string, options: { watched?: boolean } = {}): Promise<void> {
    if (!options.watched) this.walkNext.add(spaceId)
    const queued = this.queuedPushes.get(spaceId)
    if (queued) return queued
    const push = this.run(async () => {
      this.queuedPushes.delete(spaceId)
      const walk = this.walkNext.delete(spaceId)
      await this.pushSpace(spaceId, false, !walk)
    })
    this.queuedPushes.set(spaceId, push)
    return push
  }

  /** The timer's interval changed (a setting): the next cycle is scheduled anew. */
  reschedule() {
    this.schedule()
  }

  /* Actions: every one through the outbox, sent now when the service answers, later when not. */

  comment(spaceId: string, payload: Omit<PayloadOf['comment'], 'userId'>): Promise<ActionOutcome> {
    return this.act(spaceId, 'comment', { ...payload, userId: this.o.account.userId })
  }

  reply(spaceId: string, payload: Omit<PayloadOf['reply'], 'userId'>): Promise<ActionOutcome> {
    return this.act(spaceId, 'reply', { ...payload, userId: this.o.account.userId })
  }

  resolve(spaceId: string, payload: PayloadOf['resolve']): Promise<ActionOutcome> {
    return this.act(spaceId, 'resolve', payload)
  }

  updateFromMain(spaceId: string, changeRequestId: string): Promise<ActionOutcome> {
    return this.act(spaceId, 'update-from-main', { changeRequestId })
  }

  /** Merges a change request; the merged content is brought down by a cycle right after. */
  async merge(spaceId: string, changeRequestId: string): Promise<ActionOutcome> {
    const outcome = await this.act(spaceId, 'merge', { changeRequestId })
    if (outcome.sent) void this.requestCycle({ evenIfPaused: false })
    return outcome
  }

  /** Writes an op to the outbox, then sends the space's outbox on the session's queue (the actions above, review-session.ts). */
  async act<K extends NewOutboxOp['kind']>(spaceId: string, kind: K, payload: PayloadOf[K]): Promise<ActionOutcome> {
    const { outbox } = this.o
    const session = outbox.ensureSession(spaceId, this.o.account.userId)
    // Keyed by what it is: the same action asked again (twice pressed, retried after a failure) is the same op.
    const { seq, repeat } = enqueueAction({ spaceId, generation: session.generation, kind, payload } as Omit<NewOutboxOp, 'key'>, { outbox, comments: this.o.comments, userId: this.o.account.userId })
    await this.run(async () => {
      const pusher = this.pusher(spaceId)
      const drained = pusher ? await pusher.flush() : undefined
      if (drained?.stopped) this.lastPush.set(spaceId, { planned: 0, sent: drained.sent, conflicts: [], reports: [], failures: [], stopped: drained.stopped })
      this.noteAuth(drained?.stopped?.reason === 'signed-out' ? drained.stopped.message : undefined)
    })
    const op = outbox.op(seq)!
    this.refreshState(spaceId)
    if (op.state === 'failed') throw new ActionRefusedError(op)
    const again = repeat ? { repeat } : {}
    return op.state === 'done' ? { op, sent: true, ...again } : { op, sent: false, waiting: this.lastPush.get(spaceId)?.stopped?.message ?? 'waiting to be sent', ...again }
  }

  /* States */

  /** The state of a space now (derived from the cache, the outbox and what runs). */
  state(spaceId: string): SpaceSyncState {
    return deriveSpaceState(
      storedSpaceFacts(this.o.cache, this.o.outbox, spaceId, {
        paused: this.paused(),
        pushesEdits: this.o.syncUp !== false,
        accountId: this.o.account.id,
        running: this.running.of(spaceId),
        pushStopped: this.lastPush.get(spaceId)?.stopped,
        unreachable: this.o.gateway.reachability.unreachable,
      }),
    )
  }

  /** Re-derives the state of every selected space, emitting the changes. */
  refreshStates() {
    for (const space of this.o.cache.selectedSpaces()) this.refreshState(space.id)
  }

  /** The service refused the token (or accepts it again). */
  get signedOutReason(): string | undefined {
    return this.authError
  }

  private refreshState(spaceId: string) {
    const to = this.state(spaceId)
    const from = this.states.get(spaceId)
    if (sameState(from, to)) return
    this.states.set(spaceId, to)
    this.emit({ type: 'state', spaceId, from, to })
  }

  private noteAuth(reason: string | undefined) {
    if (reason === this.authError) return
    this.authError = reason
    // Kept in the cache, so `quire status` and the next start say signed out too.
    this.o.cache.setSetting(authErrorKey(this.o.account.id), reason ?? '')
    this.refreshStates()
  }

  /* The cycle */

  private paused(): boolean {
    return this.o.paused?.() ?? false
  }

  private run(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(async () => {
      // Only the holder of the workspace syncs; an attached session leaves the work to it.
      if (this.stopped || this.heldBy) return
      try {
        await work()
      } catch (error) {
        if (isAuthError(error)) this.noteAuth(authMessage(error))
        else this.emit({ type: 'log', level: 'error', message: error instanceof Error ? error.message : String(error) })
      }
    })
    this.queue = next
    return next
  }

  private schedule() {
    clearTimeout(this.timer)
    const interval = this.o.intervalMs?.()
    if (this.stopped || interval === undefined) return
    this.timer = setTimeout(() => {
      void this.requestCycle({ evenIfPaused: false, timer: true }).then(() => this.schedule())
    }, interval)
    this.timer.unref?.()
  }

  /** Push everything, pull everything, push again (the pull may have settled merges or freed held pages). */
  /**
   * `byTimer`: the timer's cycle, with nothing asked of it. A push the watcher saw no change for since a
   * plan that found nothing to do is not planned again then, and the hold is the one kept: an idle
   * cycle of a large space reads nothing of its folder (SpacePusher.push's `reuse`). One that plans (its
   * last plan sent a save) looks at the paths the watcher reported alone, as the watcher's own push does
   * (`watched`): it trusts the watcher no more than standing on the last plan does.
   */
  private async cycle(byTimer = false) {
    const syncUp = this.o.syncUp !== false
    if (syncUp) for (const space of this.spaces()) await this.pushSpace(space.spaceId, byTimer)
    await this.passNow(byTimer)
    await this.rewatch()
    if (syncUp) for (const space of this.spaces()) await this.pushSpace(space.spaceId, byTimer)
  }

  private async passNow(byTimer = false): Promise<PassReport> {
    const engine = new SyncEngine({
      cache: this.o.cache,
      account: this.o.account,
      gateway: this.o.gateway,
      workspace: this.o.workspace(),
      allowMassDelete: this.o.allowMassDelete,
      refreshLinks: this.o.refreshLinks,
      hold: this.holdOf(byTimer),
      // Stopping (or another process taking the workspace over) waits for the spaces running, not the rest.
      shouldStop: () => this.stopped || this.heldBy !== undefined,
      onProgress: (event) => {
        this.o.onProgress?.(event)
        if (this.running.progress(event)) this.refreshState(event.spaceId)
      },
    })
    let report: PassReport
    try {
      report = await engine.pass()
    } finally {
      this.running.clear()
    }
    this.preflights.forget()
    // The service answered this pass with the token: a refusal noted before is over.
    if (report.spaces.some((space) => space.state !== 'offline' && space.state !== 'error')) this.noteAuth(undefined)
    this.emit({ type: 'pass', report })
    this.refreshStates()
    return report
  }

  /** The hold of each space for a pass: on the timer's cycle, its pusher's as kept while nothing changed (SpacePusher.hold). */
  private holdOf(byTimer: boolean): (spaceId: string) => Set<string> {
    const fresh = workspaceHold(this.o.cache, this.o.outbox, this.o.workspace())
    return (spaceId) => this.pusher(spaceId)?.hold({ reuse: byTimer }) ?? fresh(spaceId)
  }

  private async pushSpace(spaceId: string, byTimer = false, watched = byTimer) {
    const pusher = this.pusher(spaceId)
    if (!pusher) return
    this.running.begin(spaceId)
    this.refreshState(spaceId)
    try {
      let result = await pusher.push({ reuse: byTimer, watched })
      this.pushed(spaceId, result)
      if (result.settled) {
        // Main now holds the merge: bring it down before the next plan.
        await this.passNow()
        result = await pusher.push()
        this.pushed(spaceId, result)
      }
    } finally {
      this.running.end(spaceId)
      this.refreshState(spaceId)
    }
  }

  private pushed(spaceId: string, result: PushResult) {
    this.lastPush.set(spaceId, result)
    this.preflights.forget(spaceId)
    // A push that planned (result.waitingDeletions is set) says whether a removal waits; one that only sent keeps what was planned.
    if (result.waitingDeletions !== undefined && !this.stopped) this.later.schedule(spaceId, result.replanAt, () => (this.paused() ? Promise.resolve() : this.push(spaceId)))
    this.noteAuth(result.stopped?.reason === 'signed-out' ? result.stopped.message : undefined)
    this.emit({ type: 'push', spaceId, result })
  }

  /**
   * The link pre-flight of a space's folder as it is now: the broken links of the writer's files, each
   * with file and line, that the service's report of the revision cannot show yet. Kept until the
   * watcher, a pass or a push says the folder changed; read afresh each time when nothing watches.
   */
  linkPreflight(spaceId: string): PreflightFinding[] {
    const folder = this.spaces().find((s) => s.spaceId === spaceId)?.folder
    return folder ? this.preflights.of(spaceId, folder, this.watch.watching) : []
  }

  /**
   * Full-text search over the synced spaces' folders (engine/search), with the service's search beside
   * it unless the service is known to be away (then the answer says it was not asked).
   */
  search(query: string, options: SearchOptions & { spaceId?: string } = {}): Promise<SearchAnswer> {
    const unreachable = this.o.gateway.reachability.unreachable
    const skipRemote = options.skipRemote ?? (unreachable !== undefined ? `offline (${unreachable})` : undefined)
    return this.searching.search(this.o.gateway, searchedSpaces(this.o.cache, this.o.workspace(), options.spaceId), query, { ...options, skipRemote })
  }

  /** The spaces being synced that have a folder (the sync-down engine names it on the first pass). */
  spaces(): WatchedSpace[] {
    return this.pushers.spaces()
  }

  private pusher(spaceId: string): SpacePusher | undefined {
    return this.pushers.of(spaceId)
  }

  /** (Re)starts the watcher when the set of space folders changed (a first pass gives new spaces folders). */
  private async rewatch() {
    if (this.stopped || this.o.watch === false || this.o.syncUp === false) return
    await this.watch.watch(this.spaces())
  }

  /** The watcher's burst: the space's files at `paths` settled after a save. */
  private filesChanged(space: WatchedSpace, paths: string[], whole: boolean) {
    const { spaceId } = space
    this.preflights.forget(spaceId)
    this.emit({ type: 'files', spaceId, paths: paths.map((p) => p.split(sep).join('/')) })
    // Noted though paused: the push after the pause must plan it.
    this.pusher(spaceId)?.noteLocalChange(paths, whole)
    if (!this.paused()) void this.push(spaceId, { watched: true })
    // Indexed once the push is on its way (its first request out): the index write is not in a save's
    // time to its change request, and a query brings the index to the folder first anyway.
    setImmediate(() => this.searching.changed(space, paths))
  }

  private emit(event: SessionEvent) {
    for (const listener of [this.o.onEvent, ...this.observers]) {
      try {
        listener?.(event)
      } catch {
        // A listener's failure is not the engine's.
      }
    }
  }
}

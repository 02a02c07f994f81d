import path from 'node:path'
import type { CacheRepository } from '../cache/cache-repository'
import type { CommentsRepository } from '../comments/comments-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { SpacePusher, type PushResult } from '../push/space-pusher'
import { WorkspaceWatcher, type WatchedSpace } from './watcher'

export interface WatchLoopOptions {
  cache: CacheRepository
  outbox: OutboxRepository
  comments: CommentsRepository
  gateway: ApiGateway
  userId: string
  /** `<workspace>/<organization folder>/<space folder>`. */
  workspace: string
  /** One sync-down pass over the selected spaces (the sync-down engine's, holding what sync up moves). */
  pass: () => Promise<void>
  /** Between sync-down passes. */
  intervalMs?: number
  debounceMs?: number
  renameWindowMs?: number
  usePolling?: boolean
  log?: (line: string) => void
  /** Every push's outcome (the CLI prints it; the benchmark times it). */
  onPush?: (spaceId: string, result: PushResult) => void
}

/**
 * `quire watch`: sync down on an interval, sync up as edits happen. All work runs one piece at a time
 * on one queue, so a push never plans while a pass is writing the same folder, and a push after a merge
 * is always preceded by the pass that brings the merged revision. Edits made while offline stay in the
 * outbox and the files; the next push sends them.
 */
export class WatchLoop {
  private queue: Promise<void> = Promise.resolve()
  private readonly queued = new Set<string>()
  private readonly pushers = new Map<string, SpacePusher>()
  private watcher?: WorkspaceWatcher
  private watchedKey = ''
  private timer?: NodeJS.Timeout
  private stopped = false
  private readonly reportedConflicts = new Set<string>()

  constructor(private readonly o: WatchLoopOptions) {}

  /** Sends what waits, syncs down, pushes edits made while Quire was not running; then watches. */
  async start(): Promise<void> {
    await this.run(() => this.cycle())
    this.schedule()
  }

  async stop(): Promise<void> {
    this.stopped = true
    if (this.timer) clearTimeout(this.timer)
    await this.watcher?.close()
    this.watcher = undefined
    await this.queue
  }

  /** The spaces being watched (those the sync-down engine has given a folder). */
  spaces(): WatchedSpace[] {
    return this.o.cache.selectedSpaces().flatMap((space) => {
      const org = this.o.cache.organization(space.orgId)
      if (!org?.folder || !space.folder) return []
      return [{ spaceId: space.id, folder: path.join(this.o.workspace, org.folder, space.folder) }]
    })
  }

  /** A full cycle now (push, pass, push), after the work already queued: "sync now". */
  syncNow(): Promise<void> {
    return this.run(() => this.cycle())
  }

  /** Pushes one space now (after the work already queued). */
  push(spaceId: string): Promise<void> {
    if (this.queued.has(spaceId)) return this.queue
    this.queued.add(spaceId)
    return this.run(async () => {
      this.queued.delete(spaceId)
      await this.pushSpace(spaceId)
    })
  }

  private run(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(async () => {
      if (this.stopped) return
      try {
        await work()
      } catch (error) {
        this.o.log?.(`error: ${error instanceof Error ? error.message : String(error)}`)
      }
    })
    this.queue = next
    return next
  }

  private schedule() {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.timer = undefined
      void this.run(() => this.cycle()).then(() => this.schedule())
    }, this.o.intervalMs ?? 60_000)
  }

  /** Push everything, pull everything, push again (the pull may have settled merges or freed held pages). */
  private async cycle() {
    for (const space of this.spaces()) await this.pushSpace(space.spaceId)
    await this.o.pass()
    await this.rewatch()
    for (const space of this.spaces()) await this.pushSpace(space.spaceId)
  }

  private async pushSpace(spaceId: string) {
    const pusher = this.pusher(spaceId)
    if (!pusher) return
    let result = await pusher.push()
    this.report(spaceId, result)
    if (result.settled) {
      await this.o.pass()
      result = await pusher.push()
      this.report(spaceId, result)
    }
  }

  private pusher(spaceId: string): SpacePusher | undefined {
    const space = this.spaces().find((s) => s.spaceId === spaceId)
    if (!space) return undefined
    let pusher = this.pushers.get(spaceId)
    if (!pusher) {
      pusher = new SpacePusher({
        gateway: this.o.gateway,
        cache: this.o.cache,
        outbox: this.o.outbox,
        comments: this.o.comments,
        spaceId,
        folder: space.folder,
        userId: this.o.userId,
      })
      this.pushers.set(spaceId, pusher)
    }
    return pusher
  }

  /** (Re)starts chokidar when the set of space folders changed (a first pass gives new spaces folders). */
  private async rewatch() {
    if (this.stopped) return
    const spaces = this.spaces()
    const key = spaces.map((s) => `${s.spaceId}=${s.folder}`).join('\n')
    if (key === this.watchedKey && this.watcher) return
    await this.watcher?.close()
    this.watchedKey = key
    if (spaces.length === 0) {
      this.watcher = undefined
      return
    }
    this.watcher = new WorkspaceWatcher({
      spaces,
      debounceMs: this.o.debounceMs,
      renameWindowMs: this.o.renameWindowMs,
      usePolling: this.o.usePolling,
      onChange: (spaceId) => void this.push(spaceId),
      onError: (error) => this.o.log?.(`watcher: ${error instanceof Error ? error.message : String(error)}`),
    })
    await this.watcher.start()
  }

  private report(spaceId: string, result: PushResult) {
    this.o.onPush?.(spaceId, result)
    const log = this.o.log
    if (!log) return
    const name = this.o.cache.space(spaceId)?.title ?? spaceId
    const cr = result.changeRequest?.number !== undefined ? ` (change request #${result.changeRequest.number})` : ''
    if (result.planned > 0) log(`${name}: ${result.planned} change${result.planned === 1 ? '' : 's'} queued${cr}`)
    if (result.settled) log(`${name}: change request ${result.settled.status}; the workspace follows the space again`)
    for (const copy of result.conflicts) {
      if (this.reportedConflicts.has(`${spaceId}/${copy}`)) continue
      this.reportedConflicts.add(`${spaceId}/${copy}`)
      log(`${name}: conflict: ${copy} keeps your version; the file shows the remote one`)
    }
    for (const report of result.reports) log(`${name}: ${report.message}`)
    for (const failure of result.failures) log(`${name}: refused: ${failure}`)
    if (result.stopped) log(`${name}: ${result.stopped.reason}: ${this.o.outbox.unfinished(spaceId).length} operation(s) wait in the outbox`)
    if (result.skipped) log(`${name}: ${result.skipped}`)
  }
}

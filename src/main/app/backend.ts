import fs from 'node:fs'
import path from 'node:path'
import type {
  ActivityEntry,
  BrokenLink,
  ChangeRequestSummary,
  CommentThread,
  OrganizationNode,
  PageSummary,
  QuireBridge,
  QuireEvent,
  SelectionTarget,
  SessionInfo,
  Settings,
  SpaceNode,
  StatusSnapshot,
} from '../../shared/contract'
import type Database from 'better-sqlite3'
import { CacheRepository, type SpaceRow } from '../engine/cache/cache-repository'
import { openCacheDatabase } from '../engine/cache/open-cache'
import { CommentsRepository } from '../engine/comments/comments-repository'
import { OutboxRepository } from '../engine/outbox/outbox-repository'
import { WorkspaceLease } from '../engine/cache/workspace-lease'
import { WorkspaceSession, type SessionEvent } from '../engine/session/workspace-session'
import { spaceFolderPath, SyncEngine } from '../engine/sync/sync-engine'
import type { LocalService } from '../service/local-service'
import { Accounts, sessionInfo, type SignedIn } from './accounts'
import { ActivityLog } from './activity-log'
import { ChangeRequests } from './change-requests'
import { systemDesktopActions, type DesktopActions } from './desktop-actions'
import { AppError, fromApiError } from './errors'
import { LocalFiles } from './local-files'
import { appPaths, type AppPaths } from './paths'
import { ReviewActions } from './review-actions'
import { sessionActivity } from './session-activity'
import { SettingsStore } from './settings-store'
import { applySelection, spaceTree } from './space-tree'
import { overallState, spaceNode } from './status'
import { defaultTokenVault, type TokenVault } from './token-vault'

export interface BackendOptions {
  /** Per-user data folder (cache, demo service, logs); env-paths' when absent. */
  dataDir?: string
  /** better-sqlite3 addon for the host runtime (the Electron app in development); see openDatabase. */
  nativeBinding?: string
  vault?: TokenVault
  desktop?: DesktopActions
  /** Starts the embedded demo service; tests may replace it to pin options. */
  startDemoService?: (options: { dataDir: string; token?: string }) => Promise<LocalService>
  /** Push local edits to change requests (the sync-up engine); on unless false. */
  syncUp?: boolean
  /** Cycles on a timer and a first one at start (off in tests that drive them). */
  autoSync?: boolean
  /** Watch the space folders and push edits as they are saved; on unless false. */
  watch?: boolean
  debounceMs?: number
  now?: () => Date
  /** Gateway tuning, e.g. shorter timeouts in tests. */
  gateway?: { timeoutMs?: number; maxAttempts?: number }
  /** How this process names itself to another that finds the workspace taken (`quire serve` says serve). */
  leaseKind?: 'app' | 'serve'
}

interface Live extends SignedIn {
  engine: WorkspaceSession
  review: ReviewActions
}

const STATUS_THROTTLE_MS = 100

/**
 * The app's backend: the contract (QuireBridge) over one WorkspaceSession, the same engine `quire
 * watch` runs. Both the Electron main process and `quire serve` run exactly this class; it decides
 * nothing about syncing itself.
 */
export class QuireBackend implements QuireBridge {
  private readonly listeners = new Set<(event: QuireEvent) => void>()
  private readonly settings: SettingsStore
  private readonly activity: ActivityLog
  private readonly files: LocalFiles
  private readonly cache: CacheRepository
  private readonly outbox: OutboxRepository
  private readonly comments: CommentsRepository
  private readonly accounts: Accounts
  private readonly lease: WorkspaceLease
  private live: Live | undefined
  private statusTimer: NodeJS.Timeout | undefined
  private closed = false

  private constructor(
    private readonly paths: AppPaths,
    db: Database.Database,
    private readonly options: BackendOptions,
    vault: TokenVault,
  ) {
    this.cache = new CacheRepository(db, () => (options.now?.() ?? new Date()).toISOString())
    this.lease = new WorkspaceLease(db)
    // Ops are claimed (and sent) only while this process holds the workspace: never by two at once.
    this.outbox = new OutboxRepository(db, undefined, this.lease.outboxClaim())
    this.comments = new CommentsRepository(db)
    this.settings = new SettingsStore(this.cache, paths.defaultWorkspace)
    this.activity = new ActivityLog(paths.logFile, options.now)
    this.files = new LocalFiles(this.cache, () => this.settings.get().workspace, options.desktop ?? systemDesktopActions())
    this.accounts = new Accounts({ cache: this.cache, paths, vault, fixedVault: options.vault, nativeBinding: options.nativeBinding, startDemoService: options.startDemoService, gateway: options.gateway })
  }

  static async open(options: BackendOptions = {}): Promise<QuireBackend> {
    const paths = appPaths(options.dataDir)
    const db = openCacheDatabase(paths.cacheFile, { nativeBinding: options.nativeBinding })
    const backend = new QuireBackend(paths, db, options, options.vault ?? (await defaultTokenVault(paths.tokenFolder)))
    try {
      const restored = await backend.accounts.restore()
      if (restored && 'missingToken' in restored) backend.log('warning', `The token for ${restored.missingToken.displayName} is gone from the ${restored.missingToken.tokenStore} store: sign in again`)
      else if (restored) await backend.begin(restored, { announce: false })
    } catch (error) {
      // A keychain that cannot be read or a demo service that cannot start must not keep the app from opening.
      backend.log('warning', `The last session could not be resumed: ${error instanceof Error ? error.message : String(error)}; sign in again`)
    }
    return backend
  }

  /** Where the data lives, for logs and the README. */
  get dataPaths(): AppPaths {
    return this.paths
  }

  onEvent(listener: (event: QuireEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  /** Resolves once nothing is queued or running (tests, shutdown). */
  async idle(): Promise<void> {
    await this.live?.engine.idle()
  }

  /** A cycle now; `force` runs it even while paused (Sync now). */
  requestPass(force: boolean): Promise<void> {
    return this.live ? this.live.engine.requestCycle({ evenIfPaused: force }) : Promise.resolve()
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.statusTimer)
    await this.end()
    this.listeners.clear()
    this.cache.close()
  }

  /* Session */

  async getSession(): Promise<SessionInfo> {
    return sessionInfo(this.live, this.live?.engine.signedOutReason)
  }

  async signIn(input: { endpoint: string; token: string }): Promise<SessionInfo> {
    // The token is checked before anything ends: a refused sign-in keeps the session there was.
    const signedIn = await this.accounts.signIn(input)
    await this.end()
    await this.begin(signedIn)
    return this.getSession()
  }

  async useDemoService(): Promise<SessionInfo> {
    if (this.live?.demo) return this.getSession()
    await this.end()
    await this.begin(await this.accounts.demo())
    return this.getSession()
  }

  async signOut(): Promise<SessionInfo> {
    const live = this.live
    await this.end()
    if (live) {
      await this.accounts.signOut(live)
      this.log('info', `Signed out of ${live.demo ? 'the demo service' : live.account.endpoint}`)
    }
    this.emit({ type: 'session', session: await this.getSession() })
    this.emitStatus()
    return this.getSession()
  }

  private async begin(signedIn: SignedIn, options: { announce?: boolean } = {}) {
    const onActivity = sessionActivity(this.cache, (level, message, spaceId) => this.log(level, message, spaceId))
    const engine = new WorkspaceSession({
      cache: this.cache,
      outbox: this.outbox,
      comments: this.comments,
      account: signedIn.account,
      gateway: signedIn.gateway,
      workspace: () => this.settings.get().workspace,
      syncUp: this.options.syncUp,
      watch: this.options.watch,
      debounceMs: this.options.debounceMs,
      intervalMs: () => (this.options.autoSync === false ? undefined : this.settings.get().intervalSeconds * 1000),
      paused: () => this.settings.get().paused,
      now: this.options.now,
      lease: { lease: this.lease, kind: this.options.leaseKind ?? 'app' },
      onEvent: (event: SessionEvent) => {
        onActivity(event)
        if (event.type === 'state' && event.to.kind === 'signed-out' && event.from?.kind !== 'signed-out') void this.getSession().then((session) => this.emit({ type: 'session', session }))
        this.statusChanged()
      },
    })
    const pageTitle = async (spaceId: string, pageId: string) => this.cache.pageLocation(spaceId, pageId)?.title ?? (await this.listPages({ spaceId })).find((p) => p.id === pageId)?.title
    this.live = { ...signedIn, engine, review: new ReviewActions(engine, this.cache, this.outbox, this.comments, pageTitle) }
    if (options.announce !== false) this.log('info', `Signed in as ${signedIn.account.displayName} to ${signedIn.demo ? 'the demo service' : signedIn.account.endpoint}`)
    this.emit({ type: 'session', session: await this.getSession() })
    await this.refreshTree().catch((error: unknown) => this.log('warning', fromApiError(error, 'Listing spaces').message))
    // Without autoSync (tests), cycles run only when asked: the session watches but starts none itself.
    if (this.options.autoSync === false) await engine.start({ firstCycle: false })
    else void engine.start()
    this.emitStatus()
  }

  private async end() {
    const live = this.live
    if (!live) return
    this.live = undefined
    await live.engine.stop()
    live.gateway.clear()
    await live.demo?.close()
  }

  private require(): Live {
    if (!this.live) throw new AppError('signed-out', 'Sign in first.')
    return this.live
  }

  /* Spaces and selection */

  async listSpaces(): Promise<OrganizationNode[]> {
    const live = this.require()
    try {
      await this.refreshTree()
    } catch (error) {
      // Offline: the cache still knows the tree.
      this.log('warning', fromApiError(error, 'Listing spaces').message)
    }
    return spaceTree(this.cache, live.account.id, (row) => this.spaceNode(row))
  }

  private async refreshTree() {
    const live = this.require()
    await new SyncEngine({ cache: this.cache, account: live.account, gateway: live.gateway, workspace: this.settings.get().workspace }).discover()
  }

  async setSelection(target: SelectionTarget): Promise<OrganizationNode[]> {
    const live = this.require()
    const title = applySelection(this.cache, live.account.id, target)
    if (title === undefined) throw new AppError('not-found', `No ${target.kind} ${target.id} is known for this account.`)
    this.log('info', `${target.selected ? 'Syncing' : 'No longer syncing'} ${target.kind} ${title}`)
    this.emitStatus()
    if (target.selected) void live.engine.requestCycle({ evenIfPaused: false })
    return spaceTree(this.cache, live.account.id, (row) => this.spaceNode(row))
  }

  private spaceNode(row: SpaceRow): SpaceNode {
    const folder = spaceFolderPath(this.cache, this.settings.get().workspace, row)
    return spaceNode(row, this.live?.engine.state(row.id), { pageCount: this.cache.pageCount(row.id), folder: folder && fs.existsSync(folder) ? folder : undefined })
  }

  /* Status and cycles */

  async getStatus(): Promise<StatusSnapshot> {
    return this.snapshot()
  }

  private snapshot(): StatusSnapshot {
    const paused = this.settings.get().paused
    const spaces = this.live ? this.cache.selectedSpaces().map((row) => this.spaceNode(row)) : []
    const conflicts = this.live ? this.outbox.conflicts().filter((c) => c.state === 'open' && spaces.some((s) => s.id === c.spaceId)) : []
    return {
      overall: overallState(this.live !== undefined, spaces),
      paused,
      spaces,
      brokenLinks: this.live ? this.files.brokenLinkCount() : 0,
      conflicts: conflicts.map((c) => ({ spaceId: c.spaceId, path: c.path, copyPath: c.copyPath })),
      updatedAt: (this.options.now?.() ?? new Date()).toISOString(),
    }
  }

  async syncNow(): Promise<void> {
    void this.require().engine.syncNow()
  }

  async setPaused(paused: boolean): Promise<void> {
    this.settings.update({ paused })
    this.log('info', paused ? 'Syncing paused' : 'Syncing resumed')
    this.live?.engine.refreshStates()
    this.emitStatus()
    if (!paused) void this.live?.engine.requestCycle({ evenIfPaused: false })
  }

  /* Change requests */

  async listChangeRequests(filter: { spaceId?: string; mine?: boolean }): Promise<ChangeRequestSummary[]> {
    const live = this.require()
    const rows = filter.spaceId ? [this.cache.space(filter.spaceId)].filter((s): s is SpaceRow => s !== undefined) : this.cache.selectedSpaces()
    if (filter.spaceId && rows.length === 0) throw new AppError('not-found', `No space ${filter.spaceId} is known.`)
    return live.review.listChangeRequests(rows, filter)
  }

  async updateChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary> {
    const { summary, conflicts } = await this.require().review.updateFromMain(input.spaceId, input.changeRequestId)
    if (summary.waiting) this.log('warning', `#${summary.number}: update from main waits to be sent (${summary.waiting})`, input.spaceId)
    else this.log(conflicts ? 'warning' : 'info', conflicts ? `#${summary.number} was updated from main with conflicts to resolve` : `#${summary.number} "${summary.subject}" updated from main`, input.spaceId)
    return summary
  }

  async mergeChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary> {
    const summary = await this.require().review.merge(input.spaceId, input.changeRequestId)
    if (summary.waiting) this.log('warning', `Merging #${summary.number} waits to be sent (${summary.waiting})`, input.spaceId)
    else this.log('info', `Merged #${summary.number} "${summary.subject}" into ${summary.spaceTitle}`, input.spaceId)
    return summary
  }

  async changeRequestPdf(input: { spaceId: string; changeRequestId: string }): Promise<{ url: string }> {
    const live = this.require()
    return { url: await new ChangeRequests(live.gateway, live.account.userId).pdfUrl(input.spaceId, input.changeRequestId) }
  }

  /* Pages and comments */

  async listPages(input: { spaceId: string }): Promise<PageSummary[]> {
    return this.files.listPages(this.require().gateway, input.spaceId)
  }

  async listComments(input: { spaceId: string; pageId?: string }): Promise<CommentThread[]> {
    return this.require().review.listComments(input.spaceId, input.pageId)
  }

  async postComment(input: { spaceId: string; pageId: string; markdown: string }): Promise<CommentThread> {
    const thread = await this.require().review.postComment(input.spaceId, input.pageId, input.markdown)
    this.log(thread.waiting ? 'warning' : 'info', `Commented on ${thread.pageTitle ?? 'a page'}${thread.waiting ? ` (waits to be sent: ${thread.waiting})` : ''}`, input.spaceId)
    return thread
  }

  async replyToComment(input: { spaceId: string; commentId: string; markdown: string }): Promise<CommentThread> {
    const thread = await this.require().review.reply(input.spaceId, input.commentId, input.markdown)
    this.log(thread.waiting ? 'warning' : 'info', `Replied to ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}${thread.waiting ? ` (waits to be sent: ${thread.waiting})` : ''}`, input.spaceId)
    return thread
  }

  async resolveComment(input: { spaceId: string; commentId: string }): Promise<CommentThread> {
    const thread = await this.require().review.resolve(input.spaceId, input.commentId)
    this.log(thread.waiting ? 'warning' : 'info', `Resolved ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}${thread.waiting ? ` (waits to be sent: ${thread.waiting})` : ''}`, input.spaceId)
    return thread
  }

  /* Links and files */

  async listBrokenLinks(): Promise<BrokenLink[]> {
    const live = this.require()
    return this.files.brokenLinks(live.gateway, (message, spaceId) => this.log('warning', message, spaceId))
  }

  async openLocalFile(input: { file: string; line?: number }): Promise<void> {
    await this.files.openLocalFile(input.file, input.line)
  }

  async openExternal(input: { url: string }): Promise<void> {
    await this.files.openExternal(input.url)
  }

  async openWorkspaceFolder(): Promise<void> {
    await this.files.openWorkspaceFolder()
  }

  /* Activity and settings */

  async listActivity(): Promise<ActivityEntry[]> {
    return this.activity.list()
  }

  async getSettings(): Promise<Settings> {
    return this.settings.get()
  }

  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    if (patch.workspace !== undefined && !path.isAbsolute(patch.workspace)) throw new AppError('invalid', 'The workspace folder must be an absolute path.')
    if (patch.intervalSeconds !== undefined && (!Number.isInteger(patch.intervalSeconds) || patch.intervalSeconds < 10)) {
      throw new AppError('invalid', 'The interval must be a whole number of seconds, at least 10.')
    }
    const before = this.settings.get()
    const after = this.settings.update(patch)
    if (after.workspace !== before.workspace) this.log('info', `Workspace folder is now ${after.workspace}; the old folder is left as it was`)
    if (after.intervalSeconds !== before.intervalSeconds) this.live?.engine.reschedule()
    if (after.paused !== before.paused) await this.setPaused(after.paused)
    else this.emitStatus()
    return after
  }

  /* Events */

  private emit(event: QuireEvent) {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // One broken listener (a closed SSE stream) must not stop the others.
      }
    }
  }

  private log(level: ActivityEntry['level'], message: string, spaceId?: string) {
    this.emit({ type: 'activity', entry: this.activity.add(level, message, spaceId) })
  }

  /** Status now (state changes). */
  private emitStatus() {
    clearTimeout(this.statusTimer)
    this.statusTimer = undefined
    if (this.closed) return
    this.emit({ type: 'status', status: this.snapshot() })
  }

  /** Status soon (progress ticks): at most one event per STATUS_THROTTLE_MS. */
  private statusChanged() {
    if (this.statusTimer) return
    this.statusTimer = setTimeout(() => this.emitStatus(), STATUS_THROTTLE_MS)
  }
}

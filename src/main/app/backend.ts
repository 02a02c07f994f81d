import type {
  ActivityEntry, BrokenLink, ChangeRequestChanges, ChangeRequestFilter, ChangeRequestSummary, ChangeRequestUpdate, CommentThread, ConflictComparison, DemoRole, OpenedFile,
  OrganizationNode, PageSummary, QuireApi, QuireBridge, QuireEvent, SearchResults, SelectionTarget, SessionInfo, Settings, StatusSnapshot,
} from '../../shared/contract'
import { healedCacheLine, linkReportsStale, refreshStaleLinkReports, SyncEngine, WorkspaceStore, type CacheRepository, type HealedCache, type OutboxRepository, type WorkspaceSession } from '../engine'
import { openLive, type BackendOptions, type Live } from './app-session'
import type { LocalService } from '../service/local-service'
import { Accounts, demoRoleOf, sessionInfo, type SignedIn } from './accounts'
import { BackendEvents } from './backend-events'
import { Conflicts } from './conflicts'
import { systemDesktopActions } from './desktop-actions'
import { AppError, fromApiError } from './errors'
import { LocalFiles } from './local-files'
import { previewPage } from './page-previews'
import { searchResults } from './search-results'
import { appPaths, type AppPaths } from './paths'
import { SettingsStore } from './settings-store'
import { applySelection } from './space-tree'
import { StatusView } from './status-view'

export type { BackendOptions }

/**
 * The app's backend: the contract (QuireBridge) over one WorkspaceSession, the same engine `quire
 * watch` runs. Both the Electron main process and `quire serve` run exactly this class; it decides
 * nothing about syncing itself.
 */
export class QuireBackend implements QuireBridge {
  private readonly settings: SettingsStore
  private readonly events: BackendEvents
  private readonly status: StatusView
  private readonly files: LocalFiles
  private readonly conflicts: Conflicts
  private readonly cache: CacheRepository
  private readonly outbox: OutboxRepository
  private readonly accounts: Accounts
  private live: Live | undefined
  private readonly log: BackendEvents['log']

  private constructor(
    private readonly paths: AppPaths,
    /** The workspace's cache, outbox, comments and lease, for the life of the backend; each sign-in runs a session over it. */
    private readonly store: WorkspaceStore,
    private readonly options: BackendOptions,
  ) {
    this.cache = store.cache
    this.outbox = store.outbox
    this.settings = new SettingsStore(this.cache, paths.defaultWorkspace)
    this.files = new LocalFiles(this.cache, () => this.settings.get().workspace, options.desktop ?? systemDesktopActions(), (spaceId) => this.live?.engine.linkPreflight(spaceId) ?? [])
    this.conflicts = new Conflicts({ cache: this.cache, outbox: this.outbox, workspace: () => this.settings.get().workspace, push: (spaceId) => void this.live?.engine.push(spaceId) })
    this.status = new StatusView({ cache: this.cache, settings: this.settings, files: this.files, conflicts: this.conflicts, session: () => this.live?.engine, forReview: () => this.live?.flow.forReview, now: options.now })
    this.events = new BackendEvents(paths.logFile, () => this.status.snapshot(), options.now)
    this.log = this.events.log.bind(this.events)
    this.accounts = new Accounts({ cache: this.cache, paths, fixedVault: options.vault, nativeBinding: options.nativeBinding, startDemoService: options.startDemoService, gateway: options.gateway })
  }

  static async open(options: BackendOptions = {}): Promise<QuireBackend> {
    const paths = appPaths(options.dataDir)
    let healed: HealedCache | undefined
    const store = WorkspaceStore.open(paths, { nativeBinding: options.nativeBinding, onHealed: (h) => (healed = h), now: options.now })
    const backend = new QuireBackend(paths, store, options)
    // A damaged cache was set aside and a fresh one opened: the activity log says so, naming both files.
    if (healed) backend.log('error', `${healedCacheLine(healed).replace(/^the/, 'The')}`)
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

  /** The running workspace session, while signed in: tests drive and observe its steps. */
  get session(): WorkspaceSession | undefined {
    return this.live?.engine
  }

  onEvent(listener: (event: QuireEvent) => void): () => void {
    return this.events.on(listener)
  }

  /** Resolves once nothing is queued or running, the review workflow's look after a pass included (tests, shutdown). */
  async idle(): Promise<void> {
    await this.live?.engine.idle()
    await this.live?.flow.idle()
  }

  /** A cycle now; `force` runs it even while paused (Sync now). */
  requestPass(force: boolean): Promise<void> {
    return this.live ? this.live.engine.requestCycle({ evenIfPaused: force }) : Promise.resolve()
  }

  async close(): Promise<void> {
    await this.end()
    this.events.close()
    this.store.close()
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
    if (signedIn.tokenNote) this.log('warning', signedIn.tokenNote)
    return this.getSession()
  }

  async useDemoService(): Promise<SessionInfo> {
    if (this.live?.demo) return this.getSession()
    await this.end()
    await this.begin(await this.accounts.demo())
    return this.getSession()
  }

  /** The demo as its writer or its reviewer, so one person can play both sides of a review. */
  async useDemoServiceAs(input: { as: DemoRole }): Promise<SessionInfo> {
    const live = this.live
    if (live?.demo && demoRoleOf(live.account) === input.as) return this.getSession()
    // The demo service keeps running through the switch: the same address, its data as it was.
    const running = await this.end({ keepDemo: true })
    await this.begin(await this.accounts.demo(input.as, running))
    return this.getSession()
  }

  async signOut(): Promise<SessionInfo> {
    const live = this.live
    await this.end()
    if (live) {
      await this.accounts.signOut(live)
      this.log('info', `Signed out of ${live.demo ? 'the demo service' : live.account.endpoint}`)
    }
    this.events.emit({ type: 'session', session: await this.getSession() })
    this.events.statusNow()
    return this.getSession()
  }

  private async begin(signedIn: SignedIn, options: { announce?: boolean } = {}) {
    const live = openLive({ store: this.store, settings: this.settings, files: this.files }, signedIn, this.options, {
      log: this.log,
      news: (news) => this.events.emit({ type: 'review', news }),
      statusChanged: () => this.events.statusSoon(),
      event: (event) => {
        // Saved files reach an open preview (it reads its page again); nothing else follows from them here.
        if (event.type === 'files') return this.events.emit({ type: 'files', spaceId: event.spaceId, paths: event.paths })
        if (event.type === 'state' && event.to.kind === 'signed-out' && event.from?.kind !== 'signed-out') void this.getSession().then((session) => this.events.emit({ type: 'session', session }))
        this.events.statusSoon()
      },
    })
    this.live = live
    if (options.announce !== false) this.log('info', `Signed in as ${signedIn.account.displayName} to ${signedIn.demo ? 'the demo service' : signedIn.account.endpoint}`)
    this.events.emit({ type: 'session', session: await this.getSession() })
    await this.refreshTree().catch((error: unknown) => this.log('warning', fromApiError(error, 'Listing spaces').message))
    // Without autoSync (tests) the session watches but starts no cycle itself.
    if (this.options.autoSync === false) await live.engine.start({ firstCycle: false })
    else void live.engine.start()
    this.events.statusNow()
  }

  /** Ends the session; its demo service stops with it, unless kept (then it is returned, running). */
  private async end(options: { keepDemo?: boolean } = {}): Promise<LocalService | undefined> {
    const live = this.live
    if (!live) return undefined
    this.live = undefined
    live.reconnect.stop()
    await live.engine.stop()
    live.gateway.clear()
    if (options.keepDemo) return live.demo
    await live.demo?.close()
    return undefined
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
    return this.status.tree(live.account.id)
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
    this.events.statusNow()
    if (target.selected) void live.engine.requestCycle({ evenIfPaused: false })
    return this.status.tree(live.account.id)
  }

  /* Status and cycles */

  async getStatus(): Promise<StatusSnapshot> {
    this.refreshLinkReportsBehind()
    return this.status.snapshot()
  }

  /** The read of stale link reports in flight (one at a time). */
  private linkReportsRead: Promise<void> | undefined

  /**
   * The status shows the broken-link count of each space's link report, which a pass no longer reads
   * (issue 29): a status asked for while a report is of an older revision reads it in the background,
   * and the status is sent again once it is in (never waiting on the network, offline included).
   */
  private refreshLinkReportsBehind() {
    const live = this.live
    if (!live || this.linkReportsRead || !linkReportsStale(this.cache)) return
    this.linkReportsRead = refreshStaleLinkReports(this.cache, live.gateway)
      .then((read) => {
        if (read > 0) this.events.statusNow()
      })
      .catch(() => undefined)
      .finally(() => (this.linkReportsRead = undefined))
  }

  async syncNow(): Promise<void> {
    void this.require().engine.syncNow()
  }

  async setPaused(paused: boolean): Promise<void> {
    this.settings.update({ paused })
    this.log('info', paused ? 'Syncing paused' : 'Syncing resumed')
    this.live?.engine.refreshStates()
    this.events.statusNow()
    if (!paused) void this.live?.engine.requestCycle({ evenIfPaused: false })
  }

  /* Change requests */

  async listChangeRequests(filter: { spaceId?: string; mine?: boolean; status?: ChangeRequestFilter }): Promise<ChangeRequestSummary[]> {
    return this.require().review.listChangeRequests(filter)
  }

  readonly updateChangeRequest = async (input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestUpdate> => this.require().review.updateFromMain(input.spaceId, input.changeRequestId)
  readonly changeRequestChanges = async (input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestChanges> => this.require().review.changes(input.spaceId, input.changeRequestId)
  readonly changeRequestDiscussion: QuireApi['changeRequestDiscussion'] = async (i) => this.require().review.discussion(i.spaceId, i.changeRequestId)
  readonly editChangeRequestDescription: QuireApi['editChangeRequestDescription'] = async (i) => this.require().flow.describe(i.spaceId, i.changeRequestId, i.description)
  readonly changeRequestMergeCheck: QuireApi['changeRequestMergeCheck'] = async (i) => this.require().review.mergeCheck(i.spaceId, i.changeRequestId)
  readonly changeRequestPdf = async (input: { spaceId: string; changeRequestId: string }): Promise<{ url: string }> => ({ url: await this.require().review.pdfUrl(input.spaceId, input.changeRequestId) })

  /* The review workflow (ReviewFlow): reads, and actions through the outbox that answer `waiting` offline */

  readonly listForReview: QuireApi['listForReview'] = async () => this.require().flow.listForReview()
  readonly listReviewers: QuireApi['listReviewers'] = async (i) => this.require().flow.listReviewers(i.spaceId, i.changeRequestId)
  readonly listReviewerCandidates: QuireApi['listReviewerCandidates'] = async (i) => this.require().flow.candidates(i.spaceId)
  readonly submitForReview: QuireApi['submitForReview'] = async (i) => this.require().flow.submit(i.spaceId, i.changeRequestId, i.description, i.reviewers)
  readonly requestReviewers: QuireApi['requestReviewers'] = async (i) => this.require().flow.request(i.spaceId, i.changeRequestId, i.users)
  readonly removeReviewer: QuireApi['removeReviewer'] = async (i) => this.require().flow.remove(i.spaceId, i.changeRequestId, i.userId)
  readonly reviewChangeRequest: QuireApi['reviewChangeRequest'] = async (i) => this.require().flow.review(i.spaceId, i.changeRequestId, i.verdict, i.comment)
  readonly archiveChangeRequest: QuireApi['archiveChangeRequest'] = async (i) => this.require().flow.archive(i.spaceId, i.changeRequestId)

  /* Conflicts: settled on disk; the session's next push closes them and sends a kept edit */

  readonly compareConflict = async (input: { spaceId: string; copyPath: string }): Promise<ConflictComparison> => this.conflicts.compare(input.spaceId, input.copyPath)

  async resolveConflict(input: { spaceId: string; copyPath: string; keep: 'mine' | 'theirs' }): Promise<StatusSnapshot> {
    this.require()
    this.log('info', await this.conflicts.resolve(input.spaceId, input.copyPath, input.keep), input.spaceId)
    this.events.statusNow()
    return this.status.snapshot()
  }

  async mergeChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary> {
    const live = this.require()
    const merged = await live.review.merge(input.spaceId, input.changeRequestId)
    // A merged change request waits for nobody's review: the count (tray, For review) follows at once.
    if (!merged.waiting) void live.flow.listForReview().catch(() => undefined)
    return merged
  }

  /* Pages and comments */

  readonly listPages = async (input: { spaceId: string }): Promise<PageSummary[]> => this.files.listPages(this.require().gateway, input.spaceId)
  readonly listComments = async (input: { spaceId: string; pageId?: string }): Promise<CommentThread[]> => this.require().review.listComments(input.spaceId, input.pageId)

  // Actions go through the session's outbox (ReviewActions): offline they wait and go out once.
  readonly postComment = async (input: { spaceId: string; pageId: string; markdown: string }): Promise<CommentThread> => this.require().review.postComment(input.spaceId, input.pageId, input.markdown)
  readonly replyToComment: QuireApi['replyToComment'] = async (i) => this.require().review.reply(i.spaceId, i.commentId, i.markdown, i.changeRequestId)
  readonly resolveComment: QuireApi['resolveComment'] = async (i) => this.require().review.resolve(i.spaceId, i.commentId, i.changeRequestId)
  readonly reopenComment: QuireApi['reopenComment'] = async (i) => this.require().flow.reopenComment(i.spaceId, i.changeRequestId, i.commentId)

  /* Links and files */

  readonly previewPage: QuireApi['previewPage'] = async (i) => previewPage(this.cache, this.settings.get().workspace, i)

  async listBrokenLinks(): Promise<BrokenLink[]> {
    const live = this.require()
    return this.files.brokenLinks(live.gateway, (message, spaceId) => this.log('warning', message, spaceId))
  }

  /* Search: the session's index of the space folders, the service's search beside it (search-results.ts) */

  readonly searchWorkspace = async (input: { query: string; spaceId?: string }): Promise<SearchResults> => searchResults(this.require().engine, input.query, input.spaceId)

  // Plain delegations to the desktop (editor, browser, file manager).
  readonly openLocalFile = async (input: { file: string; line?: number }): Promise<OpenedFile> => this.files.openLocalFile(input.file, input.line)
  readonly openExternal = async (input: { url: string }): Promise<void> => this.files.openExternal(input.url)
  readonly openWorkspaceFolder = async (): Promise<void> => this.files.openWorkspaceFolder()

  /* Activity and settings */

  readonly listActivity = async (): Promise<ActivityEntry[]> => this.events.activityEntries()
  readonly getSettings = async (): Promise<Settings> => this.settings.get()

  async updateSettings(patch: Partial<Settings>): Promise<Settings> {
    const before = this.settings.get()
    const after = this.settings.update(patch)
    if (after.workspace !== before.workspace) this.log('info', `Workspace folder is now ${after.workspace}; the old folder is left as it was`)
    if (after.intervalSeconds !== before.intervalSeconds) this.live?.engine.reschedule()
    if (after.paused !== before.paused) await this.setPaused(after.paused)
    else this.events.statusNow()
    return after
  }
}

import { createHash } from 'node:crypto'
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
import { normalizeEndpoint } from '../engine/account/account'
import { CacheRepository, type AccountRow, type SpaceRow } from '../engine/cache/cache-repository'
import { openCacheDatabase } from '../engine/cache/open-cache'
import { ApiGateway, ServiceUnreachableError } from '../engine/gateway/api-gateway'
import { linkFindings, refreshLinkReport } from '../engine/links/link-reports'
import { SyncEngine } from '../engine/sync/sync-engine'
import { startLocalService, type LocalService } from '../service/local-service'
import { ActivityLog } from './activity-log'
import { ChangeRequests } from './change-requests'
import { Comments } from './comments'
import { systemDesktopActions, type DesktopActions } from './desktop-actions'
import { AppError, fromApiError } from './errors'
import { appPaths, type AppPaths } from './paths'
import { SettingsStore } from './settings-store'
import { spaceTree } from './space-tree'
import { overallState, spaceState } from './status'
import { SyncUp } from './sync-up'
import { defaultTokenVault, vaultOfKind, type TokenVault } from './token-vault'

export interface BackendOptions {
  /** Per-user data folder (cache, demo service, logs); env-paths' when absent. */
  dataDir?: string
  /** better-sqlite3 addon for the host runtime (the Electron app in development); see openDatabase. */
  nativeBinding?: string
  vault?: TokenVault
  desktop?: DesktopActions
  /** Starts the embedded demo service; tests may replace it to pin options. */
  startDemoService?: (options: { dataDir: string; token?: string }) => Promise<LocalService>
  /** Push local edits to change requests after each pass (the sync-up engine); on unless false. */
  syncUp?: boolean
  /** Run passes on a timer (off in tests that drive passes themselves). */
  autoSync?: boolean
  now?: () => Date
  /** Gateway tuning, e.g. shorter timeouts in tests. */
  gateway?: { timeoutMs?: number; maxAttempts?: number }
}

interface LiveSession {
  account: AccountRow
  token: string
  gateway: ApiGateway
  demo?: LocalService
}

type AuthenticatedUser = Awaited<ReturnType<ApiGateway['client']['user']['getAuthenticatedUser']>>['data']

/** The demo service is one per data folder; its account has this fixed id. */
const DEMO_ACCOUNT = 'demo'
const STATUS_THROTTLE_MS = 100

/**
 * The app's backend: everything the renderer can ask (QuireApi) over the engine, and the events it
 * pushes. Both the Electron main process and `quire serve` run exactly this class.
 */
export class QuireBackend implements QuireBridge {
  private readonly listeners = new Set<(event: QuireEvent) => void>()
  private readonly settings: SettingsStore
  private readonly activity: ActivityLog
  private readonly desktop: DesktopActions
  private session: LiveSession | undefined
  /** Spaces a pass is working on, with the fraction done. */
  private readonly progress = new Map<string, number>()
  private pass: Promise<void> | undefined
  private again = false
  /** Push reports already in the activity log: a file held unread is told once, not at every pass. */
  private readonly reported = new Set<string>()
  private timer: NodeJS.Timeout | undefined
  private statusTimer: NodeJS.Timeout | undefined
  private closed = false

  private constructor(
    private readonly paths: AppPaths,
    private readonly cache: CacheRepository,
    private readonly options: BackendOptions,
    /** Where new tokens go. */
    private readonly vault: TokenVault,
    private readonly syncUp: SyncUp | undefined,
  ) {
    this.settings = new SettingsStore(cache, paths.defaultWorkspace)
    this.activity = new ActivityLog(paths.logFile, options.now)
    this.desktop = options.desktop ?? systemDesktopActions()
  }

  static async open(options: BackendOptions = {}): Promise<QuireBackend> {
    const paths = appPaths(options.dataDir)
    const db = openCacheDatabase(paths.cacheFile, { nativeBinding: options.nativeBinding })
    const cache = new CacheRepository(db, () => (options.now?.() ?? new Date()).toISOString())
    const vault = options.vault ?? (await defaultTokenVault(paths.tokenFolder))
    const backend = new QuireBackend(paths, cache, options, vault, options.syncUp === false ? undefined : new SyncUp(db))
    try {
      await backend.restore()
    } catch (error) {
      // A keychain that cannot be read or a demo service that cannot start must not keep the app from opening.
      backend.log('warning', `The last session could not be resumed: ${error instanceof Error ? error.message : String(error)}; sign in again`)
    }
    if (options.autoSync !== false) backend.scheduleNext(0)
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

  /** Resolves once no pass is running or queued (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.pass) await this.pass
  }

  async close(): Promise<void> {
    this.closed = true
    clearTimeout(this.timer)
    clearTimeout(this.statusTimer)
    await this.idle()
    await this.session?.gateway.idle()
    await this.session?.demo?.close()
    this.session = undefined
    this.listeners.clear()
    this.cache.close()
  }

  /* Session */

  async getSession(): Promise<SessionInfo> {
    return this.sessionInfo()
  }

  async signIn(input: { endpoint: string; token: string }): Promise<SessionInfo> {
    let endpoint: string
    try {
      endpoint = normalizeEndpoint(input.endpoint)
    } catch {
      throw new AppError('invalid', `"${input.endpoint}" is not an http(s) URL`)
    }
    const token = input.token.trim()
    let gateway: ApiGateway
    try {
      gateway = this.gatewayFor(endpoint, token)
    } catch (error) {
      // A token no HTTP header can carry; the message names the reason, never the token.
      throw new AppError('invalid', `Signing in to ${endpoint}: ${error instanceof Error ? error.message : String(error)}`)
    }
    // The token is checked before anything ends: a refused sign-in keeps the session there was.
    const user = await this.authenticatedUser(gateway, endpoint)
    await this.endSession()
    await this.startSession({ endpoint, token, verified: { gateway, user } })
    return this.sessionInfo()
  }

  async useDemoService(): Promise<SessionInfo> {
    if (this.session?.demo) return this.sessionInfo()
    await this.endSession()
    const token = await this.vault.get(DEMO_ACCOUNT)
    const demo = await this.startDemo(token)
    try {
      await this.startSession({ endpoint: demo.origin, token: demo.token, demo })
    } catch (error) {
      await demo.close()
      throw error
    }
    return this.sessionInfo()
  }

  async signOut(): Promise<SessionInfo> {
    const session = this.session
    await this.endSession()
    if (session) {
      await this.vaultFor(session.account).delete(session.account.id)
      // Like `quire logout`: the synced folders and their journal stay, for the next sign-in.
      this.cache.deactivateAccount(session.account.id)
      this.log('info', `Signed out of ${session.demo ? 'the demo service' : session.account.endpoint}`)
    }
    this.emit({ type: 'session', session: this.sessionInfo() })
    this.emitStatus()
    return this.sessionInfo()
  }

  private sessionInfo(): SessionInfo {
    const session = this.session
    if (!session) return { signedIn: false, demo: false }
    const { account } = session
    return {
      signedIn: true,
      endpoint: account.endpoint,
      user: { id: account.userId, displayName: account.displayName, ...(account.email ? { email: account.email } : {}) },
      demo: session.demo !== undefined,
    }
  }

  private gatewayFor(endpoint: string, token: string): ApiGateway {
    return new ApiGateway({ endpoint, token, timeoutMs: this.options.gateway?.timeoutMs, maxAttempts: this.options.gateway?.maxAttempts })
  }

  private startDemo(token: string | undefined): Promise<LocalService> {
    const start = this.options.startDemoService ?? ((o) => startLocalService({ demo: true, port: 0, nativeBinding: this.options.nativeBinding, ...o }))
    return start({ dataDir: this.paths.serviceDir, ...(token ? { token } : {}) })
  }

  /** Validates the token with GET /user, then keeps the account (cache) and the token (vault). */
  private async startSession(input: { endpoint: string; token: string; demo?: LocalService; verified?: { gateway: ApiGateway; user: AuthenticatedUser } }) {
    const gateway = input.verified?.gateway ?? this.gatewayFor(input.endpoint, input.token)
    const user = input.verified?.user ?? (await this.authenticatedUser(gateway, input.endpoint))
    // The CLI's account id (`quire login`), so both see the same account in the shared cache.
    const id = input.demo ? DEMO_ACCOUNT : `${user.id}@${createHash('sha256').update(input.endpoint).digest('hex').slice(0, 12)}`
    await this.vault.set(id, input.token)
    const account = this.cache.saveAccount({ id, endpoint: input.endpoint, userId: user.id, displayName: user.displayName, email: user.email, tokenStore: this.vault.kind })
    this.session = { account, token: input.token, gateway, demo: input.demo }
    this.log('info', `Signed in as ${user.displayName} to ${input.demo ? 'the demo service' : input.endpoint}`)
    this.emit({ type: 'session', session: this.sessionInfo() })
    await this.refreshTree().catch((error: unknown) => this.log('warning', fromApiError(error, 'Listing spaces').message))
    this.emitStatus()
  }

  private async authenticatedUser(gateway: ApiGateway, endpoint: string): Promise<AuthenticatedUser> {
    try {
      return (await gateway.client.user.getAuthenticatedUser()).data
    } catch (error) {
      throw fromApiError(error, `Signing in to ${endpoint}`)
    }
  }

  private async endSession() {
    const session = this.session
    if (!session) return
    this.session = undefined
    await this.idle()
    session.gateway.clear()
    await session.demo?.close()
  }

  /** Picks up the account of the last run; the demo service is started again with the same token. */
  private async restore() {
    const account = this.cache.activeAccount()
    if (!account) return
    const token = await this.vaultFor(account).get(account.id)
    if (!token) {
      this.log('warning', `The token for ${account.displayName} is gone from the ${account.tokenStore} store: sign in again`)
      return
    }
    if (account.id === DEMO_ACCOUNT) {
      const demo = await this.startDemo(token)
      const restored = this.cache.saveAccount({ ...account, endpoint: demo.origin })
      this.session = { account: restored, token, gateway: this.gatewayFor(demo.origin, token), demo }
    } else {
      this.session = { account, token, gateway: this.gatewayFor(account.endpoint, token) }
    }
  }

  /** The store an account's token was saved in: the shell's own vault when it passed one, else the kind the cache names. */
  private vaultFor(account: AccountRow): TokenVault {
    return this.options.vault ?? (account.tokenStore === this.vault.kind ? this.vault : vaultOfKind(account.tokenStore, this.paths.tokenFolder))
  }

  private requireSession(): LiveSession {
    if (!this.session) throw new AppError('signed-out', 'Sign in first.')
    return this.session
  }

  /* Spaces and selection */

  async listSpaces(): Promise<OrganizationNode[]> {
    const session = this.requireSession()
    try {
      await this.refreshTree()
    } catch (error) {
      // Offline: the cache still knows the tree.
      this.log('warning', fromApiError(error, 'Listing spaces').message)
    }
    return spaceTree(this.cache, session.account.id, (row) => this.spaceNode(row))
  }

  private async refreshTree() {
    const session = this.requireSession()
    await this.engine(session).discover()
  }

  /** The sync-down engine for this session, reporting progress into the status. */
  private engine(session: LiveSession): SyncEngine {
    const syncUp = this.syncUp
    return new SyncEngine({
      cache: this.cache,
      account: session.account,
      gateway: session.gateway,
      workspace: this.settings.get().workspace,
      ...(syncUp ? { hold: (spaceId: string) => syncUp.held(this.cache, spaceId) } : {}),
      onProgress: (event) => {
        if (event.type === 'space-started') {
          this.progress.set(event.spaceId, 0)
          this.emitStatus()
        } else if (event.type === 'step') {
          this.progress.set(event.spaceId, event.step.total === 0 ? 1 : event.step.index / event.step.total)
          this.statusChanged()
        } else if (event.type === 'space-finished') {
          this.progress.delete(event.spaceId)
          this.emitStatus()
        }
      },
    })
  }

  async setSelection(target: SelectionTarget): Promise<OrganizationNode[]> {
    const session = this.requireSession()
    const orgs = this.cache.organizations(session.account.id)
    const selection = {
      organizations: new Set(orgs.filter((o) => o.selected).map((o) => o.id)),
      collections: new Set(orgs.flatMap((o) => this.cache.collections(o.id)).filter((c) => c.selected).map((c) => c.id)),
      spaces: new Set(orgs.flatMap((o) => this.cache.spaces(o.id)).filter((s) => s.selected).map((s) => s.id)),
    }
    const set = { organization: selection.organizations, collection: selection.collections, space: selection.spaces }[target.kind]
    const known =
      target.kind === 'organization'
        ? orgs.some((o) => o.id === target.id)
        : target.kind === 'collection'
          ? orgs.some((o) => this.cache.collections(o.id).some((c) => c.id === target.id))
          : this.cache.space(target.id)?.orgId !== undefined && orgs.some((o) => o.id === this.cache.space(target.id)?.orgId)
    if (!known) throw new AppError('not-found', `No ${target.kind} ${target.id} is known for this account.`)
    if (target.selected) set.add(target.id)
    else set.delete(target.id)
    this.cache.setSelection({ organizations: [...selection.organizations], collections: [...selection.collections], spaces: [...selection.spaces] })
    this.log('info', `${target.selected ? 'Syncing' : 'No longer syncing'} ${target.kind} ${this.titleOf(target)}`)
    this.emitStatus()
    if (target.selected) void this.requestPass(false)
    return spaceTree(this.cache, session.account.id, (row) => this.spaceNode(row))
  }

  private titleOf(target: SelectionTarget): string {
    if (target.kind === 'space') return this.cache.space(target.id)?.title ?? target.id
    if (target.kind === 'organization') return this.cache.organization(target.id)?.title ?? target.id
    const account = this.session?.account.id ?? ''
    return (
      this.cache
        .organizations(account)
        .flatMap((o) => this.cache.collections(o.id))
        .find((c) => c.id === target.id)?.title ?? target.id
    )
  }

  private spaceNode(row: SpaceRow): SpaceNode {
    const paused = this.settings.get().paused
    const running = this.progress.has(row.id)
    const run = this.cache.run(row.id)
    const pages = this.cache.pageCount(row.id)
    const folder = this.existingFolder(row)
    const conflicts = this.syncUp?.conflicts(row.id).length ?? 0
    const state = spaceState(row, running, paused, { pushesEdits: this.syncUp !== undefined, openConflicts: conflicts })
    const shown = row.issues.filter((i) => !(this.syncUp && i.kind === 'local-edit')).map((i) => i.message)
    const trouble = state === 'error' || state === 'conflict' || state === 'offline'
    return {
      id: row.id,
      title: row.title,
      selected: row.selected,
      state,
      ...(row.syncedRevision ? { revision: row.syncedRevision } : {}),
      ...(pages > 0 ? { pageCount: pages } : {}),
      ...(row.lastSyncAt ? { lastSyncAt: row.lastSyncAt } : {}),
      ...(!trouble ? {} : shown.length > 0 ? { lastError: shown.slice(0, 3).join('; ') } : row.lastError ? { lastError: row.lastError } : conflicts > 0 ? { lastError: `${conflicts} conflicted cop${conflicts === 1 ? 'y' : 'ies'} to look at` } : {}),
      ...(running ? { progress: this.progress.get(row.id) } : {}),
      ...(run ? { pending: Math.max(0, run.total - run.completed) } : {}),
      ...(folder ? { folder } : {}),
    }
  }

  /* Status and passes */

  async getStatus(): Promise<StatusSnapshot> {
    return this.snapshot()
  }

  private snapshot(): StatusSnapshot {
    const paused = this.settings.get().paused
    const spaces = this.session ? this.cache.selectedSpaces().map((row) => this.spaceNode(row)) : []
    return {
      overall: overallState(this.session !== undefined, paused, spaces),
      paused,
      spaces,
      brokenLinks: this.session ? this.brokenLinkCount() : 0,
      conflicts: this.session && this.syncUp ? this.syncUp.conflicts().filter((c) => spaces.some((s) => s.id === c.spaceId)).map((c) => ({ spaceId: c.spaceId, path: c.path, copyPath: c.copyPath })) : [],
      updatedAt: (this.options.now?.() ?? new Date()).toISOString(),
    }
  }

  async syncNow(): Promise<void> {
    this.requireSession()
    void this.requestPass(true)
  }

  async setPaused(paused: boolean): Promise<void> {
    this.settings.update({ paused })
    this.log('info', paused ? 'Syncing paused' : 'Syncing resumed')
    this.emitStatus()
    if (!paused && this.session) void this.requestPass(false)
  }

  /**
   * Runs a pass now, or right after the one running. `force` runs it even while paused (Sync now);
   * timer, selection and resume passes respect the pause.
   */
  requestPass(force: boolean): Promise<void> {
    if (this.closed || !this.session) return Promise.resolve()
    if (!force && this.settings.get().paused) return Promise.resolve()
    if (this.pass) {
      this.again = true
      return this.pass
    }
    clearTimeout(this.timer)
    this.pass = (async () => {
      do {
        this.again = false
        await this.runPass()
      } while (this.again && !this.closed)
    })().finally(() => {
      this.pass = undefined
      this.emitStatus()
      this.scheduleNext()
    })
    return this.pass
  }

  private scheduleNext(delayMs = this.settings.get().intervalSeconds * 1000) {
    if (this.closed || this.options.autoSync === false) return
    clearTimeout(this.timer)
    this.timer = setTimeout(() => void this.requestPass(false), delayMs)
    this.timer.unref?.()
  }

  private async runPass() {
    const session = this.session
    if (!session) return
    const before = new Map(this.cache.selectedSpaces().map((row) => [row.id, row]))
    let report
    try {
      report = await this.engine(session).pass()
    } catch (error) {
      this.log('error', fromApiError(error, 'Syncing').message)
      return
    } finally {
      this.progress.clear()
    }
    for (const space of report.spaces) {
      const was = before.get(space.spaceId)
      const title = was?.title ?? space.label
      if (space.state === 'offline') continue
      if (space.steps > 0 || (space.revision && space.revision !== was?.syncedRevision)) {
        this.log('info', `Synced ${title} to revision ${(space.revision ?? '').slice(0, 10)} (${space.steps} change${space.steps === 1 ? '' : 's'} on disk)`, space.spaceId)
      }
      const known = new Set(was?.issues.map((i) => i.message))
      const issues = this.cache.space(space.spaceId)?.issues ?? []
      for (const issue of issues) {
        if (known.has(issue.message) || (this.syncUp && issue.kind === 'local-edit')) continue
        this.log(issue.kind === 'failed' ? 'error' : 'warning', `${title}: ${issue.message}`, space.spaceId)
      }
      if (space.state === 'error' && issues.length === 0 && space.message) this.log('error', `${title}: ${space.message}`, space.spaceId)
    }
    if (report.offline) {
      const message = report.spaces.find((s) => s.state === 'offline')?.message ?? 'the service cannot be reached'
      this.log('warning', `Offline: ${message}`)
      return
    }
    if (!this.syncUp) return
    for (const space of report.spaces) {
      const row = this.cache.space(space.spaceId)
      if (!row || !space.folder || this.session !== session) continue
      try {
        await this.pushEdits(session, row, space.folder)
      } catch (error) {
        if (error instanceof ServiceUnreachableError) {
          this.cache.setSpaceState(row.id, 'offline', { lastError: error.message })
          this.log('warning', `Offline: ${error.message}`)
          return
        }
        this.log('error', fromApiError(error, `Sending the local changes of ${row.title}`).message, row.id)
      }
    }
  }

  /** Sync up: local edits of the space go to the writer's change request. */
  private async pushEdits(session: LiveSession, row: SpaceRow, folder: string) {
    if (!this.syncUp) return
    const conflictsBefore = new Set(this.syncUp.conflicts(row.id).map((c) => c.copyPath))
    const pushed = await this.syncUp.push({ gateway: session.gateway, cache: this.cache, spaceId: row.id, folder, userId: session.account.userId, now: this.options.now })
    const cr = pushed.changeRequest?.number !== undefined ? `change request #${pushed.changeRequest.number}` : 'a change request'
    if (pushed.planned > 0) this.log('info', `Sent ${pushed.planned} local change${pushed.planned === 1 ? '' : 's'} of ${row.title} to ${cr}`, row.id)
    for (const copy of pushed.conflicts) if (!conflictsBefore.has(copy)) this.log('warning', `${row.title}: both sides changed a page; your version is kept in the change request, theirs in ${copy}`, row.id)
    for (const failure of pushed.failures) this.log('warning', `${row.title}: ${failure}`, row.id)
    for (const report of pushed.reports) {
      const key = `${row.id}\n${report.kind}\n${report.path}\n${report.message}`
      if (this.reported.has(key)) continue
      this.reported.add(key)
      this.log('warning', `${row.title}: ${report.message}`, row.id)
    }
    if (pushed.stopped) {
      this.log('warning', `${row.title}: local changes wait to be sent (${pushed.stopped.message})`, row.id)
      if (pushed.stopped.reason === 'offline') this.cache.setSpaceState(row.id, 'offline', { lastError: pushed.stopped.message })
    }
    if (pushed.settled) {
      this.log('info', `${row.title}: your change request was ${pushed.settled.status === 'merged' ? 'merged' : 'closed'}`, row.id)
      // Main now holds the merge: pull it before the next push plans anything.
      this.again = true
    }
  }

  private async refreshLinks(session: LiveSession, spaceId: string, revision: string) {
    try {
      await refreshLinkReport(this.cache, session.gateway, spaceId, revision)
    } catch (error) {
      if (error instanceof ServiceUnreachableError) throw error
      this.log('warning', fromApiError(error, `Reading the link report of ${this.cache.space(spaceId)?.title ?? spaceId}`).message, spaceId)
    }
  }

  private existingFolder(row: SpaceRow): string | undefined {
    const org = this.cache.organization(row.orgId)
    return org?.folder && row.folder ? path.join(this.settings.get().workspace, org.folder, row.folder) : undefined
  }

  /* Change requests */

  async listChangeRequests(filter: { spaceId?: string; mine?: boolean }): Promise<ChangeRequestSummary[]> {
    const session = this.requireSession()
    const rows = filter.spaceId ? [this.cache.space(filter.spaceId)].filter((s): s is SpaceRow => s !== undefined) : this.cache.selectedSpaces()
    if (filter.spaceId && rows.length === 0) throw new AppError('not-found', `No space ${filter.spaceId} is known.`)
    return new ChangeRequests(session.gateway, session.account.userId).list(
      rows.map((r) => ({ id: r.id, title: r.title })),
      filter,
    )
  }

  async updateChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary> {
    const session = this.requireSession()
    const { summary, conflicts } = await new ChangeRequests(session.gateway, session.account.userId).updateFromMain(input.spaceId, input.changeRequestId)
    this.log(conflicts ? 'warning' : 'info', conflicts ? `#${summary.number} was updated from main with conflicts to resolve` : `#${summary.number} "${summary.subject}" updated from main`, input.spaceId)
    return summary
  }

  async mergeChangeRequest(input: { spaceId: string; changeRequestId: string }): Promise<ChangeRequestSummary> {
    const session = this.requireSession()
    const { summary } = await new ChangeRequests(session.gateway, session.account.userId).merge(input.spaceId, input.changeRequestId)
    this.log('info', `Merged #${summary.number} "${summary.subject}" into ${summary.spaceTitle}`, input.spaceId)
    // The space moved on: bring the merged content down.
    if (this.cache.selectedSpaces().some((s) => s.id === input.spaceId)) void this.requestPass(false)
    return summary
  }

  async changeRequestPdf(input: { spaceId: string; changeRequestId: string }): Promise<{ url: string }> {
    const session = this.requireSession()
    return { url: await new ChangeRequests(session.gateway, session.account.userId).pdfUrl(input.spaceId, input.changeRequestId) }
  }

  /* Pages and comments */

  async listPages(input: { spaceId: string }): Promise<PageSummary[]> {
    const session = this.requireSession()
    let pages
    try {
      pages = (await session.gateway.client.spaces.listPages(input.spaceId)).data.pages
    } catch (error) {
      throw fromApiError(error, 'Listing pages')
    }
    const out: PageSummary[] = []
    const visit = (list: typeof pages) => {
      for (const page of list) {
        if (page.type === 'document') {
          const local = this.cache.pageLocation(input.spaceId, page.id)?.localPath
          const gitPath = 'git' in page ? page.git?.path : undefined
          out.push({ id: page.id, title: page.title, ...(local || gitPath ? { path: local ?? gitPath } : {}) })
        }
        if ('pages' in page && Array.isArray(page.pages)) visit(page.pages)
      }
    }
    visit(pages)
    return out
  }

  private comments(session: LiveSession): Comments {
    const titles = new Map<string, Promise<Map<string, string>>>()
    return new Comments(session.gateway, async (spaceId, pageId) => {
      const cached = this.cache.pageLocation(spaceId, pageId)?.title
      if (cached) return cached
      if (!titles.has(spaceId)) titles.set(spaceId, this.listPages({ spaceId }).then((pages) => new Map(pages.map((p) => [p.id, p.title]))))
      return (await titles.get(spaceId))?.get(pageId)
    })
  }

  async listComments(input: { spaceId: string; pageId?: string }): Promise<CommentThread[]> {
    return this.comments(this.requireSession()).threads(input.spaceId, input.pageId)
  }

  async postComment(input: { spaceId: string; pageId: string; markdown: string }): Promise<CommentThread> {
    const thread = await this.comments(this.requireSession()).post(input.spaceId, input.pageId, input.markdown)
    this.log('info', `Commented on ${thread.pageTitle ?? 'a page'}`, input.spaceId)
    return thread
  }

  async replyToComment(input: { spaceId: string; commentId: string; markdown: string }): Promise<CommentThread> {
    const thread = await this.comments(this.requireSession()).reply(input.spaceId, input.commentId, input.markdown)
    this.log('info', `Replied to ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}`, input.spaceId)
    return thread
  }

  async resolveComment(input: { spaceId: string; commentId: string }): Promise<CommentThread> {
    const thread = await this.comments(this.requireSession()).resolve(input.spaceId, input.commentId)
    this.log('info', `Resolved ${thread.author}'s comment${thread.pageTitle ? ` on ${thread.pageTitle}` : ''}`, input.spaceId)
    return thread
  }

  /* Links and files */

  async listBrokenLinks(): Promise<BrokenLink[]> {
    const session = this.requireSession()
    const out: BrokenLink[] = []
    for (const row of this.cache.selectedSpaces()) {
      if (!this.cache.linkReport(row.id) && row.syncedRevision) await this.refreshLinks(session, row.id, row.syncedRevision)
      const folder = this.existingFolder(row)
      for (const finding of await linkFindings(this.cache, row.id, folder, { brokenOnly: true })) {
        out.push({
          spaceId: row.id,
          spaceTitle: row.title,
          ...(finding.pageId ? { pageId: finding.pageId } : {}),
          pageTitle: finding.pageTitle || 'Untitled page',
          target: finding.target,
          ...(folder && finding.localFile ? { file: path.join(folder, ...finding.localFile.split('/')) } : {}),
          ...(finding.line ? { line: finding.line } : {}),
        })
      }
    }
    return out
  }

  private brokenLinkCount(): number {
    let count = 0
    for (const row of this.cache.selectedSpaces()) {
      const items = (this.cache.linkReport(row.id)?.items ?? []) as Array<{ status?: string; locationReferences?: unknown[] }>
      for (const item of items) if (item.status === 'broken') count += Math.max(1, item.locationReferences?.length ?? 0)
    }
    return count
  }

  /** Opens a file of the workspace (and only of the workspace) in the user's editor. */
  async openLocalFile(input: { file: string; line?: number }): Promise<void> {
    const workspace = this.settings.get().workspace
    let real: string
    let root: string
    try {
      real = fs.realpathSync(input.file)
      root = fs.realpathSync(workspace)
    } catch {
      throw new AppError('not-found', `${input.file} does not exist.`)
    }
    const relative = path.relative(root, real)
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new AppError('forbidden', 'Only files inside the workspace folder can be opened.')
    if (!fs.statSync(real).isFile()) throw new AppError('invalid', `${input.file} is not a file.`)
    await this.desktop.openFile(real, input.line)
  }

  async openExternal(input: { url: string }): Promise<void> {
    const url = new URL(input.url)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new AppError('invalid', 'Only http(s) links open in the browser.')
    await this.desktop.openUrl(url.href)
  }

  async openWorkspaceFolder(): Promise<void> {
    const workspace = this.settings.get().workspace
    fs.mkdirSync(workspace, { recursive: true })
    await this.desktop.openFolder(workspace)
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
    if (after.intervalSeconds !== before.intervalSeconds) this.scheduleNext()
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

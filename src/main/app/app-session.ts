import type { ActivityEntry, ReviewNews } from '../../shared/contract'
import { ServiceUnreachableError, type SessionEvent, type WorkspaceSession, type WorkspaceStore } from '../engine'
import type { LocalService } from '../service/local-service'
import type { GatewayTuning, SignedIn } from './accounts'
import type { DesktopActions } from './desktop-actions'
import type { LocalFiles } from './local-files'
import { Reconnect } from './reconnect'
import { ReviewActions } from './review-actions'
import { ReviewFlow } from './review-flow'
import type { TokenVault } from './token-vault'
import { sessionActivity } from './session-activity'
import type { SettingsStore } from './settings-store'

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
  /** How long a page file must stay missing before its deletion is sent (default 2 s; tests of other things lower it). */
  deletionQuietMs?: number
  now?: () => Date
  /** Gateway tuning, e.g. shorter timeouts in tests. */
  gateway?: GatewayTuning
  /** How this process names itself to another that finds the workspace taken (`quire serve` says serve). */
  leaseKind?: 'app' | 'serve'
  /** First wait before probing a service that went offline (default 2 s, growing to 30 s); no probing without autoSync. */
  reconnectMs?: number
}

/** A signed-in account with its running session and the actions the app offers over it. */
export interface Live extends SignedIn {
  engine: WorkspaceSession
  review: ReviewActions
  /** The review workflow (issue 13): what waits for the user's review, reviewers, verdicts, and their news. */
  flow: ReviewFlow
  /** Probes the service while a space is offline and runs a cycle once it answers; stopped with the session. */
  reconnect: Reconnect
}

/**
 * The one workspace session, as the app runs it: settings decide the workspace folder, the interval and
 * pausing (read at each use, so a change applies at once); its events become activity entries.
 */
function appWorkspaceSession(
  deps: { store: WorkspaceStore; settings: SettingsStore },
  signedIn: SignedIn,
  options: BackendOptions,
  report: { log: (level: ActivityEntry['level'], message: string, spaceId?: string) => void; event: (event: SessionEvent) => void },
): WorkspaceSession {
  const { settings } = deps
  const onActivity = sessionActivity(deps.store.cache, report.log)
  return deps.store.session(signedIn, {
    workspace: () => settings.get().workspace,
    syncUp: options.syncUp,
    watch: options.watch,
    debounceMs: options.debounceMs,
    deletionQuietMs: options.deletionQuietMs,
    // Without autoSync (tests), cycles run only when asked.
    intervalMs: () => (options.autoSync === false ? undefined : settings.get().intervalSeconds * 1000),
    paused: () => settings.get().paused,
    now: options.now,
    onEvent: (event) => {
      onActivity(event)
      report.event(event)
    },
  }, options.leaseKind ?? 'app')
}

/** The session and the review actions over it, for one signed-in account; nothing started yet. */
export function openLive(
  deps: Parameters<typeof appWorkspaceSession>[0] & { files: LocalFiles },
  signedIn: SignedIn,
  options: BackendOptions,
  report: Parameters<typeof appWorkspaceSession>[3] & { news: (news: ReviewNews) => void; statusChanged: () => void },
): Live {
  const { cache, outbox, comments, diffs } = deps.store
  // The probe is armed by the session's state events; it needs the session to read the states.
  const onState: { check?: () => void } = {}
  const after: { pass?: () => void } = {}
  const engine = appWorkspaceSession(deps, signedIn, options, {
    log: report.log,
    event: (event) => {
      report.event(event)
      if (event.type === 'state') onState.check?.()
      // After each pass, the review workflow looks for news (asked to review, a review arrived).
      if (event.type === 'pass') after.pass?.()
    },
  })
  const reconnect = new Reconnect({
    offline: () => cache.selectedSpaces().some((space) => engine.state(space.id).kind === 'offline'),
    probe: async () => {
      try {
        await signedIn.gateway.client.user.getAuthenticatedUser()
        return true
      } catch (error) {
        // Any answer of the service (a 401 too) means it is reachable: the cycle finds out the rest.
        return !(error instanceof ServiceUnreachableError)
      }
    },
    reconnected: () => void engine.requestCycle({ evenIfPaused: false }),
    firstDelayMs: options.reconnectMs,
  })
  // Without autoSync (tests that drive every cycle) nothing starts a cycle on its own: no probing either.
  if (options.autoSync !== false) onState.check = () => reconnect.check()
  // A comment names its page: by the cache's title, else the service's page list.
  const pageTitle = async (spaceId: string, pageId: string) =>
    cache.pageLocation(spaceId, pageId)?.title ?? (await deps.files.listPages(signedIn.gateway, spaceId)).find((p) => p.id === pageId)?.title
  const review = new ReviewActions(engine, cache, outbox, comments, diffs, pageTitle, report.log)
  const flow = new ReviewFlow(engine, { cache, outbox, actions: review, log: report.log, news: report.news, countChanged: report.statusChanged })
  after.pass = () => void flow.look()
  return { ...signedIn, engine, reconnect, review, flow }
}

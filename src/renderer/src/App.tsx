import { Fragment, useEffect, useRef, useState } from 'react'
import type { DemoRole, SessionInfo, StatusSnapshot } from '../../shared/contract'
import { overallWords, type WayOut } from '../../shared/status-words'
import { useBridge } from './bridge'
import { DoneNotice, ErrorNotice } from './components/Notice'
import { SearchDialog } from './components/SearchDialog'
import { StateLine } from './components/StateLine'
import { useNow } from './components/Time'
import { errorText, useAction } from './hooks'
import { ActivityScreen } from './screens/ActivityScreen'
import { ChangeRequestsScreen } from './screens/ChangeRequestsScreen'
import { CommentsScreen } from './screens/CommentsScreen'
import { ForReviewScreen } from './screens/ForReviewScreen'
import { LinksScreen } from './screens/LinksScreen'
import { PreviewScreen } from './screens/PreviewScreen'
import { SettingsScreen } from './screens/SettingsScreen'
import { SignInScreen } from './screens/SignInScreen'
import { SpacesScreen } from './screens/SpacesScreen'
import { useTheme, type ThemeChoice } from './theme'

const SCREENS = [
  { id: 'spaces', label: 'Spaces' },
  { id: 'for-review', label: 'For review' },
  { id: 'change-requests', label: 'Change requests' },
  { id: 'comments', label: 'Comments' },
  { id: 'links', label: 'Link report' },
  { id: 'preview', label: 'Preview' },
  { id: 'activity', label: 'Activity' },
  { id: 'settings', label: 'Settings' },
] as const

export type ScreenId = (typeof SCREENS)[number]['id']

const NEXT_THEME: Record<ThemeChoice, ThemeChoice> = { system: 'light', light: 'dark', dark: 'system' }

export function App() {
  const bridge = useBridge()
  const [session, setSession] = useState<SessionInfo>()
  const [status, setStatus] = useState<StatusSnapshot>()
  const [loadError, setLoadError] = useState<string>()
  const [screen, setScreen] = useState<ScreenId>('spaces')
  /** Counts finished sync passes, so screens showing remote data refresh after one. */
  const [passes, setPasses] = useState(0)
  const lastOverall = useRef<string | undefined>(undefined)
  /** Each space's last sync time, as last seen: when one moves, a pass ended. */
  const lastSynced = useRef<string | undefined>(undefined)
  const [theme, setTheme] = useTheme()
  const action = useAction()
  const mainRef = useRef<HTMLElement>(null)
  /** Set while the writer signs in again (the service refused the saved token). */
  const [reauth, setReauth] = useState(false)
  const now = useNow()
  /** The latest review news (asked to review, a review arrived): the browser's toast; the desktop also notifies. */
  const [news, setNews] = useState<string>()
  /** Set while the tab has lost its server (quire serve stopped): nothing shown is current then. */
  const [notRunning, setNotRunning] = useState(false)
  /** The search box (Ctrl+K, Cmd+K on a Mac) is open. */
  const [searching, setSearching] = useState(false)

  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if ((event.ctrlKey || event.metaKey) && !event.altKey && event.key.toLowerCase() === 'k') {
        event.preventDefault()
        setSearching(true)
      }
    }
    window.addEventListener('keydown', onKey)
    return () => window.removeEventListener('keydown', onKey)
  }, [])

  useEffect(() => {
    const onStatus = (next: StatusSnapshot) => {
      // A pass ended: the state left Syncing, or a space's last sync moved (a quick pass may never show Syncing).
      const synced = next.spaces.map((s) => `${s.id}:${s.lastSyncAt ?? ''}`).join(',')
      const ended = (lastOverall.current === 'syncing' && next.overall !== 'syncing') || (lastSynced.current !== undefined && synced !== lastSynced.current)
      if (ended) setPasses((n) => n + 1)
      lastOverall.current = next.overall
      lastSynced.current = synced
      setStatus(next)
    }
    const off = bridge.onEvent((event) => {
      if (event.type === 'status') onStatus(event.status)
      else if (event.type === 'session') setSession(event.session)
      else if (event.type === 'review') setNews(`${event.news.title}: ${event.news.body}`)
      else if (event.type === 'connection') {
        setNotRunning(!event.connected)
        // Back: what changed meanwhile is read again.
        if (event.connected) {
          bridge.getSession().then(setSession, () => undefined)
          bridge.getStatus().then(onStatus, () => undefined)
        }
      }
      // The tray or a clicked notification asks for a screen.
      else if (event.type === 'show') setScreen(event.screen)
    })
    bridge.getSession().then(setSession, (e: unknown) => setLoadError(errorText(e)))
    bridge.getStatus().then(onStatus, () => undefined)
    return off
  }, [bridge])

  const show = (id: ScreenId, focus = 'h1') => {
    setScreen(id)
    // What a header button did belongs to the moment: it does not follow the writer to the next screen.
    action.clear()
    // Moving focus to the new screen's heading tells keyboard and screen reader users where they are.
    requestAnimationFrame(() => mainRef.current?.querySelector<HTMLElement>(focus)?.focus())
  }

  const wayOut = (way: WayOut) => {
    if (way === 'sign-in') setReauth(true)
    else if (way === 'retry') void action.run('retry', () => bridge.syncNow(), 'Trying again: a sync started.')
    else if (way === 'resume') void action.run('resume', () => bridge.setPaused(false), 'Syncing resumed.')
    else if (way === 'show-conflicts') show('spaces', '#conflicts-title')
    else show('spaces')
  }

  const gone = notRunning ? (
    <p className="notice notice-error not-running" role="alert">
      Quire is not running: this tab lost quire serve. Start it again; the tab reconnects by itself.
    </p>
  ) : null
  if (!session) {
    return (
      <main className="centered">
        {gone}
        {loadError ? <ErrorNotice message={`Quire's engine cannot be reached: ${loadError}`} /> : <p role="status">Starting Quire…</p>}
      </main>
    )
  }
  if (!session.signedIn) {
    return (
      <>
        {gone}
        <SignInScreen onSignedIn={setSession} />
      </>
    )
  }
  if (reauth) {
    const signedIn = (next: SessionInfo) => {
      setSession(next)
      setReauth(false)
    }
    return <SignInScreen onSignedIn={signedIn} endpoint={session.demo ? undefined : session.endpoint} reason={session.authError} onCancel={() => setReauth(false)} />
  }

  const paused = status?.paused ?? false
  // While offline every screen shows what Quire last fetched: as of the newest sync of an offline space.
  const offlineAsOf =
    status?.overall === 'offline'
      ? (status.spaces
          .filter((s) => s.state === 'offline')
          .map((s) => s.lastSyncAt ?? '')
          .sort()
          .at(-1) ?? status.updatedAt)
      : undefined
  return (
    <div className="app">
      <header className="topbar">
        <span className="brand" aria-hidden="true">
          Quire
        </span>
        <div className="overall" aria-live="polite">
          <span className="sr-only">Overall state: </span>
          {notRunning ? (
            <span id="overall-state" className="badge state-error">
              Quire is not running
            </span>
          ) : status ? (
            <StateLine words={overallWords(status, now, session.authError)} onWayOut={wayOut} busy={action.busy === 'retry' || action.busy === 'resume'} id="overall-state" />
          ) : (
            <span className="muted">Reading the state…</span>
          )}
          {status && status.brokenLinks > 0 ? (
            <button type="button" className="link-button" onClick={() => show('links')}>
              Broken links: {status.brokenLinks}
            </button>
          ) : null}
        </div>
        <div className="toolbar">
          <button type="button" onClick={() => setSearching(true)} aria-keyshortcuts="Control+K Meta+K">
            Search <kbd className="muted small">Ctrl+K</kbd>
          </button>
          <button type="button" onClick={() => void action.run('sync', () => bridge.syncNow(), 'Sync started.')} disabled={action.busy === 'sync'}>
            {action.busy === 'sync' ? 'Starting…' : 'Sync now'}
          </button>
          {/* Paused, the header's state line offers the one Resume: no second one here (nor per space). */}
          {paused ? null : (
            <button type="button" disabled={action.busy === 'pause'} onClick={() => void action.run('pause', () => bridge.setPaused(true), 'Syncing paused.')}>
              Pause
            </button>
          )}
          <button type="button" onClick={() => setTheme(NEXT_THEME[theme])} aria-label={`Theme: ${theme}. Switch to ${NEXT_THEME[theme]}`}>
            Theme: {theme}
          </button>
        </div>
      </header>
      <nav className="sidebar" aria-label="Sections">
        <ul>
          {SCREENS.map((s) => (
            <li key={s.id}>
              <button type="button" className="nav-item" aria-current={screen === s.id ? 'page' : undefined} onClick={() => show(s.id)}>
                {s.label}
                {s.id === 'for-review' && status?.forReview ? (
                  <span className="badge count">
                    <span className="sr-only">, waiting: </span>
                    {status.forReview}
                  </span>
                ) : null}
              </button>
            </li>
          ))}
        </ul>
        <p className="who muted">
          {session.user?.displayName}
          {session.demo ? ' (demo service)' : ''}
        </p>
        {session.demo ? <DemoSwitch session={session} busy={action.busy} run={action.run} onSession={setSession} /> : null}
      </nav>
      {searching ? <SearchDialog open={searching} onClose={() => setSearching(false)} /> : null}
      <main className="content" ref={mainRef}>
        {gone}
        <ErrorNotice message={action.error} />
        <DoneNotice message={action.done} />
        {news ? (
          <div className="notice notice-ok toast" role="status">
            {news}{' '}
            <button type="button" className="link-button" onClick={() => setNews(undefined)}>
              Dismiss
            </button>
          </div>
        ) : null}
        {/* Keyed by the user: after the demo's switch between writer and reviewer, every screen reads afresh. */}
        <Fragment key={session.user?.id}>
          {screen === 'spaces' && <SpacesScreen status={status} onWayOut={wayOut} />}
          {screen === 'for-review' && <ForReviewScreen passes={passes} count={status?.forReview} />}
          {screen === 'change-requests' && <ChangeRequestsScreen passes={passes} offlineAsOf={offlineAsOf} />}
          {screen === 'comments' && <CommentsScreen status={status} offlineAsOf={offlineAsOf} passes={passes} />}
          {screen === 'links' && <LinksScreen passes={passes} offlineAsOf={offlineAsOf} />}
          {screen === 'preview' && <PreviewScreen status={status} passes={passes} />}
          {screen === 'activity' && <ActivityScreen />}
          {screen === 'settings' && <SettingsScreen session={session} onSession={setSession} paused={status?.paused} />}
        </Fragment>
      </main>
    </div>
  )
}

/**
 * On the demo service, one person plays both sides of a review: the writer (the service's owner) and its
 * reviewer, Ada Reviewer. The switch signs in as the other; the workspace and the service stay.
 */
function DemoSwitch({ session, busy, run, onSession }: { session: SessionInfo; busy: string | undefined; run: ReturnType<typeof useAction>['run']; onSession: (session: SessionInfo) => void }) {
  const bridge = useBridge()
  const other: DemoRole = session.demoAs === 'reviewer' ? 'writer' : 'reviewer'
  return (
    <button
      type="button"
      className="link-button demo-switch"
      disabled={busy !== undefined}
      onClick={() => void run('demo-switch', async () => onSession(await bridge.useDemoServiceAs({ as: other })), `Signed in to the demo service as its ${other}.`)}
    >
      {busy === 'demo-switch' ? 'Switching…' : `Sign in as the ${other}`}
    </button>
  )
}

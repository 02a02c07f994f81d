import type { MenuItemConstructorOptions } from 'electron'
import type { SessionInfo, StatusSnapshot } from '../../shared/contract'
import { trayStateWords } from './tray-state'

/** What the tray menu can do; the shell wires each to the backend or to a window. */
export interface TrayActions {
  syncNow(): void
  setPaused(paused: boolean): void
  openWorkspaceFolder(): void
  /** Opens a space's page in the browser; its title names it should that fail. */
  openInBrowser(url: string, spaceTitle?: string): void
  showBrokenLinks(): void
  /** Shows the For review screen (the window when absent: Open Quire). */
  showForReview?(): void
  openQuire(): void
  quit(): void
}

export interface TrayView {
  status?: StatusSnapshot
  session?: SessionInfo
  /** The shell's own trouble (the sync engine would not start): shown as an error, in these words. */
  problem?: string
}

/**
 * One line saying what the icon means, for the tooltip and the menu's first (disabled) item: the same
 * words and way out as the window's header (trayStateWords over the one status vocabulary).
 */
export function trayStateLabel(view: TrayView, now: Date = new Date()): string {
  if (view.problem) return view.problem
  if (view.session && !view.session.signedIn) return 'Signed out (Sign in again)'
  if (!view.status) return 'Starting…'
  return trayStateWords(view.status, now, view.session?.authError)
}

function browserItem(view: TrayView, actions: TrayActions): MenuItemConstructorOptions {
  const spaces = (view.status?.spaces ?? []).filter((s) => s.synced && s.appUrl)
  if (spaces.length === 0) return { id: 'open-in-browser', label: 'Open in browser', enabled: false }
  if (spaces.length === 1) {
    const url = spaces[0].appUrl!
    return { id: 'open-in-browser', label: 'Open in browser', click: () => actions.openInBrowser(url, spaces[0].title) }
  }
  return {
    id: 'open-in-browser',
    label: 'Open in browser',
    submenu: spaces.map((s) => ({ id: `open-in-browser:${s.id}`, label: s.title, click: () => actions.openInBrowser(s.appUrl!, s.title) })),
  }
}

/**
 * The tray menu for the current state, as a template for Menu.buildFromTemplate. Pure: the same view
 * always gives the same items, so the menu is rebuilt on every status change and unit-tested as data.
 */
export function trayMenuTemplate(view: TrayView, actions: TrayActions): MenuItemConstructorOptions[] {
  const signedIn = view.session?.signedIn ?? view.status !== undefined
  const paused = view.status?.paused ?? false
  const broken = view.status?.brokenLinks ?? 0
  const forReview = view.status?.forReview
  return [
    { id: 'state', label: trayStateLabel(view), enabled: false },
    { type: 'separator' },
    // "Sync now" works while paused: users asked for one pass without resuming the schedule.
    { id: 'sync-now', label: 'Sync now', enabled: signedIn, click: () => actions.syncNow() },
    { id: 'pause', label: paused ? 'Resume' : 'Pause', enabled: signedIn, click: () => actions.setPaused(!paused) },
    { type: 'separator' },
    { id: 'open-folder', label: 'Open workspace folder', click: () => actions.openWorkspaceFolder() },
    browserItem(view, actions),
    // Change requests waiting for the user's review (issue 13), once the backend has read the count.
    ...(forReview === undefined ? [] : [{ id: 'for-review', label: `For review: ${forReview}`, enabled: forReview > 0, click: () => (actions.showForReview ?? actions.openQuire)() }]),
    { id: 'broken-links', label: `Broken links: ${broken}`, enabled: broken > 0, click: () => actions.showBrokenLinks() },
    { type: 'separator' },
    { id: 'open-quire', label: 'Open Quire', click: () => actions.openQuire() },
    { id: 'quit', label: 'Quit', click: () => actions.quit() },
  ]
}

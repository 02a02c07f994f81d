import { redactSecrets } from '../engine'
import type { DesktopNotification } from './notification-rules'

/**
 * What the tray menu was asked to do. A tray click has no window to show its outcome in, so a failure
 * becomes a desktop notification (issue 12: they used to be written to the log only, and the click
 * seemed to do nothing). It is the answer to the person's own click, not news, so it is shown even with
 * the notifications setting off.
 */
export type TrayTask = { kind: 'open-folder' } | { kind: 'open-in-browser'; spaceTitle?: string } | { kind: 'sync-now' } | { kind: 'pause'; paused: boolean }

const MAX_REASON = 240

// A link in a reason is left out: a space's or change request's address can carry a signature
// (`?sig=`), and the person needs what went wrong, not the address. Schemes of two letters or more with
// `//`, and the schemes that have none; a Windows drive (`C:\`) is a single letter and stays.
// Punctuation that ends the sentence ("Failed to open https://x/a: no handler") is not part of the link.
const LINK = /"?\b(?:[a-z][a-z0-9+.-]+:\/\/|(?:javascript|data|vbscript|mailto|file):)(?:[^\s"'<>]*[^\s"'<>.,:;!?)\]])?"?/gi

/**
 * Why a tray action failed, in the words a person reads: the error's message without Electron's or the
 * sync engine's wrapping ("Error invoking remote method 'x': Error: ", "openWorkspaceFolder failed: "),
 * without links, tokens or anything after `Bearer `, on one line and not too long.
 */
export function trayFailureReason(error: unknown): string {
  const raw = error instanceof Error ? error.message : typeof error === 'string' ? error : ''
  const text = redactSecrets(raw)
    .replace(/^Error invoking remote method '[^']+': (Error: )?/, '')
    .replace(/^[a-z][A-Za-z]+ failed: /, '')
    .replace(LINK, 'the link')
    .replace(/\s+/g, ' ')
    .trim()
  if (text === '') return 'no reason was given'
  return text.length > MAX_REASON ? `${text.slice(0, MAX_REASON - 1)}…` : text
}

/** What each task is called when it fails, where a click on the notification takes the person, and what they can do there. */
function taskWords(task: TrayTask): { title: string; screen: 'settings' | 'spaces' | 'activity'; wayOut: string } {
  switch (task.kind) {
    case 'open-folder':
      return { title: 'Could not open the workspace folder', screen: 'settings', wayOut: 'Check the folder in Settings.' }
    case 'open-in-browser':
      return { title: `Could not open ${task.spaceTitle ?? 'the space'} in your browser`, screen: 'spaces', wayOut: 'Open Quire to see the space.' }
    case 'sync-now':
      return { title: 'Sync did not start', screen: 'activity', wayOut: 'Activity in Quire tells more.' }
    case 'pause':
      return { title: task.paused ? 'Could not pause syncing' : 'Could not resume syncing', screen: 'settings', wayOut: 'Try again from Quire.' }
  }
}

/** The notification for a tray action that failed: what did not happen as the title, the reason and the way out as the body. */
export function trayFailureNotification(task: TrayTask, error: unknown): DesktopNotification {
  const { title, screen, wayOut } = taskWords(task)
  const reason = trayFailureReason(error)
  return {
    kind: 'tray-action-failed',
    key: `tray-action-failed:${task.kind}`,
    title,
    body: `${reason.charAt(0).toUpperCase()}${reason.slice(1)}${/[.!?…]$/.test(reason) ? '' : '.'} ${wayOut}`,
    open: { kind: 'screen', screen },
  }
}

export interface TrayFeedbackDeps {
  notify(notification: DesktopNotification): void
  log(message: string): void
}

/** Runs a tray action; when it fails, the person gets a notification saying so and the log a line. Never rejects. */
export async function runTrayTask(task: TrayTask, action: () => Promise<unknown>, deps: TrayFeedbackDeps): Promise<void> {
  try {
    await action()
  } catch (error) {
    const notification = trayFailureNotification(task, error)
    deps.log(`tray: ${notification.title}: ${notification.body}`)
    try {
      deps.notify(notification)
    } catch (failure) {
      // No notification could be shown (no notification service on this desktop): the log line stays.
      deps.log(`tray: the notification could not be shown: ${trayFailureReason(failure)}`)
    }
  }
}

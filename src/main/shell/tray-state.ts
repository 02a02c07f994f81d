import type { OverallState, SpaceState, StatusSnapshot } from '../../shared/contract'
import { overallWords, WAY_OUT_LABEL } from '../../shared/status-words'

export const TRAY_STATES = ['synced', 'syncing', 'paused', 'offline', 'error', 'conflict'] as const
export type TrayState = (typeof TRAY_STATES)[number]

// Worst first. An error needs the user most; a conflict means their own edit waits for them; offline is
// the service's fault and mends itself; syncing and paused are normal life.
const SEVERITY: readonly TrayState[] = ['error', 'conflict', 'offline', 'syncing', 'paused', 'synced']

/** The worse of the given states (`synced` for none). */
export function worstOf(states: Iterable<TrayState>): TrayState {
  let worst = SEVERITY.length - 1
  for (const state of states) worst = Math.min(worst, SEVERITY.indexOf(state))
  return SEVERITY[worst]
}

// A space whose token the service refused needs the user (sign in again): the error icon. Local edits
// waiting to be sent are work in progress: the syncing icon.
const fromSpace = (state: SpaceState): TrayState => (state === 'signed-out' ? 'error' : state === 'pending' ? 'syncing' : state)
// Signed out with no session at all, nothing is connected: the offline icon (the menu says why).
const fromOverall = (overall: OverallState): TrayState => (overall === 'signed-out' ? 'offline' : overall === 'pending' ? 'syncing' : overall)

/**
 * The tray's state: the worst of the selected spaces, any conflict copy, the pause switch and the
 * backend's own overall verdict. Unselected spaces do not count: a stale error in a space the user stopped
 * syncing is not their problem any more.
 */
export function trayStateFrom(status: StatusSnapshot): TrayState {
  const states: TrayState[] = [fromOverall(status.overall)]
  for (const space of status.spaces) if (space.synced) states.push(fromSpace(space.state))
  if (status.conflicts.length > 0) states.push('conflict')
  if (status.paused) states.push('paused')
  return worstOf(states)
}

/**
 * The tray's words for the snapshot: the same headline and way out the window's header shows (one
 * vocabulary, src/shared/status-words.ts), e.g. "Offline, last synced 4 min ago: Retry now" or
 * "Signed out: Sign in again". For the tooltip and the menu's first line.
 */
export function trayStateWords(status: StatusSnapshot, now: Date = new Date(), authError?: string): string {
  const words = overallWords(status, now, authError)
  const line = words.wayOut ? `${words.headline} (${WAY_OUT_LABEL[words.wayOut]})` : words.headline
  // Change requests waiting for the user's review are told beside the state (the tooltip shows them at a glance).
  return status.forReview ? `${line} · ${status.forReview} for review` : line
}

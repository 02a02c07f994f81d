import type { SpaceNode, StatusSnapshot } from './contract'
import { queuedWords, type SpaceStateKind } from './space-state'

/**
 * The session's state in plain words, each with its way out: what the window's header, each space's
 * row and the tray say. Pure functions over the status snapshot (the renderer and the shell both import
 * them), so every place says the same thing.
 */

/** What a person can do about a state. */
export type WayOut = 'sign-in' | 'retry' | 'resume' | 'show-conflicts' | 'choose-spaces'

export const WAY_OUT_LABEL: Record<WayOut, string> = {
  'sign-in': 'Sign in again',
  retry: 'Retry now',
  resume: 'Resume',
  'show-conflicts': 'Show conflicts',
  'choose-spaces': 'Choose spaces',
}

/** The short name of each state (the badge). */
export const STATE_LABEL: Record<SpaceStateKind, string> = {
  'signed-out': 'Signed out',
  offline: 'Offline',
  syncing: 'Syncing',
  pending: 'Edits waiting',
  conflict: 'Conflict',
  error: 'Error',
  paused: 'Paused',
  synced: 'In sync',
}

export interface StateWords {
  kind: SpaceStateKind | 'nothing-selected'
  /** One short line: "Offline", "Syncing 3 of 12", "2 edits waiting to be sent". */
  headline: string
  /** What it means or why, when there is more to say. */
  detail?: string
  wayOut?: WayOut
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** "just now", "4 min ago", "3 h ago", "2 days ago". */
export function ago(iso: string | undefined, now: Date): string | undefined {
  if (!iso) return undefined
  const then = new Date(iso).getTime()
  if (Number.isNaN(then)) return undefined
  const seconds = Math.max(0, Math.round((now.getTime() - then) / 1000))
  if (seconds < 45) return 'just now'
  const minutes = Math.round(seconds / 60)
  if (minutes < 60) return `${minutes} min ago`
  const hours = Math.round(minutes / 60)
  if (hours < 36) return `${hours} h ago`
  return plural(Math.round(hours / 24), 'day') + ' ago'
}

/** ", 3 changes queued" after a state's words, when work waits in the outbox. */
const queuedTail = (count: number | undefined) => (count ? `, ${queuedWords(count)}` : '')
/** Queued work of every space (a space in sync has none). */
const queuedIn = (spaces: readonly SpaceNode[]) => spaces.reduce((n, s) => n + (s.pending ?? 0), 0)

const lastSynced = (iso: string | undefined, now: Date) => {
  const when = ago(iso, now)
  return when ? `last synced ${when}` : 'not synced yet'
}

/** One space's state in words. */
export function spaceWords(space: SpaceNode, now: Date): StateWords {
  switch (space.state) {
    case 'signed-out':
      return { kind: 'signed-out', headline: 'Signed out', detail: space.reason ?? 'the service refused the saved sign-in', wayOut: 'sign-in' }
    case 'offline':
      return { kind: 'offline', headline: `Offline, ${lastSynced(space.lastSyncAt, now)}${queuedTail(space.pending)}`, detail: space.reason, wayOut: 'retry' }
    case 'syncing':
      return { kind: 'syncing', headline: space.syncTotal ? `Syncing ${space.syncDone ?? 0} of ${space.syncTotal}` : 'Syncing' }
    case 'pending':
      return { kind: 'pending', headline: `${plural(space.pending ?? 1, 'edit')} waiting to be sent` }
    case 'conflict':
      return { kind: 'conflict', headline: `Conflict in ${(space.conflictFiles ?? []).join(', ') || 'a file'}`, detail: 'your version is kept in a conflicted copy beside the file', wayOut: 'show-conflicts' }
    case 'error':
      return { kind: 'error', headline: 'Error', detail: space.reason ?? space.lastError, wayOut: 'retry' }
    case 'paused':
      return space.synced ? { kind: 'paused', headline: `Paused${queuedTail(space.pending)}`, wayOut: 'resume' } : { kind: 'paused', headline: 'Not synced' }
    case 'synced':
      return { kind: 'synced', headline: 'In sync', detail: lastSynced(space.lastSyncAt, now) }
  }
}

/** The whole workspace in words: the worst selected space decides, with counts where several share it. */
export function overallWords(status: StatusSnapshot, now: Date, signedOutReason?: string): StateWords {
  const selected = status.spaces.filter((s) => s.synced)
  if (signedOutReason !== undefined || status.overall === 'signed-out') {
    return { kind: 'signed-out', headline: 'Signed out', detail: signedOutReason ?? selected.find((s) => s.reason)?.reason ?? 'the service refused the saved sign-in', wayOut: 'sign-in' }
  }
  if (selected.length === 0) return { kind: 'nothing-selected', headline: 'No spaces chosen to sync', detail: 'pick the spaces to mirror into the workspace folder', wayOut: 'choose-spaces' }
  const some = (kind: SpaceStateKind) => selected.filter((s) => s.state === kind)
  const newest = selected.map((s) => s.lastSyncAt).filter((t): t is string => t !== undefined).sort().at(-1)
  switch (status.overall) {
    case 'error': {
      const failing = some('error')
      return { kind: 'error', headline: failing.length > 1 ? `Error in ${plural(failing.length, 'space')}` : `Error in ${failing[0]?.title ?? 'a space'}`, detail: failing[0]?.reason ?? failing[0]?.lastError, wayOut: 'retry' }
    }
    case 'conflict': {
      const files = status.conflicts.length > 0 ? status.conflicts.map((c) => c.path) : some('conflict').flatMap((s) => s.conflictFiles ?? [])
      return { kind: 'conflict', headline: `${plural(Math.max(1, files.length), 'conflict')}: ${files.slice(0, 3).join(', ')}${files.length > 3 ? '…' : ''}`, detail: 'your version is kept in a conflicted copy beside each file', wayOut: 'show-conflicts' }
    }
    case 'offline':
      return { kind: 'offline', headline: `Offline, ${lastSynced(newest, now)}${queuedTail(queuedIn(selected))}`, detail: some('offline')[0]?.reason, wayOut: 'retry' }
    case 'syncing': {
      const running = some('syncing')
      const done = running.reduce((n, s) => n + (s.syncDone ?? 0), 0)
      const total = running.reduce((n, s) => n + (s.syncTotal ?? 0), 0)
      return { kind: 'syncing', headline: total > 0 ? `Syncing ${done} of ${total}` : running.length > 1 ? `Syncing ${plural(running.length, 'space')}` : 'Syncing' }
    }
    case 'pending': {
      const edits = some('pending').reduce((n, s) => n + (s.pending ?? 0), 0)
      return { kind: 'pending', headline: `${plural(Math.max(1, edits), 'edit')} waiting to be sent` }
    }
    case 'paused':
      return { kind: 'paused', headline: `Paused${queuedTail(queuedIn(selected))}`, detail: `nothing is sent or fetched until you resume; ${lastSynced(newest, now)}`, wayOut: 'resume' }
    case 'synced':
      return { kind: 'synced', headline: 'In sync', detail: lastSynced(newest, now) }
  }
}

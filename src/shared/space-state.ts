/**
 * One state per space, one type: the engine derives it, emits every change as an event with its from
 * and to (Syncthing's folder states are the model), and `quire status`, the tray, the renderer and
 * notifications all read this same value. Plain data and pure functions: no Node, no Electron.
 */
export type SpaceSyncState =
  /** The service refused the saved token: nothing syncs until the writer signs in again. */
  | { kind: 'signed-out'; reason: string }
  /** `queued`: operations written while offline, sent once the service is back (absent when none). */
  | { kind: 'offline'; reason: string; queued?: number }
  /** A pass or push is running (or due: a space never synced yet); counts when known. */
  | { kind: 'syncing'; done: number; total: number }
  /** Local edits (outbox operations) wait to be sent. */
  | { kind: 'pending'; edits: number }
  /** Files the writer has to look at: conflicted copies, kept local edits, blocked paths. */
  | { kind: 'conflict'; files: string[] }
  | { kind: 'error'; reason: string }
  /** `queued`: operations waiting for the resume (absent when none). */
  | { kind: 'paused'; queued?: number }
  | { kind: 'synced' }

export type SpaceStateKind = SpaceSyncState['kind']

/** How bad a state is: the worst space decides the app's and the tray's state. */
export const STATE_RANK: Record<SpaceStateKind, number> = {
  'signed-out': 8,
  error: 7,
  conflict: 6,
  offline: 5,
  syncing: 4,
  pending: 3,
  paused: 2,
  synced: 1,
}

/** What the engine knows of a space, from which its state follows. */
export interface SpaceFacts {
  /** The folder's state as the last pass left it (`idle`: never synced). */
  folder: 'idle' | 'syncing' | 'synced' | 'offline' | 'error' | 'conflict'
  lastError?: string
  /** What the last pass could not do; `local-edit` is a kept edit (sync up sends it). */
  issues: ReadonlyArray<{ kind: string; message: string; path?: string }>
  /** A pass or push is working on the space now. */
  running?: { done: number; total: number }
  paused: boolean
  /**
   * Why the service cannot be reached, when the session's last request got no answer at all (cleared by
   * the next answer). Outranks work running: a push waiting out its retries is offline, not syncing.
   */
  unreachable?: string
  /** The service refused the token (HTTP 401). */
  authError?: string
  /** Sync up is on: a kept local edit is on its way, not a problem. */
  pushesEdits: boolean
  /** Outbox operations written and not yet answered. */
  pendingEdits: number
  /** Why the last push stopped before the outbox was empty (offline and the like). */
  pushStopped?: { reason: string; message: string }
  /** Changes the service refused, with the files they came from. */
  refused: ReadonlyArray<{ files: string[]; error: string }>
  /** Conflicted copies on disk, by the file they belong to. */
  conflicts: ReadonlyArray<{ path: string; copy: string }>
}

const BLOCKING = new Set(['local-edit', 'path-occupied', 'mass-delete'])

export function deriveSpaceState(f: SpaceFacts): SpaceSyncState {
  if (f.authError !== undefined) return { kind: 'signed-out', reason: f.authError }
  const queued = f.pendingEdits > 0 ? { queued: f.pendingEdits } : {}
  if (f.running) return f.unreachable !== undefined ? { kind: 'offline', reason: f.unreachable, ...queued } : { kind: 'syncing', ...f.running }
  const issues = f.pushesEdits ? f.issues.filter((i) => i.kind !== 'local-edit') : f.issues
  const blocked = issues.filter((i) => BLOCKING.has(i.kind))
  if (f.conflicts.length > 0 || blocked.length > 0) {
    return { kind: 'conflict', files: [...new Set([...f.conflicts.map((c) => c.path), ...blocked.map((i) => i.path ?? i.message)])] }
  }
  const failed = issues.filter((i) => i.kind === 'failed')
  if (failed.length > 0) return { kind: 'error', reason: failed.map((i) => i.message).slice(0, 3).join('; ') }
  if (f.refused.length > 0) {
    const first = f.refused[0]
    return { kind: 'error', reason: `the service refused a change${first.files.length > 0 ? ` of ${first.files.join(', ')}` : ''}: ${first.error}` }
  }
  if (f.unreachable !== undefined) return { kind: 'offline', reason: f.unreachable, ...queued }
  // Stored offline facts stand until some answer says otherwise (a push or pass that reached the service).
  if (f.folder === 'offline' || f.pushStopped?.reason === 'offline') return { kind: 'offline', reason: f.pushStopped?.message ?? f.lastError ?? 'the service cannot be reached', ...queued }
  // An error with no issues is a pass that threw.
  if (f.folder === 'error' && (issues.length > 0 || f.issues.length === 0)) return { kind: 'error', reason: f.lastError ?? 'the last pass failed' }
  if (f.paused) return { kind: 'paused', ...queued }
  if (f.pendingEdits > 0) return { kind: 'pending', edits: f.pendingEdits }
  if (f.folder === 'idle' || f.folder === 'syncing') return { kind: 'syncing', done: 0, total: 0 }
  return { kind: 'synced' }
}

/** The worst of several spaces' states (synced when there are none). */
export function worstState(states: Iterable<SpaceStateKind>): SpaceStateKind {
  let worst: SpaceStateKind = 'synced'
  for (const state of states) if (STATE_RANK[state] > STATE_RANK[worst]) worst = state
  return worst
}

/** Whether two states say the same thing (events are emitted only on a change). */
export function sameState(a: SpaceSyncState | undefined, b: SpaceSyncState | undefined): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** "3 changes queued": local edits, comments, reviews written to the outbox and not sent yet. */
export function queuedWords(count: number): string {
  return `${count} change${count === 1 ? '' : 's'} queued`
}

/** One line for a person: the CLI's status, the tray's tooltip, the renderer's badge title. */
export function describeState(state: SpaceSyncState): string {
  switch (state.kind) {
    case 'signed-out':
      return `signed out: ${state.reason}; sign in again`
    case 'offline':
      return `offline: ${state.reason}${state.queued ? `; ${queuedWords(state.queued)}` : ''}`
    case 'syncing':
      return state.total > 0 ? `syncing (${state.done} of ${state.total})` : 'syncing'
    case 'pending':
      return `${state.edits} local change${state.edits === 1 ? '' : 's'} waiting to be sent`
    case 'conflict':
      return `conflict: ${state.files.join(', ')}`
    case 'error':
      return `error: ${state.reason}`
    case 'paused':
      return state.queued ? `paused; ${queuedWords(state.queued)}` : 'paused'
    case 'synced':
      return 'in sync'
  }
}

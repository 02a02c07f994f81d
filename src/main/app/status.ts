import type { OverallState, SpaceNode, SpaceState } from '../../shared/contract'
import type { SpaceRow } from '../engine/cache/cache-repository'

/** How bad a state is: the worst selected space decides the app's (and the tray's) state. */
const RANK: Record<SpaceState, number> = { error: 6, conflict: 5, offline: 4, syncing: 3, idle: 3, paused: 2, synced: 1 }

export function overallState(signedIn: boolean, paused: boolean, spaces: readonly Pick<SpaceNode, 'state'>[]): OverallState {
  if (!signedIn) return 'signed-out'
  let worst: SpaceState = 'synced'
  for (const space of spaces) if (RANK[space.state] > RANK[worst]) worst = space.state
  // Pausing hides progress and success, never trouble.
  if (paused && RANK[worst] < RANK.offline) return 'paused'
  // A space waiting for its first pass is work to do: the app is syncing.
  return worst === 'idle' ? 'syncing' : worst
}

/**
 * A space's state as the user sees it, from the cache's folder state and what the running pass says:
 * kept local edits that hold back a remote change, blocked paths and a mass deletion waiting for the
 * user's word are conflicts to look at (the engine files them as errors; the app shows them apart).
 */
export function spaceState(
  row: Pick<SpaceRow, 'state' | 'issues'>,
  running: boolean,
  paused: boolean,
  syncUp: { pushesEdits: boolean; openConflicts: number } = { pushesEdits: false, openConflicts: 0 },
): SpaceState {
  if (running) return 'syncing'
  // With sync up on, a local edit the pass kept is on its way to a change request, not a problem.
  const issues = syncUp.pushesEdits ? row.issues.filter((i) => i.kind !== 'local-edit') : row.issues
  if (syncUp.openConflicts > 0 || issues.some((i) => i.kind === 'local-edit' || i.kind === 'path-occupied' || i.kind === 'mass-delete')) return 'conflict'
  if (row.state === 'offline') return 'offline'
  if (issues.some((i) => i.kind === 'failed')) return 'error'
  // An error with no issues is a pass that threw; one whose only issues were pushed edits is not an error.
  if (row.state === 'error' && (issues.length > 0 || row.issues.length === 0)) return 'error'
  if (paused) return 'paused'
  if (row.state === 'syncing') return 'idle' // a pass that stopped part way: the next one resumes it
  return row.state === 'synced' || row.state === 'error' ? 'synced' : 'idle'
}

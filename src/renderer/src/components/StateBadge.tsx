import type { OverallState, SpaceState } from '../../../shared/contract'

const LABELS: Record<OverallState | SpaceState, string> = {
  synced: 'In sync',
  syncing: 'Syncing',
  paused: 'Paused',
  offline: 'Offline',
  error: 'Error',
  conflict: 'Needs attention',
  pending: 'Changes waiting',
  'signed-out': 'Signed out',
}

/** A state as words and color; the words carry the meaning, the color only repeats it. */
export function StateBadge({ state }: { state: OverallState | SpaceState }) {
  return <span className={`badge state-${state}`}>{LABELS[state]}</span>
}

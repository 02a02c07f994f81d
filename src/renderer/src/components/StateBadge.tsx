import type { OverallState, SpaceState } from '../../../shared/contract'
import { STATE_LABEL } from '../../../shared/status-words'

/** A state as words and color; the words carry the meaning, the color only repeats it. */
export function StateBadge({ state, label }: { state: OverallState | SpaceState | 'nothing-selected'; label?: string }) {
  return <span className={`badge state-${state}`}>{label ?? (state === 'nothing-selected' ? 'Nothing selected' : STATE_LABEL[state])}</span>
}

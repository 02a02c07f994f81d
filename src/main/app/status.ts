import type { OverallState, SpaceNode } from '../../shared/contract'
import { describeState, worstState, type SpaceSyncState } from '../../shared/space-state'
import type { SpaceRow } from '../engine'

/** The app's (and the tray's) state: signed out, or the worst selected space's; pausing hides progress and success, never trouble. */
export function overallState(signedIn: boolean, spaces: readonly Pick<SpaceNode, 'state'>[]): OverallState {
  if (!signedIn) return 'signed-out'
  return worstState(spaces.map((s) => s.state))
}

/** A space as the renderer shows it: the engine's one state, with what the cache knows beside it. */
export function spaceNode(row: SpaceRow, derived: SpaceSyncState | undefined, extra: { pageCount: number; folder?: string; synced: boolean }): SpaceNode {
  // A space nobody chose (by itself, or through its organization or collection) is not being synced: for it, Quire is paused.
  const state: SpaceSyncState | undefined = extra.synced ? derived : { kind: 'paused' }
  const trouble = state && (state.kind === 'error' || state.kind === 'offline' || state.kind === 'signed-out' || state.kind === 'conflict')
  return {
    id: row.id,
    title: row.title,
    selected: row.selected,
    synced: extra.synced,
    state: state?.kind ?? 'synced',
    ...(row.syncedRevision ? { revision: row.syncedRevision } : {}),
    ...(extra.pageCount > 0 ? { pageCount: extra.pageCount } : {}),
    ...(row.lastSyncAt ? { lastSyncAt: row.lastSyncAt } : {}),
    ...(trouble ? { lastError: describeState(state) } : {}),
    ...(state?.kind === 'syncing' && state.total > 0 ? { progress: state.done / state.total, syncDone: state.done, syncTotal: state.total } : {}),
    ...(state && 'reason' in state ? { reason: state.reason } : {}),
    ...(state?.kind === 'pending' ? { pending: state.edits } : {}),
    ...((state?.kind === 'offline' || state?.kind === 'paused') && state.queued ? { pending: state.queued } : {}),
    ...(state?.kind === 'conflict' ? { conflictFiles: state.files } : {}),
    ...(extra.folder ? { folder: extra.folder } : {}),
  }
}

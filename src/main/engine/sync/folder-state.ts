import type { SpaceIssue, SpaceState } from '../cache/cache-repository'
import type { ExecutionResult } from './executor'
import type { SyncPlan } from './plan-types'

/**
 * The state of one space folder, decided from what happened and nothing else (Syncthing keeps folder
 * states apart from the scanner and puller the same way). The engine persists what this returns.
 */
export interface FolderStatus {
  state: SpaceState
  /** One line for `quire status` and the exit message; undefined when all is well. */
  message?: string
  issues: SpaceIssue[]
  /** Set when the folder now matches this revision. */
  syncedRevision?: string
}

export type FolderEvent =
  | { type: 'unchanged'; revision: string }
  | { type: 'planned'; plan: SyncPlan }
  | { type: 'executed'; plan: SyncPlan; result: ExecutionResult }
  | { type: 'offline'; message: string }
  | { type: 'failed'; message: string }

export function folderStatus(event: FolderEvent): FolderStatus {
  switch (event.type) {
    case 'unchanged':
      return { state: 'synced', issues: [], syncedRevision: event.revision }
    case 'offline':
      return { state: 'offline', message: event.message, issues: [] }
    case 'failed':
      return { state: 'error', message: event.message, issues: [{ kind: 'failed', message: event.message }] }
    case 'planned': {
      const blocked = event.plan.blocked
      if (blocked) {
        const message = `stopped: this pass would delete ${blocked.deletions} of ${blocked.total} files; run again with --allow-mass-delete if that is intended`
        return { state: 'error', message, issues: [{ kind: 'mass-delete', message }] }
      }
      return { state: 'syncing', issues: noticeIssues(event.plan) }
    }
    case 'executed': {
      const issues = [
        ...noticeIssues(event.plan),
        ...event.result.skipped.map((s): SpaceIssue => ({ kind: 'local-edit', path: actionPath(s.action), message: `${s.reason}; left as is` })),
        ...event.result.failed.map((f): SpaceIssue => ({ kind: 'failed', path: actionPath(f.action), message: f.error })),
      ]
      if (issues.length === 0) return { state: 'synced', issues, syncedRevision: event.plan.revision }
      const held = issues.filter((i) => i.kind !== 'failed').length
      const failed = issues.length - held
      const parts = [held > 0 ? `${held} remote change${held === 1 ? '' : 's'} held back by local files` : '', failed > 0 ? `${failed} step${failed === 1 ? '' : 's'} failed` : '']
      // Remote changes held back by local edits are a conflict for sync up to resolve, not a failure.
      return { state: failed > 0 ? 'error' : 'conflict', message: parts.filter(Boolean).join(', '), issues }
    }
  }
}

function noticeIssues(plan: SyncPlan): SpaceIssue[] {
  return plan.notices.map((n): SpaceIssue => {
    if (n.type === 'path-occupied') return { kind: 'path-occupied', path: n.path, message: `${n.path}: a local file that Quire did not write is in the way; not overwritten` }
    return { kind: 'local-edit', path: n.path, message: `${n.path}: edited locally, remote ${n.remote === 'deleted' ? 'deletion' : n.remote === 'moved' ? 'move' : 'change'} not applied` }
  })
}

function actionPath(action: ExecutionResult['failed'][number]['action']): string | undefined {
  return action.type === 'move' ? action.from : action.type === 'forget' ? undefined : action.path
}

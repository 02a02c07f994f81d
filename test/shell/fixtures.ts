import type { ChangeRequestSummary, CommentThread, SessionInfo, SpaceNode, StatusSnapshot } from '../../src/shared/contract'
import type { WatchSnapshot } from '../../src/main/shell/notification-rules'
import { worstState } from '../../src/shared/space-state'

export function space(id: string, state: SpaceNode['state'], extra: Partial<SpaceNode> = {}): SpaceNode {
  return { id, title: `Space ${id}`, selected: true, synced: true, state, ...extra }
}

export function status(spaces: SpaceNode[], extra: Partial<StatusSnapshot> = {}): StatusSnapshot {
  // The overall state as the backend derives it: the worst synced space's.
  const overall = worstState(spaces.filter((s) => s.synced).map((s) => s.state))
  return { overall, paused: false, spaces, brokenLinks: 0, conflicts: [], updatedAt: '2025-01-01T00:00:00.000Z', ...extra }
}

export const writer: SessionInfo = { signedIn: true, endpoint: 'http://127.0.0.1:4000', user: { id: 'u1', displayName: 'Wendy Writer' }, demo: true }

export function cr(id: string, statusName: string, extra: Partial<ChangeRequestSummary> = {}): ChangeRequestSummary {
  return {
    id,
    spaceId: 's1',
    spaceTitle: 'Space s1',
    number: Number(id.replace(/\D/g, '')) || 1,
    subject: `Change ${id}`,
    status: statusName,
    outdated: false,
    mine: true,
    createdBy: 'Wendy Writer',
    updatedAt: '2025-01-01T00:00:00.000Z',
    canMerge: true,
    ...extra,
  }
}

export function thread(id: string, author: string, replies: Array<{ id: string; author: string; markdown?: string }> = [], extra: Partial<CommentThread> = {}): CommentThread {
  return {
    id,
    author,
    postedAt: '2025-01-01T00:00:00.000Z',
    markdown: `comment ${id}`,
    resolved: false,
    replies: replies.map((r) => ({ id: r.id, author: r.author, postedAt: '2025-01-01T00:00:00.000Z', markdown: r.markdown ?? `reply ${r.id}` })),
    ...extra,
  }
}

export function snapshot(extra: Partial<WatchSnapshot> = {}): WatchSnapshot {
  return { session: writer, status: status([space('s1', 'synced')]), changeRequests: [], threads: [], ...extra }
}

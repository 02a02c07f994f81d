import type { AppScreen, ChangeRequestSummary, CommentThread, QuireEvent, SessionInfo, StatusSnapshot } from '../../shared/contract'

/** The part of the world notifications are computed from, gathered by the shell at each look. */
export interface WatchSnapshot {
  session: SessionInfo
  status: StatusSnapshot
  /** The writer's change requests (merged ones included, so a merge is seen as a status change). */
  changeRequests: ChangeRequestSummary[]
  /** Comment threads of the selected spaces. */
  threads: Array<{ spaceId: string; spaceTitle: string; thread: CommentThread }>
}

export type NotificationKind = 'change-request-merged' | 'comment-reply' | 'conflict' | 'auth-error' | 'review-requested' | 'review-received' | 'tray-action-failed'

export interface DesktopNotification {
  kind: NotificationKind
  /** Stable identity of the news, so the shell never shows the same thing twice. */
  key: string
  title: string
  body: string
  /** Where a click on the notification takes the user: a screen of the app, or the page in the browser. */
  open: { kind: 'screen'; screen: AppScreen } | { kind: 'url'; url: string }
}

// Past this many of one kind in one look, one summary says more than a stack of toasts.
const MAX_PER_KIND = 3

const conflictKey = (c: { spaceId: string; path: string }) => `conflict:${c.spaceId}:${c.path}`

function excerpt(markdown: string, max = 120): string {
  const text = markdown.replace(/\s+/g, ' ').trim()
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** Whether `author` is the signed-in writer: the backend's `mine` flag when it gives one, else the name. */
function isWriter(item: { author: string; mine?: boolean }, session: SessionInfo): boolean {
  if (item.mine !== undefined) return item.mine
  return session.user !== undefined && item.author === session.user.displayName
}

function capped(list: DesktopNotification[], summary: (n: number) => Omit<DesktopNotification, 'key' | 'kind'>): DesktopNotification[] {
  if (list.length <= MAX_PER_KIND) return list
  return [{ kind: list[0].kind, key: list.map((n) => n.key).sort().join('|'), ...summary(list.length) }]
}

function authErrors(previous: WatchSnapshot | undefined, next: WatchSnapshot, events: readonly QuireEvent[]): DesktopNotification[] {
  const seen = [...events.flatMap((e) => (e.type === 'session' ? [e.session] : [])), next.session]
  const error = seen.find((s) => s.authError)?.authError
  // Told once per rejected token: a stored token that keeps failing is one problem, not one per look.
  if (!error || previous?.session.authError) return []
  return [
    {
      kind: 'auth-error',
      key: `auth-error:${next.session.endpoint ?? ''}`,
      title: 'Quire cannot sign in',
      body: `The service rejected the saved token (${excerpt(error, 80)}). Open Quire to sign in again.`,
      open: { kind: 'screen', screen: 'spaces' },
    },
  ]
}

function newConflicts(previous: WatchSnapshot, next: WatchSnapshot, events: readonly QuireEvent[]): DesktopNotification[] {
  const known = new Set(previous.status.conflicts.map(conflictKey))
  // Conflicts seen in status events between two looks count too, even if resolved by the second.
  const seen = [...events.flatMap((e) => (e.type === 'status' ? e.status.conflicts : [])), ...next.status.conflicts]
  const titles = new Map([...previous.status.spaces, ...next.status.spaces].map((s) => [s.id, s.title]))
  const out = new Map<string, DesktopNotification>()
  for (const conflict of seen) {
    const key = conflictKey(conflict)
    if (known.has(key) || out.has(key)) continue
    out.set(key, {
      kind: 'conflict',
      key,
      title: `Conflict in ${titles.get(conflict.spaceId) ?? 'a space'}`,
      body: `${conflict.path} changed here and on the service. Both versions are kept: ${conflict.copyPath}`,
      open: { kind: 'screen', screen: 'spaces' },
    })
  }
  return capped([...out.values()], (n) => ({
    title: `${n} new conflicts`,
    body: 'Files changed here and on the service. Both versions are kept.',
    open: { kind: 'screen', screen: 'spaces' },
  }))
}

function mergedChangeRequests(previous: WatchSnapshot, next: WatchSnapshot): DesktopNotification[] {
  const before = new Map(previous.changeRequests.map((cr) => [cr.id, cr.status]))
  const out: DesktopNotification[] = []
  for (const cr of next.changeRequests) {
    const was = before.get(cr.id)
    // Only a change observed from open to merged is news; a merged one seen for the first time is history.
    if (!cr.mine || cr.status !== 'merged' || was === undefined || was === 'merged') continue
    out.push({
      kind: 'change-request-merged',
      key: `merged:${cr.id}`,
      title: 'Change request merged',
      body: `#${cr.number} ${cr.subject} in ${cr.spaceTitle}`,
      open: cr.appUrl ? { kind: 'url', url: cr.appUrl } : { kind: 'screen', screen: 'change-requests' },
    })
  }
  return capped(out, (n) => ({ title: `${n} change requests merged`, body: 'Your change requests were merged.', open: { kind: 'screen', screen: 'change-requests' } }))
}

function newReplies(previous: WatchSnapshot, next: WatchSnapshot): DesktopNotification[] {
  const before = new Map(previous.threads.map((t) => [`${t.spaceId}:${t.thread.id}`, new Set(t.thread.replies.map((r) => r.id))]))
  const out: DesktopNotification[] = []
  for (const { spaceId, spaceTitle, thread } of next.threads) {
    const known = before.get(`${spaceId}:${thread.id}`)
    if (!known || !isWriter(thread, next.session)) continue
    for (const reply of thread.replies) {
      if (known.has(reply.id) || isWriter(reply, next.session)) continue
      out.push({
        kind: 'comment-reply',
        key: `reply:${spaceId}:${thread.id}:${reply.id}`,
        title: `${reply.author} replied to your comment`,
        body: `${spaceTitle}: ${excerpt(reply.markdown)}`,
        open: { kind: 'screen', screen: 'comments' },
      })
    }
  }
  return capped(out, (n) => ({ title: `${n} new replies to your comments`, body: 'Open Quire to read them.', open: { kind: 'screen', screen: 'comments' } }))
}

/** Review news the backend told as events (it compares its own looks, so each is news once): asked to review, a review arrived. */
function reviewNews(events: readonly QuireEvent[]): DesktopNotification[] {
  return events.flatMap((e): DesktopNotification[] =>
    e.type === 'review'
      ? [{ kind: e.news.kind, key: e.news.key, title: e.news.title, body: e.news.body, open: { kind: 'screen', screen: e.news.kind === 'review-requested' ? 'for-review' : 'change-requests' } }]
      : [],
  )
}

const sameAccount = (a: SessionInfo, b: SessionInfo) => a.signedIn && b.signedIn && a.endpoint === b.endpoint && a.user?.id === b.user?.id

/**
 * Notifications owed to the user going from `previous` to `next`, given the events received in between:
 * a change request of theirs merged, a new reply to a comment they wrote, a new conflict, the service
 * rejecting the token. The first look (no previous, or another account) reports only an authentication
 * error: everything else that is already there is history, not news.
 */
export function notificationsFor(previous: WatchSnapshot | undefined, next: WatchSnapshot, events: readonly QuireEvent[] = []): DesktopNotification[] {
  const comparable = previous && sameAccount(previous.session, next.session) ? previous : undefined
  const out = [...authErrors(previous, next, events), ...reviewNews(events)]
  if (!comparable) return out
  return [...out, ...newConflicts(comparable, next, events), ...mergedChangeRequests(comparable, next), ...newReplies(comparable, next)]
}

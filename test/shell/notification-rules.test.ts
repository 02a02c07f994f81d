import { describe, expect, it } from 'vitest'
import { notificationsFor } from '../../src/main/shell/notification-rules'
import { cr, snapshot, space, status, thread, writer } from './fixtures'

const conflict = (path: string, spaceId = 's1') => ({ spaceId, path, copyPath: `${path} (conflicted copy)` })

describe('notification rules', () => {
  it('announces nothing on the first look but an authentication error', () => {
    const busy = snapshot({
      status: status([space('s1', 'conflict')], { conflicts: [conflict('a.md')] }),
      changeRequests: [cr('cr1', 'merged')],
      threads: [{ spaceId: 's1', spaceTitle: 'Space s1', thread: thread('t1', 'Wendy Writer', [{ id: 'r1', author: 'Rita Reviewer' }]) }],
    })
    expect(notificationsFor(undefined, busy, [])).toEqual([])
    const rejected = snapshot({ session: { ...writer, authError: 'HTTP 401 token expired' } })
    expect(notificationsFor(undefined, rejected, []).map((n) => n.kind)).toEqual(['auth-error'])
  })

  it("announces the writer's change request going from open to merged, with a link to it", () => {
    const before = snapshot({ changeRequests: [cr('cr1', 'open', { appUrl: 'https://app.example/cr/1' }), cr('cr2', 'open')] })
    const after = snapshot({ changeRequests: [cr('cr1', 'merged', { appUrl: 'https://app.example/cr/1' }), cr('cr2', 'open')] })
    const news = notificationsFor(before, after, [])
    expect(news).toHaveLength(1)
    expect(news[0]).toMatchObject({ kind: 'change-request-merged', key: 'merged:cr1', body: '#1 Change cr1 in Space s1', open: { kind: 'url', url: 'https://app.example/cr/1' } })
  })

  it("stays quiet about other people's merges, merges already known, and merges never seen open", () => {
    const before = snapshot({ changeRequests: [cr('cr1', 'open', { mine: false }), cr('cr2', 'merged')] })
    const after = snapshot({ changeRequests: [cr('cr1', 'merged', { mine: false }), cr('cr2', 'merged'), cr('cr3', 'merged')] })
    expect(notificationsFor(before, after, [])).toEqual([])
  })

  it('opens the change requests screen for a merged one without a link', () => {
    const news = notificationsFor(snapshot({ changeRequests: [cr('cr1', 'open')] }), snapshot({ changeRequests: [cr('cr1', 'merged')] }), [])
    expect(news[0].open).toEqual({ kind: 'screen', screen: 'change-requests' })
  })

  it("announces a new reply by someone else to the writer's comment, not the writer's own", () => {
    const t = (replies: Array<{ id: string; author: string; markdown?: string }>) => [{ spaceId: 's1', spaceTitle: 'Space s1', thread: thread('t1', 'Wendy Writer', replies) }]
    const before = snapshot({ threads: t([{ id: 'r1', author: 'Rita Reviewer' }]) })
    const after = snapshot({
      threads: t([
        { id: 'r1', author: 'Rita Reviewer' },
        { id: 'r2', author: 'Wendy Writer' },
        { id: 'r3', author: 'Rita Reviewer', markdown: 'Looks   good,\nship it' },
      ]),
    })
    const news = notificationsFor(before, after, [])
    expect(news).toEqual([
      {
        kind: 'comment-reply',
        key: 'reply:s1:t1:r3',
        title: 'Rita Reviewer replied to your comment',
        body: 'Space s1: Looks good, ship it',
        open: { kind: 'screen', screen: 'comments' },
      },
    ])
  })

  it("ignores replies to other people's threads, and prefers the backend's `mine` flag to names", () => {
    const entry = (author: string, mine: boolean | undefined, replies: Array<{ id: string; author: string }>) => ({
      spaceId: 's1',
      spaceTitle: 'Space s1',
      thread: thread('t1', author, replies, mine === undefined ? {} : { mine }),
    })
    expect(notificationsFor(snapshot({ threads: [entry('Rita', undefined, [])] }), snapshot({ threads: [entry('Rita', undefined, [{ id: 'r1', author: 'Sam' }])] }), [])).toEqual([])
    // Same display name as the writer, but the backend knows it is someone else.
    expect(notificationsFor(snapshot({ threads: [entry('Wendy Writer', false, [])] }), snapshot({ threads: [entry('Wendy Writer', false, [{ id: 'r1', author: 'Sam' }])] }), [])).toEqual([])
    expect(notificationsFor(snapshot({ threads: [entry('W. Writer', true, [])] }), snapshot({ threads: [entry('W. Writer', true, [{ id: 'r1', author: 'Sam' }])] }), [])).toHaveLength(1)
  })

  it('announces each new conflict once, including one seen only in a status event between two looks', () => {
    const before = snapshot({ status: status([space('s1', 'synced')], { conflicts: [conflict('old.md')] }) })
    const after = snapshot({ status: status([space('s1', 'conflict')], { conflicts: [conflict('old.md'), conflict('new.md')] }) })
    const passing = { type: 'status' as const, status: status([space('s1', 'conflict')], { conflicts: [conflict('brief.md'), conflict('new.md')] }) }
    const news = notificationsFor(before, after, [passing, passing])
    expect(news.map((n) => n.key)).toEqual(['conflict:s1:brief.md', 'conflict:s1:new.md'])
    expect(news[1]).toMatchObject({
      title: 'Conflict in Space s1',
      body: 'new.md changed here and on the service. Both versions are kept: new.md (conflicted copy)',
      open: { kind: 'screen', screen: 'spaces' },
    })
  })

  it('sums up a flood of one kind in one notification', () => {
    const before = snapshot()
    const after = snapshot({ status: status([space('s1', 'conflict')], { conflicts: ['a', 'b', 'c', 'd', 'e'].map((p) => conflict(`${p}.md`)) }) })
    const news = notificationsFor(before, after, [])
    expect(news).toHaveLength(1)
    expect(news[0]).toMatchObject({ kind: 'conflict', title: '5 new conflicts' })
  })

  it('tells about a rejected token once, from the session or from a session event', () => {
    const rejected = { ...writer, authError: 'token revoked' }
    const fromEvent = notificationsFor(snapshot(), snapshot(), [{ type: 'session', session: rejected }])
    expect(fromEvent).toHaveLength(1)
    expect(fromEvent[0]).toMatchObject({ kind: 'auth-error', open: { kind: 'screen', screen: 'spaces' } })
    expect(fromEvent[0].body).toContain('token revoked')
    expect(notificationsFor(snapshot({ session: rejected }), snapshot({ session: rejected }), [])).toEqual([])
  })

  it('does not compare two different accounts', () => {
    const other = { ...writer, user: { id: 'u2', displayName: 'Otto' } }
    const before = snapshot({ session: other, changeRequests: [cr('cr1', 'open')] })
    const after = snapshot({ changeRequests: [cr('cr1', 'merged')] })
    expect(notificationsFor(before, after, [])).toEqual([])
  })
})

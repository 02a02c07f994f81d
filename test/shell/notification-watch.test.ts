import { beforeEach, describe, expect, it, vi } from 'vitest'
import type { ChangeRequestSummary, CommentThread, SessionInfo, Settings, StatusSnapshot } from '../../src/shared/contract'
import { DesktopNotifier } from '../../src/main/shell/desktop-notifier'
import { NotificationWatch, type WatchDeps } from '../../src/main/shell/notification-watch'
import type { DesktopNotification } from '../../src/main/shell/notification-rules'
import { Notification, resetElectronMock } from './electron-mock'
import { cr, space, status, thread, writer } from './fixtures'

vi.mock('electron', () => import('./electron-mock'))

/** A backend whose answers the test changes between looks. */
function world() {
  const state = {
    session: writer as SessionInfo,
    status: status([space('s1', 'synced')]) as StatusSnapshot,
    changeRequests: [cr('cr1', 'open')] as ChangeRequestSummary[],
    threads: [thread('t1', 'Wendy Writer')] as CommentThread[],
    notifications: true,
    fail: false,
  }
  const api: WatchDeps['api'] = {
    getSession: async () => {
      if (state.fail) throw new Error('the sync engine stopped')
      return state.session
    },
    getStatus: async () => state.status,
    listChangeRequests: vi.fn(async () => state.changeRequests),
    listComments: vi.fn(async () => state.threads),
    getSettings: async () => ({ notifications: state.notifications }) as Settings,
  }
  return { state, api }
}

describe('notification watch', () => {
  beforeEach(() => resetElectronMock())

  it('shows what changed between two looks, once', async () => {
    const { state, api } = world()
    const shown: DesktopNotification[] = []
    const watch = new NotificationWatch({ api, show: (n) => shown.push(n), log: () => {} })
    await watch.look()
    expect(shown).toEqual([])
    state.changeRequests = [cr('cr1', 'merged')]
    state.threads = [thread('t1', 'Wendy Writer', [{ id: 'r1', author: 'Rita' }])]
    await watch.look()
    expect(shown.map((n) => n.kind).sort()).toEqual(['change-request-merged', 'comment-reply'])
    await watch.look()
    expect(shown).toHaveLength(2)
    expect(api.listChangeRequests).toHaveBeenCalledWith({ mine: true })
    expect(api.listComments).toHaveBeenCalledWith({ spaceId: 's1' })
  })

  it('stays silent when the user turned notifications off', async () => {
    const { state, api } = world()
    const show = vi.fn()
    const watch = new NotificationWatch({ api, show, log: () => {} })
    await watch.look()
    state.notifications = false
    state.changeRequests = [cr('cr1', 'merged')]
    await watch.look()
    expect(show).not.toHaveBeenCalled()
  })

  it('keeps the events of a failed look for the next one', async () => {
    const { state, api } = world()
    const shown: DesktopNotification[] = []
    const log = vi.fn()
    const watch = new NotificationWatch({ api, show: (n) => shown.push(n), log })
    await watch.look()
    state.fail = true
    watch.record({ type: 'status', status: status([space('s1', 'conflict')], { conflicts: [{ spaceId: 's1', path: 'a.md', copyPath: 'a (copy).md' }] }) })
    await watch.look()
    expect(log).toHaveBeenCalledWith(expect.stringContaining('the sync engine stopped'))
    state.fail = false
    await watch.look()
    expect(shown.map((n) => n.key)).toEqual(['conflict:s1:a.md'])
    watch.dispose()
  })

  it('folds overlapping looks into one more', async () => {
    const { api } = world()
    const watch = new NotificationWatch({ api, show: () => {}, log: () => {} })
    await Promise.all([watch.look(), watch.look(), watch.look()])
    await new Promise((resolve) => setTimeout(resolve, 10))
    expect(vi.mocked(api.listChangeRequests).mock.calls.length).toBe(2)
  })
})

describe('desktop notifier', () => {
  beforeEach(() => resetElectronMock())

  it('shows an OS notification and follows its click', () => {
    const open = vi.fn()
    const notifier = new DesktopNotifier({ isSupported: () => Notification.isSupported(), create: (o) => new Notification(o as { title: string; body: string }) as never }, open)
    notifier.show({ kind: 'conflict', key: 'k', title: 'Conflict in Docs', body: 'a.md', open: { kind: 'screen', screen: 'spaces' } })
    expect(Notification.shown).toHaveLength(1)
    expect(Notification.shown[0].options).toMatchObject({ title: 'Conflict in Docs', body: 'a.md' })
    expect(notifier.pending).toBe(1)
    Notification.shown[0].emit('click')
    expect(open).toHaveBeenCalledWith({ kind: 'screen', screen: 'spaces' })
    expect(notifier.pending).toBe(0)
  })

  it('does nothing where the OS has no notifications', () => {
    Notification.isSupported.mockReturnValueOnce(false)
    const notifier = new DesktopNotifier({ isSupported: () => Notification.isSupported(), create: (o) => new Notification(o as { title: string; body: string }) as never }, vi.fn())
    notifier.show({ kind: 'auth-error', key: 'k', title: 't', body: 'b', open: { kind: 'screen', screen: 'spaces' } })
    expect(Notification.shown).toHaveLength(0)
  })
})

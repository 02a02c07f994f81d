import type { MenuItemConstructorOptions } from 'electron'
import { describe, expect, it, vi } from 'vitest'
import { trayMenuTemplate, trayStateLabel, type TrayActions } from '../../src/main/shell/tray-menu'
import { space, status, writer } from './fixtures'

function actions() {
  return {
    syncNow: vi.fn<() => void>(),
    setPaused: vi.fn<(paused: boolean) => void>(),
    openWorkspaceFolder: vi.fn<() => void>(),
    openInBrowser: vi.fn<(url: string) => void>(),
    showBrokenLinks: vi.fn<() => void>(),
    openQuire: vi.fn<() => void>(),
    quit: vi.fn<() => void>(),
  } satisfies TrayActions
}

const item = (menu: MenuItemConstructorOptions[], id: string) => {
  const found = menu.find((m) => m.id === id)
  if (!found) throw new Error(`no menu item ${id}`)
  return found
}

// Menu click handlers get (menuItem, window, event); the tray's ignore them.
const click = (entry: MenuItemConstructorOptions) => (entry.click as () => void)()

describe('tray menu', () => {
  it('has the items of the spec, in order', () => {
    const menu = trayMenuTemplate({ status: status([space('a', 'synced')]), session: writer }, actions())
    expect(menu.filter((m) => m.type !== 'separator').map((m) => m.label)).toEqual([
      'In sync',
      'Sync now',
      'Pause',
      'Open workspace folder',
      'Open in browser',
      'Broken links: 0',
      'Open Quire',
      'Quit',
    ])
    expect(item(menu, 'state').enabled).toBe(false)
  })

  it('wires every item to its action', () => {
    const a = actions()
    const menu = trayMenuTemplate({ status: status([space('a', 'synced', { appUrl: 'https://app.example/s/a' })], { brokenLinks: 3 }), session: writer }, a)
    click(item(menu, 'sync-now'))
    click(item(menu, 'pause'))
    click(item(menu, 'open-folder'))
    click(item(menu, 'open-in-browser'))
    click(item(menu, 'broken-links'))
    click(item(menu, 'open-quire'))
    click(item(menu, 'quit'))
    expect(a.syncNow).toHaveBeenCalledOnce()
    expect(a.setPaused).toHaveBeenCalledWith(true)
    expect(a.openWorkspaceFolder).toHaveBeenCalledOnce()
    expect(a.openInBrowser).toHaveBeenCalledWith('https://app.example/s/a', 'Space a')
    expect(a.showBrokenLinks).toHaveBeenCalledOnce()
    expect(a.openQuire).toHaveBeenCalledOnce()
    expect(a.quit).toHaveBeenCalledOnce()
  })

  it('offers Resume while paused, and Sync now still works then', () => {
    const a = actions()
    const menu = trayMenuTemplate({ status: status([space('a', 'synced')], { paused: true }), session: writer }, a)
    expect(item(menu, 'pause').label).toBe('Resume')
    click(item(menu, 'pause'))
    expect(a.setPaused).toHaveBeenCalledWith(false)
    expect(item(menu, 'sync-now').enabled).toBe(true)
  })

  it('counts broken links and enables the item only when there are some', () => {
    const none = trayMenuTemplate({ status: status([], { brokenLinks: 0 }), session: writer }, actions())
    expect(item(none, 'broken-links')).toMatchObject({ label: 'Broken links: 0', enabled: false })
    const some = trayMenuTemplate({ status: status([], { brokenLinks: 12 }), session: writer }, actions())
    expect(item(some, 'broken-links')).toMatchObject({ label: 'Broken links: 12', enabled: true })
  })

  it('opens one space in the browser directly, several through a submenu, none not at all', () => {
    const a = actions()
    const none = trayMenuTemplate({ status: status([space('a', 'synced')]), session: writer }, a)
    expect(item(none, 'open-in-browser').enabled).toBe(false)
    const several = trayMenuTemplate(
      {
        status: status([space('a', 'synced', { appUrl: 'https://x/a' }), space('b', 'synced', { appUrl: 'https://x/b' }), space('c', 'synced', { appUrl: 'https://x/c', selected: false, synced: false })]),
        session: writer,
      },
      a,
    )
    const submenu = item(several, 'open-in-browser').submenu as MenuItemConstructorOptions[]
    expect(submenu.map((s) => s.label)).toEqual(['Space a', 'Space b'])
    click(submenu[1])
    expect(a.openInBrowser).toHaveBeenCalledWith('https://x/b', 'Space b')
  })

  it('disables syncing while signed out, and says so', () => {
    const menu = trayMenuTemplate({ session: { signedIn: false, demo: false } }, actions())
    expect(item(menu, 'state').label).toBe('Signed out (Sign in again)')
    expect(item(menu, 'sync-now').enabled).toBe(false)
    expect(item(menu, 'pause').enabled).toBe(false)
    expect(item(menu, 'open-quire').enabled).not.toBe(false)
  })

  it('labels each state in words, with its way out: the words of the window\'s header', () => {
    expect(trayStateLabel({})).toBe('Starting…')
    expect(trayStateLabel({ status: status([space('a', 'error'), space('b', 'error')]) })).toBe('Error in 2 spaces (Retry now)')
    expect(trayStateLabel({ status: status([space('a', 'syncing', { syncDone: 3, syncTotal: 12 })]) })).toBe('Syncing 3 of 12')
    expect(trayStateLabel({ status: status([space('a', 'pending', { pending: 2 })]) })).toBe('2 edits waiting to be sent')
    expect(trayStateLabel({ status: status([space('a', 'conflict')], { conflicts: [{ spaceId: 'a', path: 'p.md', copyPath: 'q.md' }] }) })).toBe('1 conflict: p.md (Show conflicts)')
    expect(trayStateLabel({ status: status([space('a', 'offline')]) })).toMatch(/^Offline, .* \(Retry now\)$/)
    expect(trayStateLabel({ status: status([space('a', 'paused')], { paused: true }) })).toBe('Paused (Resume)')
    expect(trayStateLabel({ status: status([space('a', 'signed-out')]) })).toBe('Signed out (Sign in again)')
    expect(trayStateLabel({ status: status([]) })).toBe('No spaces chosen to sync (Choose spaces)')
  })
})

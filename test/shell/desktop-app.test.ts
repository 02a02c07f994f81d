import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { EVENT_CHANNEL, IPC_PREFIX, QUIRE_CHANNELS, type QuireEvent } from '../../src/shared/contract'
import { SYNC_PROCESS_NODE_FLAGS } from '../../src/main/node-flags'
import { runDesktopApp } from '../../src/main/shell/desktop-app'
import { clickTrayItem, desktopAppPerTest, MAIN_DIR, SETTINGS as settings, trayMenu } from './desktop-harness'
import { app, BrowserWindow, FakeNativeImage, FakeWebContents, ipcMain, Notification, resetElectronMock, session, Tray, utilityProcess } from './electron-mock'
import { fakeBackendFactory } from './fake-backend'
import { cr, space, status, writer } from './fixtures'

vi.mock('electron', () => import('./electron-mock'))

const RENDERER = pathToFileURL(path.join(MAIN_DIR, '../renderer/index.html')).href

describe('desktop app wiring', () => {
  const harness = desktopAppPerTest('quire-desktop-app-')

  function started(answers = {}) {
    const factory = fakeBackendFactory({ getSession: writer, getStatus: status([space('s1', 'synced')]), getSettings: settings, listChangeRequests: [cr('cr1', 'open')], listComments: [], ...answers })
    return { factory, ready: harness.start(factory.open) }
  }

  it('starts the backend in a utility process and serves every channel to the app window only', async () => {
    const { factory, ready } = started()
    await ready
    expect(utilityProcess.fork).toHaveBeenCalledWith(path.join(MAIN_DIR, 'backend.js'), [], expect.objectContaining({ serviceName: 'Quire sync engine', execArgv: [...SYNC_PROCESS_NODE_FLAGS] }))
    expect(factory.opened[0]).toMatchObject({ vault: expect.objectContaining({ kind: 'file' }) })
    expect([...ipcMain.handlers.keys()].sort()).toEqual(QUIRE_CHANNELS.map((c) => IPC_PREFIX + c).sort())
    await expect(ipcMain.invoke('quire:getSession', { frameUrl: RENDERER })).resolves.toEqual(writer)
    await expect(ipcMain.invoke('quire:getSession', { frameUrl: 'https://evil.example/' })).rejects.toThrow(/refused/)
  })

  it('secures the session: CSP on responses, no permissions', async () => {
    await started().ready
    expect(session.defaultSession.webRequest.onHeadersReceived).toHaveBeenCalledOnce()
    expect(session.defaultSession.setPermissionRequestHandler).toHaveBeenCalledOnce()
  })

  it('opens the window with the secure options, unless started at login', async () => {
    await started().ready
    expect(BrowserWindow.instances).toHaveLength(1)
    const window = BrowserWindow.instances[0]
    expect(window.options.webPreferences).toMatchObject({ contextIsolation: true, sandbox: true, nodeIntegration: false, preload: path.join(MAIN_DIR, '../preload/index.cjs') })
    expect(window.loaded.file).toBe(path.join(MAIN_DIR, '../renderer/index.html'))
    await harness.desktop()!.stop()
    resetElectronMock()
    app.pathRoot = harness.root()
    const argv = process.argv
    process.argv = [...argv, '--hidden']
    try {
      await started().ready
    } finally {
      process.argv = argv
    }
    expect(BrowserWindow.instances).toHaveLength(0)
  })

  it("shows the backend's status in the tray and forwards events to the window", async () => {
    const { factory, ready } = started()
    await ready
    const tray = Tray.instances[0]
    expect(path.basename((tray.image as FakeNativeImage).path)).toBe(process.platform === 'darwin' ? 'syncedTemplate.png' : 'synced.png')
    const event: QuireEvent = { type: 'status', status: status([space('s1', 'error')], { brokenLinks: 4 }) }
    factory.emit(event)
    await vi.waitFor(() => expect(path.basename((tray.image as FakeNativeImage).path)).toMatch(/^error/))
    expect(trayMenu().find((m) => m.id === 'broken-links')?.label).toBe('Broken links: 4')
    const contents = BrowserWindow.instances[0].webContents as FakeWebContents
    expect(contents.sent).toContainEqual({ channel: EVENT_CHANNEL, args: [event] })
  })

  it('sends tray actions to the backend, and "Broken links" to the link report screen', async () => {
    const { factory, ready } = started()
    await ready
    clickTrayItem('sync-now')
    clickTrayItem('pause')
    await vi.waitFor(() => expect(factory.calls.map(([c]) => c)).toEqual(expect.arrayContaining(['syncNow', 'setPaused'])))
    expect(factory.calls.find(([c]) => c === 'setPaused')![1]).toEqual([true])
    clickTrayItem('broken-links')
    const contents = BrowserWindow.instances[0].webContents as FakeWebContents
    expect(contents.sent).toContainEqual({ channel: EVENT_CHANNEL, args: [{ type: 'show', screen: 'links' }] })
  })

  it('notifies a merged change request of the writer', async () => {
    const { factory, ready } = started()
    await ready
    await vi.waitFor(() => expect(factory.calls.some(([c]) => c === 'listChangeRequests')).toBe(true))
    factory.answers.listChangeRequests = [cr('cr1', 'merged')]
    // A conflict event makes the watch look soon; the merge is found in that look.
    factory.emit({ type: 'status', status: status([space('s1', 'synced')], { conflicts: [{ spaceId: 's1', path: 'a.md', copyPath: 'a (copy).md' }] }) })
    await vi.waitFor(() => expect(Notification.shown.map((n) => n.options.title)).toContain('Change request merged'), { timeout: 5000 })
  })

  it('applies the start-at-login setting when it changes', async () => {
    const { factory, ready } = started({ updateSettings: { ...settings, startAtLogin: true } })
    await ready
    app.isPackaged = true
    // On Linux the login item is an XDG autostart file: keep it inside the test's folder.
    vi.stubEnv('XDG_CONFIG_HOME', harness.root())
    try {
      await ipcMain.invoke('quire:updateSettings', { frameUrl: RENDERER }, { startAtLogin: true })
    } finally {
      vi.unstubAllEnvs()
    }
    expect(factory.calls.find(([c]) => c === 'updateSettings')![1]).toEqual([{ startAtLogin: true }])
    if (process.platform === 'linux') expect(fs.readFileSync(path.join(harness.root(), 'autostart', 'quire.desktop'), 'utf8')).toContain('--hidden')
    else expect(app.setLoginItemSettings).toHaveBeenCalledWith(expect.objectContaining({ openAtLogin: true }))
  })
})

describe('single instance', () => {
  let root: string
  beforeEach(() => {
    resetElectronMock()
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-single-'))
    app.pathRoot = root
  })
  afterEach(() => fs.rmSync(root, { recursive: true, force: true }))

  it('quits at once when another Quire runs (that one shows its window)', () => {
    app.locked = false
    runDesktopApp(MAIN_DIR)
    expect(app.quit).toHaveBeenCalledOnce()
    expect(app.listenerCount('second-instance')).toBe(0)
  })

  it('sandboxes every renderer process, before the app is ready (Electron refuses it later)', () => {
    runDesktopApp(MAIN_DIR)
    expect(app.enableSandbox).toHaveBeenCalledOnce()
    expect(app.enableSandbox.mock.invocationCallOrder[0]).toBeLessThan(app.whenReady.mock.invocationCallOrder[0])
  })

  it('shows its window when a second launch knocks, and hardens every web contents', () => {
    runDesktopApp(MAIN_DIR)
    expect(app.quit).not.toHaveBeenCalled()
    app.emit('second-instance', {}, ['/opt/Quire/quire', '--hidden'])
    expect(BrowserWindow.instances).toHaveLength(0)
    app.emit('second-instance', {}, ['/opt/Quire/quire'])
    expect(BrowserWindow.instances).toHaveLength(1)
    expect(BrowserWindow.instances[0].visible).toBe(true)
    const contents = new FakeWebContents()
    app.emit('web-contents-created', {}, contents)
    expect(contents.windowOpenHandler!({ url: 'https://x.example' })).toEqual({ action: 'deny' })
    expect(contents.fire('will-navigate', { url: 'https://x.example' })).toBe(true)
  })
})

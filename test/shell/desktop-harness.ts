import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { MenuItemConstructorOptions } from 'electron'
import { afterEach, beforeEach } from 'vitest'
import type { BackendOptions, QuireBackend } from '../../src/main/app/backend'
import { serveBackend } from '../../src/main/shell/backend/serve-backend'
import { DesktopApp } from '../../src/main/shell/desktop-app'
import { app, type FakeMenu, resetElectronMock, Tray, utilityProcess } from './electron-mock'
import { FakeChild } from './fake-backend'

/*
 * The desktop app (the real DesktopApp wiring) in the Electron mock, for the tests of one file. The
 * test file itself must still say `vi.mock('electron', () => import('./electron-mock'))`: vitest hoists
 * that call only in the file that makes it.
 */

/** Where a packaged app's main bundle lies. */
export const MAIN_DIR = '/opt/Quire/resources/app.asar/out/main'

/** The settings the backend answers with unless a test says otherwise. */
export const SETTINGS = { workspace: '/home/w/Quire', intervalSeconds: 60, paused: false, startAtLogin: false, notifications: true }

/** Opens a backend in the utility process, as `fakeBackendFactory().open` does. */
export type BackendOpener = (options?: BackendOptions) => Promise<QuireBackend>

/**
 * Before each test: a fresh Electron mock whose app data lives in a new folder (named from `prefix`).
 * After each: the app stopped and the folder removed.
 */
export function desktopAppPerTest(prefix: string) {
  let root = ''
  let desktop: DesktopApp | undefined
  beforeEach(() => {
    resetElectronMock()
    root = fs.mkdtempSync(path.join(os.tmpdir(), prefix))
    app.pathRoot = root
    app.appPath = path.resolve(__dirname, '../..')
  })
  afterEach(async () => {
    await desktop?.stop()
    desktop = undefined
    fs.rmSync(root, { recursive: true, force: true })
  })
  return {
    /** The test's app data folder. */
    root: () => root,
    /** The app the test started last. */
    desktop: () => desktop,
    /** Starts the app; each utility process it forks serves a backend from `open`. Resolves once it has started. */
    start(open: BackendOpener): Promise<void> {
      utilityProcess.fork.mockImplementation(() => {
        const child = new FakeChild()
        serveBackend(child.link(), open)
        return child
      })
      desktop = new DesktopApp(MAIN_DIR)
      return desktop.start()
    },
  }
}

/** The tray menu's items as the app last set them. */
export const trayMenu = (): MenuItemConstructorOptions[] => (Tray.instances[0].menu as FakeMenu).template as MenuItemConstructorOptions[]

/** Clicks the tray menu's item `id`. */
export function clickTrayItem(id: string): void {
  const item = trayMenu().find((m) => m.id === id)
  if (!item) throw new Error(`the tray menu has no item ${id}`)
  ;(item.click as () => void)()
}

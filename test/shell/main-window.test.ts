import type { BrowserWindow as ElectronWindow, BrowserWindowConstructorOptions } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { MainWindow, mainWindowOptions } from '../../src/main/shell/main-window'
import { BrowserWindow, resetElectronMock } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

const create = (options: BrowserWindowConstructorOptions) => new BrowserWindow(options as Record<string, unknown>) as unknown as ElectronWindow

describe('main window', () => {
  beforeEach(() => resetElectronMock())

  it('runs the renderer isolated, sandboxed, without Node, with the preload as its only door', () => {
    const options = mainWindowOptions('/app/out/preload/index.cjs')
    expect(options.webPreferences).toMatchObject({
      preload: '/app/out/preload/index.cjs',
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
    })
  })

  it('loads the built renderer from file, or the dev server when there is one', () => {
    new MainWindow(create, mainWindowOptions('p'), { rendererFile: '/app/out/renderer/index.html' }).show()
    expect(BrowserWindow.instances[0].loaded).toEqual({ file: '/app/out/renderer/index.html' })
    new MainWindow(create, mainWindowOptions('p'), { rendererFile: '/x', devServerUrl: 'http://localhost:5173' }).show()
    expect(BrowserWindow.instances[1].loaded).toEqual({ url: 'http://localhost:5173' })
  })

  it('creates one window, and a second show (a second launch) restores and focuses it', () => {
    const main = new MainWindow(create, mainWindowOptions('p'), { rendererFile: '/x' })
    main.show()
    const window = BrowserWindow.instances[0]
    window.minimized = true
    window.focused = false
    main.show()
    expect(BrowserWindow.instances).toHaveLength(1)
    expect(window).toMatchObject({ minimized: false, focused: true, visible: true })
  })

  it('hides on close so the app stays in the tray, and closes for real when quitting', () => {
    const main = new MainWindow(create, mainWindowOptions('p'), { rendererFile: '/x' })
    main.show()
    const window = BrowserWindow.instances[0]
    expect(window.close()).toBe(true)
    expect(window.visible).toBe(false)
    expect(main.current).toBeDefined()
    main.quitting = true
    expect(window.close()).toBe(false)
    expect(main.current).toBeUndefined()
  })
})

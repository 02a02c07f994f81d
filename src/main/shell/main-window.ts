import type { BrowserWindow, BrowserWindowConstructorOptions } from 'electron'
import type { RendererLocation } from './renderer-origin'

/**
 * The renderer runs with Electron's security checklist on: isolated context, OS sandbox, no Node, web
 * security. The preload (CommonJS, as sandboxed preloads must be) is its only door to the main process.
 */
export function mainWindowOptions(preload: string, icon?: string): BrowserWindowConstructorOptions {
  return {
    width: 1100,
    height: 760,
    minWidth: 720,
    minHeight: 480,
    title: 'Quire',
    show: false,
    ...(icon ? { icon } : {}),
    webPreferences: {
      preload,
      contextIsolation: true,
      sandbox: true,
      nodeIntegration: false,
      nodeIntegrationInWorker: false,
      nodeIntegrationInSubFrames: false,
      webSecurity: true,
      allowRunningInsecureContent: false,
      webviewTag: false,
      spellcheck: true,
    },
  }
}

export type WindowFactory = (options: BrowserWindowConstructorOptions) => BrowserWindow

/**
 * One main window, created on demand and hidden (not destroyed) when closed, so the app lives on in the
 * tray; a real quit sets `quitting` first and lets the close through.
 */
export class MainWindow {
  private window: BrowserWindow | undefined
  quitting = false

  constructor(
    private readonly create: WindowFactory,
    private readonly options: BrowserWindowConstructorOptions,
    private readonly location: RendererLocation,
  ) {}

  get current(): BrowserWindow | undefined {
    return this.window && !this.window.isDestroyed() ? this.window : undefined
  }

  /** Shows the window (creating it the first time), restored and focused: second launches land here. */
  show(): BrowserWindow {
    const window = this.current ?? this.open()
    if (window.isMinimized()) window.restore()
    window.show()
    window.focus()
    return window
  }

  private open(): BrowserWindow {
    const window = this.create(this.options)
    this.window = window
    window.once('ready-to-show', () => window.show())
    window.on('close', (event) => {
      if (this.quitting) return
      event.preventDefault()
      window.hide()
    })
    window.on('closed', () => {
      if (this.window === window) this.window = undefined
    })
    if (this.location.devServerUrl) void window.loadURL(this.location.devServerUrl)
    else void window.loadFile(this.location.rendererFile)
    return window
  }
}

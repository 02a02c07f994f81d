/**
 * A thin, hand-made stand-in for the `electron` module (GitHub Desktop keeps one the same way), used with
 * `vi.mock('electron', () => import('./electron-mock'))`. Electron's binary cannot run here; the shell's
 * logic is tested against these fakes, which record what the shell asked of Electron and let a test play
 * Electron's side (fire events, answer IPC, click menu items).
 */
import { EventEmitter } from 'node:events'
import { pathToFileURL } from 'node:url'
import { vi } from 'vitest'

type Handler = (event: unknown, ...args: unknown[]) => unknown

/** ipcMain: `handle` registrations a test can invoke as if a renderer had sent the request. */
class FakeIpcMain {
  readonly handlers = new Map<string, Handler>()
  handle = vi.fn((channel: string, handler: Handler) => {
    // Electron throws on a second handler for a channel; so does the fake, to catch double registration.
    if (this.handlers.has(channel)) throw new Error(`Attempted to register a second handler for '${channel}'`)
    this.handlers.set(channel, handler)
  })
  removeHandler = vi.fn((channel: string) => {
    this.handlers.delete(channel)
  })
  /** Plays a renderer: `frameUrl` is the sender frame's URL (null: no frame), `parent` a subframe's parent. */
  async invoke(channel: string, sender: { frameUrl: string | null; subframe?: boolean }, ...args: unknown[]): Promise<unknown> {
    const handler = this.handlers.get(channel)
    if (!handler) throw new Error(`No handler registered for '${channel}'`)
    const senderFrame = sender.frameUrl === null ? null : { url: sender.frameUrl, parent: sender.subframe ? { url: 'file:///parent' } : null }
    return handler({ senderFrame, sender: {} }, ...args)
  }
}

export const ipcMain = new FakeIpcMain()

/** ipcRenderer: requests are recorded; `emit` plays the main process sending an event. */
class FakeIpcRenderer extends EventEmitter {
  invoke = vi.fn(async (_channel: string, ..._args: unknown[]): Promise<unknown> => undefined)
}

export const ipcRenderer = new FakeIpcRenderer()

export const contextBridge = {
  exposed: new Map<string, unknown>(),
  exposeInMainWorld: vi.fn((key: string, api: unknown) => {
    contextBridge.exposed.set(key, api)
  }),
}

/** safeStorage as a reversible transform (bytes reversed, tagged): enough to tell cipher text from plain. */
export const safeStorage = {
  available: true,
  backend: 'gnome_libsecret',
  isEncryptionAvailable: vi.fn(() => safeStorage.available),
  encryptString: vi.fn((plain: string) => Buffer.concat([Buffer.from('enc:'), Buffer.from(plain, 'utf8').reverse()])),
  decryptString: vi.fn((data: Buffer) => {
    if (data.subarray(0, 4).toString() !== 'enc:') throw new Error('Error while decrypting the ciphertext provided to safeStorage.decryptString.')
    return Buffer.from(data.subarray(4)).reverse().toString('utf8')
  }),
  getSelectedStorageBackend: vi.fn(() => safeStorage.backend),
}

export class FakeNativeImage {
  template = false
  constructor(readonly path: string) {}
  setTemplateImage(value: boolean) {
    this.template = value
  }
  isTemplateImage() {
    return this.template
  }
}

export const nativeImage = { createFromPath: vi.fn((file: string) => new FakeNativeImage(file)) }

export class FakeMenu {
  constructor(readonly template: Array<Record<string, unknown>>) {}
}

export const Menu = { buildFromTemplate: vi.fn((template: Array<Record<string, unknown>>) => new FakeMenu(template)) }

export class Tray extends EventEmitter {
  static instances: Tray[] = []
  image: FakeNativeImage
  images: FakeNativeImage[] = []
  tooltip = ''
  menu: FakeMenu | undefined
  destroyed = false
  constructor(image: FakeNativeImage) {
    super()
    this.image = image
    Tray.instances.push(this)
  }
  setImage(image: FakeNativeImage) {
    this.image = image
    this.images.push(image)
  }
  setToolTip(text: string) {
    this.tooltip = text
  }
  setContextMenu(menu: FakeMenu) {
    this.menu = menu
  }
  destroy() {
    this.destroyed = true
  }
}

export class Notification extends EventEmitter {
  static shown: Notification[] = []
  static isSupported = vi.fn(() => true)
  constructor(readonly options: { title: string; body: string }) {
    super()
  }
  show() {
    Notification.shown.push(this)
  }
}

export const shell = {
  openExternal: vi.fn(async (_url: string) => undefined),
  openPath: vi.fn(async (_path: string) => ''),
}

type HeadersListener = (details: { url: string; responseHeaders?: Record<string, string[]> }, callback: (response: { responseHeaders?: Record<string, string[]> }) => void) => void

export class FakeSession {
  headersListener: HeadersListener | undefined
  permissionRequestHandler: ((contents: unknown, permission: string, callback: (granted: boolean) => void) => void) | undefined
  permissionCheckHandler: ((...args: unknown[]) => boolean) | undefined
  devicePermissionHandler: ((...args: unknown[]) => boolean) | undefined
  webRequest = {
    onHeadersReceived: vi.fn((listener: HeadersListener) => {
      this.headersListener = listener
    }),
  }
  setPermissionRequestHandler = vi.fn((handler: FakeSession['permissionRequestHandler']) => {
    this.permissionRequestHandler = handler
  })
  setPermissionCheckHandler = vi.fn((handler: FakeSession['permissionCheckHandler']) => {
    this.permissionCheckHandler = handler
  })
  setDevicePermissionHandler = vi.fn((handler: FakeSession['devicePermissionHandler']) => {
    this.devicePermissionHandler = handler
  })
}

export const session = { defaultSession: new FakeSession() }

/** A cancellable event, like Electron's: `defaultPrevented` says whether the shell stopped it. */
export class FakeEvent<T extends object = object> {
  defaultPrevented = false
  constructor(readonly details: T) {
    Object.assign(this, details)
  }
  preventDefault() {
    this.defaultPrevented = true
  }
}

export class FakeWebContents extends EventEmitter {
  windowOpenHandler: ((details: { url: string }) => { action: 'allow' | 'deny' }) | undefined
  sent: Array<{ channel: string; args: unknown[] }> = []
  url = ''
  setWindowOpenHandler(handler: FakeWebContents['windowOpenHandler']) {
    this.windowOpenHandler = handler
  }
  send(channel: string, ...args: unknown[]) {
    this.sent.push({ channel, args })
  }
  loading = false
  getURL() {
    return this.url
  }
  isLoading() {
    return this.loading
  }
  isDestroyed() {
    return false
  }
  /** Fires `name` with a fresh cancellable event and says whether the shell prevented it. */
  fire(name: string, details: object): boolean {
    const event = new FakeEvent(details)
    this.emit(name, event)
    return event.defaultPrevented
  }
}

export class BrowserWindow extends EventEmitter {
  static instances: BrowserWindow[] = []
  readonly webContents = new FakeWebContents()
  visible = false
  minimized = false
  focused = false
  destroyed = false
  loaded: { file?: string; url?: string } = {}
  constructor(readonly options: Record<string, unknown>) {
    super()
    BrowserWindow.instances.push(this)
  }
  static getAllWindows() {
    return BrowserWindow.instances.filter((w) => !w.destroyed)
  }
  async loadFile(file: string) {
    this.loaded = { file }
    this.webContents.url = pathToFileURL(file).href
  }
  async loadURL(url: string) {
    this.loaded = { url }
    this.webContents.url = url
  }
  show() {
    this.visible = true
  }
  hide() {
    this.visible = false
  }
  focus() {
    this.focused = true
  }
  isMinimized() {
    return this.minimized
  }
  restore() {
    this.minimized = false
  }
  isDestroyed() {
    return this.destroyed
  }
  /** Plays the user closing the window; says whether the shell kept it (prevented the close). */
  close(): boolean {
    const event = new FakeEvent({})
    this.emit('close', event)
    if (!event.defaultPrevented) {
      this.destroyed = true
      this.emit('closed')
    }
    return event.defaultPrevented
  }
}

class FakeApp extends EventEmitter {
  isPackaged = false
  locked = true
  loginItem = { openAtLogin: false, wasOpenedAtLogin: false }
  requestSingleInstanceLock = vi.fn(() => this.locked)
  quit = vi.fn()
  exit = vi.fn()
  whenReady = vi.fn(() => new Promise<void>(() => undefined))
  /** Electron allows it only before `ready`; the fake records when, relative to whenReady. */
  enableSandbox = vi.fn()
  /** Folder under which getPath(name) answers `<root>/<name>`; tests point it at a temporary folder. */
  pathRoot = '/tmp/quire-electron-mock'
  appPath = '/tmp/quire-electron-mock/app'
  getPath = vi.fn((name: string) => `${this.pathRoot}/${name}`)
  getAppPath = vi.fn(() => this.appPath)
  getVersion = vi.fn(() => '0.1.0')
  setLoginItemSettings = vi.fn((settings: { openAtLogin: boolean }) => {
    this.loginItem.openAtLogin = settings.openAtLogin
  })
  getLoginItemSettings = vi.fn(() => ({ ...this.loginItem }))
  setAppUserModelId = vi.fn()
}

export const app = new FakeApp()

export const utilityProcess = { fork: vi.fn() }

/** Back to a clean Electron between tests. */
export function resetElectronMock() {
  vi.clearAllMocks()
  ipcMain.handlers.clear()
  ipcRenderer.removeAllListeners()
  contextBridge.exposed.clear()
  safeStorage.available = true
  safeStorage.backend = 'gnome_libsecret'
  Tray.instances = []
  Notification.shown = []
  BrowserWindow.instances = []
  session.defaultSession = new FakeSession()
  app.removeAllListeners()
  app.isPackaged = false
  app.locked = true
  app.loginItem = { openAtLogin: false, wasOpenedAtLogin: false }
  app.pathRoot = '/tmp/quire-electron-mock'
  app.appPath = '/tmp/quire-electron-mock/app'
}

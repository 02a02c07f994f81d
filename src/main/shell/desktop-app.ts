import path from 'node:path'
import { app, BrowserWindow, ipcMain, Menu, nativeImage, Notification, session, shell, Tray, utilityProcess } from 'electron'
import { EVENT_CHANNEL, type AppScreen, type QuireApi, type QuireEvent, type Settings } from '../../shared/contract'
import { systemDesktopActions } from '../app/desktop-actions'
import { BackendHost } from './backend/backend-host'
import { electronDesktopActions } from './desktop-actions'
import { DesktopNotifier } from './desktop-notifier'
import { openExternalUrl } from './external-url'
import { registerIpcHandlers } from './ipc'
import { applyStartAtLogin, HIDDEN_FLAG, launchedAtLogin, type LoginItemContext } from './login-item'
import { MainWindow, mainWindowOptions } from './main-window'
import { electronSqliteBinding } from './native-binding'
import type { DesktopNotification } from './notification-rules'
import { NotificationWatch } from './notification-watch'
import { isAppRendererUrl, type RendererLocation } from './renderer-origin'
import { contentSecurityPolicy, denyAllPermissions, hardenWebContents, installCsp } from './security'
import { shellLog, type ShellLog } from './shell-log'
import { SYNC_PROCESS_NODE_FLAGS } from '../node-flags'
import { ElectronTokenStore } from './token-store'
import { TrayController } from './tray'
import { runTrayTask } from './tray-feedback'
import { checkForUpdates, type Updater } from './updater'

/** Where the built pieces are, relative to out/main (this bundle's folder). */
function layout(mainDir: string) {
  const resources = app.isPackaged ? process.resourcesPath : path.join(app.getAppPath(), 'resources')
  return {
    renderer: { rendererFile: path.join(mainDir, '../renderer/index.html'), devServerUrl: app.isPackaged ? undefined : process.env.ELECTRON_RENDERER_URL } satisfies RendererLocation,
    preload: path.join(mainDir, '../preload/index.cjs'),
    backendEntry: path.join(mainDir, 'backend.js'),
    trayIcons: path.join(resources, 'tray'),
    appIcon: path.join(resources, 'icon.png'),
  }
}

const errorText = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** electron-builder.yml's appId. */
const APP_ID = 'app.quire.desktop'

// Comments and change requests are looked at no more often than this, whatever the sync interval.
const MIN_WATCH_MS = 60_000

/**
 * The desktop app: a tray icon over the backend (in a utility process), one window with the React
 * renderer, OS notifications, start at login and updates. Everything here is wiring; the decisions live
 * in the small modules it composes, which are unit-tested without Electron.
 */
export class DesktopApp {
  private readonly paths: ReturnType<typeof layout>
  private readonly log: ShellLog
  private readonly window: MainWindow
  private backend: BackendHost | undefined
  private tray: TrayController | undefined
  private watch: NotificationWatch | undefined
  private watchTimer: ReturnType<typeof setInterval> | undefined

  constructor(mainDir: string) {
    this.paths = layout(mainDir)
    this.log = shellLog(app.getPath('logs'))
    this.window = new MainWindow((options) => new BrowserWindow(options), mainWindowOptions(this.paths.preload, this.paths.appIcon), this.paths.renderer)
  }

  isAppUrl = (url: string) => isAppRendererUrl(url, this.paths.renderer)

  readonly navigation = {
    isAppUrl: this.isAppUrl,
    openExternal: (url: string) => void openExternalUrl(shell, url).catch((error: unknown) => this.log(errorText(error))),
  }

  showWindow() {
    this.window.show()
  }

  /** The OS quits us (logout, update install) or the user chose Quit: let the window close for real. */
  beginQuit() {
    this.window.quitting = true
  }

  async start() {
    // Windows shows toasts only for an app with an AppUserModelID (the installer registers this one).
    if (process.platform === 'win32') app.setAppUserModelId(APP_ID)
    const policy = contentSecurityPolicy(this.paths.renderer.devServerUrl)
    installCsp(session.defaultSession, policy)
    denyAllPermissions(session.defaultSession)

    const tokens = new ElectronTokenStore(path.join(app.getPath('userData'), 'credentials'))
    if (tokens.protection() !== 'keychain') this.log('no OS keychain for safeStorage: the token file is protected by its 0600 mode only')
    const native = await electronSqliteBinding({ isPackaged: app.isPackaged, appPath: app.getAppPath(), electronVersion: process.versions.electron })
    if (native.problem) this.log(native.problem)

    const backend = new BackendHost({
      fork: () => utilityProcess.fork(this.paths.backendEntry, [], { serviceName: 'Quire sync engine', stdio: 'inherit', execArgv: [...SYNC_PROCESS_NODE_FLAGS] }),
      vault: tokens,
      desktop: electronDesktopActions(shell, systemDesktopActions()),
      startOptions: {
        // The backend's own default (env-paths) is shared with the CLI and `quire serve`; QUIRE_DATA_DIR moves it.
        ...(process.env.QUIRE_DATA_DIR ? { dataDir: path.resolve(process.env.QUIRE_DATA_DIR) } : {}),
        ...(native.file ? { nativeBinding: native.file } : {}),
        vaultKind: tokens.kind,
      },
      log: this.log,
      onFailure: (message) => this.tray?.update({ problem: `The sync engine stopped: ${message}` }),
    })
    this.backend = backend
    // Started before anything can ask it: requests that come early wait for it instead of failing.
    const starting = backend.start()
    const api = this.desktopApi(backend.api)
    registerIpcHandlers(ipcMain, api, this.isAppUrl)

    const notifier = new DesktopNotifier({ isSupported: () => Notification.isSupported(), create: (options) => new Notification(options) }, (target) =>
      target.kind === 'url' ? this.navigation.openExternal(target.url) : this.showScreen(target.screen),
    )
    this.watch = new NotificationWatch({ api, show: (n) => notifier.show(n), log: this.log })
    const trayFeedback = { notify: (n: DesktopNotification) => notifier.show(n), log: this.log }
    this.tray = new TrayController(
      { createTray: (image) => new Tray(image), buildMenu: (template) => Menu.buildFromTemplate(template), loadImage: (file) => nativeImage.createFromPath(file) },
      this.paths.trayIcons,
      process.platform,
      {
        // A tray click has no window to answer in: a failure is a notification (and a log line).
        syncNow: () => void runTrayTask({ kind: 'sync-now' }, () => api.syncNow(), trayFeedback),
        setPaused: (paused) => void runTrayTask({ kind: 'pause', paused }, () => api.setPaused(paused), trayFeedback),
        openWorkspaceFolder: () => void runTrayTask({ kind: 'open-folder' }, () => api.openWorkspaceFolder(), trayFeedback),
        openInBrowser: (url, spaceTitle) => void runTrayTask({ kind: 'open-in-browser', spaceTitle }, () => openExternalUrl(shell, url), trayFeedback),
        showBrokenLinks: () => this.showScreen('links'),
        showForReview: () => this.showScreen('for-review'),
        openQuire: () => this.showWindow(),
        quit: () => {
          this.beginQuit()
          app.quit()
        },
      },
    )
    backend.onEvent((event) => this.onBackendEvent(event))

    if (!launchedAtLogin(this.loginContext(), process.argv)) this.showWindow()

    try {
      await starting
    } catch (error) {
      this.log(`the sync engine did not start: ${errorText(error)}`)
      this.tray.update({ problem: `The sync engine did not start: ${errorText(error)}` })
      return
    }
    const [sessionInfo, status, settings] = await Promise.all([api.getSession(), api.getStatus(), api.getSettings()])
    this.tray.update({ session: sessionInfo, status })
    await this.applySettings(settings)
    void this.watch.look()
    void checkForUpdates({
      isPackaged: app.isPackaged,
      env: process.env,
      log: this.log,
      // electron-updater is CommonJS: its default export carries autoUpdater.
      load: async () => (await import('electron-updater')).default.autoUpdater as Updater,
    })
  }

  async stop() {
    if (this.watchTimer) clearInterval(this.watchTimer)
    this.watch?.dispose()
    this.tray?.dispose()
    await this.backend?.stop()
    await this.log.flushed()
  }

  /** The backend's API as the renderer and the tray use it, plus what settings mean to the desktop. */
  private desktopApi(backend: QuireApi): QuireApi {
    return {
      ...backend,
      updateSettings: async (patch) => {
        const settings = await backend.updateSettings(patch)
        await this.applySettings(settings)
        return settings
      },
    }
  }

  private async applySettings(settings: Settings) {
    await applyStartAtLogin(this.loginContext(), settings.startAtLogin).catch((e: unknown) => this.log(`start at login: ${errorText(e)}`))
    if (this.watchTimer) clearInterval(this.watchTimer)
    this.watchTimer = setInterval(() => void this.watch?.look(), Math.max(MIN_WATCH_MS, settings.intervalSeconds * 1000))
  }

  private loginContext(): LoginItemContext {
    return { app, platform: process.platform, env: process.env, execPath: process.execPath }
  }

  private onBackendEvent(event: QuireEvent) {
    if (event.type === 'status') this.tray?.update({ status: event.status, problem: undefined })
    if (event.type === 'session') this.tray?.update({ session: event.session })
    this.watch?.record(event)
    this.send(event)
  }

  private showScreen(screen: AppScreen) {
    const window = this.window.current
    const shown = this.window.show()
    const event: QuireEvent = { type: 'show', screen }
    // A window created just now has no renderer listening yet: tell it once it has loaded.
    if (!window || shown.webContents.isLoading()) shown.webContents.once('did-finish-load', () => this.send(event))
    else this.send(event)
  }

  /** Events go to the app's own page only, never to whatever a webContents might have navigated to. */
  private send(event: QuireEvent) {
    const contents = this.window.current?.webContents
    if (contents && !contents.isDestroyed() && this.isAppUrl(contents.getURL())) contents.send(EVENT_CHANNEL, event)
  }
}

/** Single instance: a second launch hands over to the first (which shows its window) and exits. */
export function runDesktopApp(mainDir: string) {
  // Every renderer sandboxed, not only the windows whose options say so (Electron's checklist, item 4):
  // a window or webContents created later without `sandbox: true` is sandboxed all the same.
  app.enableSandbox()
  if (!app.requestSingleInstanceLock()) {
    app.quit()
    return
  }
  const desktop = new DesktopApp(mainDir)
  // A login-item launch while Quire already runs changes nothing; any other launch brings the window up.
  app.on('second-instance', (_event, argv) => {
    if (!argv.includes(HIDDEN_FLAG)) desktop.showWindow()
  })
  app.on('web-contents-created', (_event, contents) => hardenWebContents(contents, desktop.navigation))
  // A tray app lives on with no window open; Quit is in the tray menu.
  app.on('window-all-closed', () => undefined)
  app.on('activate', () => desktop.showWindow())
  let stopped = false
  app.on('before-quit', (event) => {
    desktop.beginQuit()
    if (stopped) return
    // Let the backend finish its write and close the cache before the process goes.
    event.preventDefault()
    stopped = true
    void desktop.stop().finally(() => app.quit())
  })
  app
    .whenReady()
    .then(() => desktop.start())
    .catch((error: unknown) => {
      console.error(`quire: could not start: ${errorText(error)}`)
      app.exit(1)
    })
}

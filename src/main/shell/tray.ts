import path from 'node:path'
import type { Menu, MenuItemConstructorOptions, NativeImage, Tray } from 'electron'
import { trayMenuTemplate, trayStateLabel, type TrayActions, type TrayView } from './tray-menu'
import { trayStateFrom, type TrayState } from './tray-state'

/**
 * macOS menu bar icons are template images (black and alpha, tinted by the system; the "Template" name
 * suffix tells Electron); Windows and Linux get the coloured ones. `name@2x.png` next to each file is
 * picked up by nativeImage for high-DPI screens.
 */
export function trayIconFile(dir: string, state: TrayState, platform: NodeJS.Platform): string {
  return path.join(dir, platform === 'darwin' ? `${state}Template.png` : `${state}.png`)
}

export interface TrayElectron {
  createTray(image: NativeImage): Pick<Tray, 'setImage' | 'setToolTip' | 'setContextMenu' | 'on' | 'destroy'>
  buildMenu(template: MenuItemConstructorOptions[]): Menu
  loadImage(file: string): NativeImage
}

/** Keeps the tray's icon, tooltip and menu in step with the backend's status and session. */
export class TrayController {
  private readonly tray: ReturnType<TrayElectron['createTray']>
  private readonly images = new Map<TrayState, NativeImage>()
  private shown: TrayState | undefined
  private view: TrayView = {}

  constructor(
    private readonly electron: TrayElectron,
    private readonly iconDir: string,
    private readonly platform: NodeJS.Platform,
    private readonly actions: TrayActions,
  ) {
    // Until the first status arrives the backend is starting: the syncing icon says "busy" honestly.
    this.tray = electron.createTray(this.image('syncing'))
    this.shown = 'syncing'
    // Windows and most Linux trays open the app on a click; macOS shows the menu (the menu has "Open Quire").
    if (platform !== 'darwin') this.tray.on('click', () => actions.openQuire())
    this.render()
  }

  get state(): TrayState | undefined {
    return this.shown
  }

  update(view: Partial<TrayView>) {
    this.view = { ...this.view, ...view }
    this.render()
  }

  dispose() {
    this.tray.destroy()
  }

  private render() {
    const state: TrayState = this.view.status ? trayStateFrom(this.view.status) : 'syncing'
    const signedOut = this.view.session !== undefined && !this.view.session.signedIn
    const next: TrayState = this.view.problem ? 'error' : signedOut ? 'offline' : state
    // Setting the same image again makes some Linux trays flicker: only change it when the state does.
    if (next !== this.shown) {
      this.tray.setImage(this.image(next))
      this.shown = next
    }
    this.tray.setToolTip(`Quire: ${trayStateLabel(this.view)}`)
    this.tray.setContextMenu(this.electron.buildMenu(trayMenuTemplate(this.view, this.actions)))
  }

  private image(state: TrayState): NativeImage {
    let image = this.images.get(state)
    if (!image) {
      image = this.electron.loadImage(trayIconFile(this.iconDir, state, this.platform))
      if (this.platform === 'darwin') image.setTemplateImage(true)
      this.images.set(state, image)
    }
    return image
  }
}

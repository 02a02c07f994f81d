import path from 'node:path'
import type { MenuItemConstructorOptions } from 'electron'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { TrayController, trayIconFile, type TrayElectron } from '../../src/main/shell/tray'
import { TRAY_STATES } from '../../src/main/shell/tray-state'
import type { TrayActions } from '../../src/main/shell/tray-menu'
import { FakeMenu, FakeNativeImage, Menu, nativeImage, resetElectronMock, Tray } from './electron-mock'
import { space, status, writer } from './fixtures'

vi.mock('electron', () => import('./electron-mock'))

const ICONS = path.resolve(__dirname, '../../resources/tray')

const electron = {
  createTray: (image: unknown) => new Tray(image as FakeNativeImage),
  buildMenu: (template: unknown) => Menu.buildFromTemplate(template as Array<Record<string, unknown>>),
  loadImage: (file: string) => nativeImage.createFromPath(file),
} as unknown as TrayElectron

function actions() {
  return {
    syncNow: vi.fn(),
    setPaused: vi.fn(),
    openWorkspaceFolder: vi.fn(),
    openInBrowser: vi.fn(),
    showBrokenLinks: vi.fn(),
    openQuire: vi.fn(),
    quit: vi.fn(),
  } satisfies TrayActions
}

const menuOf = (tray: Tray) => (tray.menu as FakeMenu).template as MenuItemConstructorOptions[]
const imageOf = (tray: Tray) => path.basename((tray.image as FakeNativeImage).path)

describe('tray', () => {
  beforeEach(() => resetElectronMock())

  it('has a real 16 px icon and its 32 px @2x twin for every state, coloured and template', async () => {
    const fs = await import('node:fs')
    for (const state of TRAY_STATES) {
      for (const [file, size] of [
        [trayIconFile(ICONS, state, 'linux'), 16],
        [trayIconFile(ICONS, state, 'darwin'), 16],
        [trayIconFile(ICONS, state, 'linux').replace('.png', '@2x.png'), 32],
        [trayIconFile(ICONS, state, 'darwin').replace('.png', '@2x.png'), 32],
      ] as const) {
        const png = fs.readFileSync(file)
        expect(png.subarray(1, 4).toString(), file).toBe('PNG')
        expect([png.readUInt32BE(16), png.readUInt32BE(20)], file).toEqual([size, size])
      }
    }
  })

  it('uses template images on macOS and coloured ones elsewhere', () => {
    expect(trayIconFile('/r', 'error', 'darwin')).toBe(path.join('/r', 'errorTemplate.png'))
    expect(trayIconFile('/r', 'error', 'win32')).toBe(path.join('/r', 'error.png'))
    new TrayController(electron, ICONS, 'darwin', actions())
    expect((Tray.instances[0].image as FakeNativeImage).isTemplateImage()).toBe(true)
  })

  it('follows the status: the icon changes only when the state does, the menu and tooltip every time', () => {
    const tray = new TrayController(electron, ICONS, 'linux', actions())
    const fake = Tray.instances[0]
    expect(imageOf(fake)).toBe('syncing.png') // starting
    tray.update({ session: writer, status: status([space('a', 'synced')], { brokenLinks: 2 }) })
    expect(imageOf(fake)).toBe('synced.png')
    expect(fake.tooltip).toBe('Quire: In sync')
    expect(menuOf(fake).find((m) => m.id === 'broken-links')?.label).toBe('Broken links: 2')
    tray.update({ status: status([space('a', 'synced')], { brokenLinks: 3 }) })
    expect(fake.images).toHaveLength(1) // same state: no new image
    expect(menuOf(fake).find((m) => m.id === 'broken-links')?.label).toBe('Broken links: 3')
    tray.update({ status: status([space('a', 'synced'), space('b', 'error')]) })
    expect(imageOf(fake)).toBe('error.png')
    expect(tray.state).toBe('error')
    tray.update({ session: { signedIn: false, demo: false } })
    expect(imageOf(fake)).toBe('offline.png')
    expect(fake.tooltip).toBe('Quire: Signed out (Sign in again)')
  })

  it("shows the shell's own trouble as an error, in its words", () => {
    const tray = new TrayController(electron, ICONS, 'linux', actions())
    tray.update({ problem: 'The sync engine did not start: no such file' })
    expect(imageOf(Tray.instances[0])).toBe('error.png')
    expect(Tray.instances[0].tooltip).toBe('Quire: The sync engine did not start: no such file')
  })

  it("runs the menu's actions and opens the app on a click outside macOS", () => {
    const a = actions()
    new TrayController(electron, ICONS, 'win32', a).update({ session: writer, status: status([space('a', 'synced')]) })
    const fake = Tray.instances[0]
    ;(menuOf(fake).find((m) => m.id === 'sync-now')!.click as () => void)()
    expect(a.syncNow).toHaveBeenCalledOnce()
    fake.emit('click')
    expect(a.openQuire).toHaveBeenCalledOnce()
  })

  it('leaves the click to the menu on macOS, and goes away on dispose', () => {
    const a = actions()
    const tray = new TrayController(electron, ICONS, 'darwin', a)
    Tray.instances[0].emit('click')
    expect(a.openQuire).not.toHaveBeenCalled()
    tray.dispose()
    expect(Tray.instances[0].destroyed).toBe(true)
  })
})

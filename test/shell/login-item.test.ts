import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { applyStartAtLogin, autostartEntry, HIDDEN_FLAG, launchedAtLogin, type LoginItemContext } from '../../src/main/shell/login-item'
import { app, resetElectronMock } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

describe('start at login', () => {
  let config: string
  beforeEach(() => {
    resetElectronMock()
    app.isPackaged = true
    config = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-autostart-'))
  })
  afterEach(() => fs.rmSync(config, { recursive: true, force: true }))

  const context = (platform: NodeJS.Platform, env: NodeJS.ProcessEnv = {}): LoginItemContext => ({
    app: app as unknown as LoginItemContext['app'],
    platform,
    env: { XDG_CONFIG_HOME: config, ...env },
    execPath: '/opt/Quire/quire',
  })

  it('registers a login item on macOS and Windows, started hidden', async () => {
    for (const platform of ['darwin', 'win32'] as const) {
      await applyStartAtLogin(context(platform), true)
      expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: true, args: [HIDDEN_FLAG] })
      await applyStartAtLogin(context(platform), false)
      expect(app.setLoginItemSettings).toHaveBeenLastCalledWith({ openAtLogin: false, args: [HIDDEN_FLAG] })
    }
  })

  it('writes and removes an XDG autostart entry on Linux, pointing at the AppImage when there is one', async () => {
    const file = path.join(config, 'autostart', 'quire.desktop')
    await applyStartAtLogin(context('linux', { APPIMAGE: '/home/u/Apps/Quire 1.0.AppImage' }), true)
    expect(fs.readFileSync(file, 'utf8')).toContain('Exec="/home/u/Apps/Quire 1.0.AppImage" --hidden')
    await applyStartAtLogin(context('linux'), false)
    expect(fs.existsSync(file)).toBe(false)
    expect(app.setLoginItemSettings).not.toHaveBeenCalled()
  })

  it('escapes the command as the Desktop Entry spec says', () => {
    expect(autostartEntry('/opt/a "b" $c\\d')).toContain('Exec="/opt/a \\"b\\" \\$c\\\\d" --hidden')
  })

  it('registers nothing from a development run (the executable would be Electron itself)', async () => {
    app.isPackaged = false
    await applyStartAtLogin(context('darwin'), true)
    await applyStartAtLogin(context('linux'), true)
    expect(app.setLoginItemSettings).not.toHaveBeenCalled()
    expect(fs.existsSync(path.join(config, 'autostart'))).toBe(false)
  })

  it('knows a launch at login by the flag, or by macOS saying so', () => {
    expect(launchedAtLogin(context('linux'), ['/opt/Quire/quire', HIDDEN_FLAG])).toBe(true)
    expect(launchedAtLogin(context('linux'), ['/opt/Quire/quire'])).toBe(false)
    app.loginItem.wasOpenedAtLogin = true
    expect(launchedAtLogin(context('darwin'), ['/Applications/Quire.app/Contents/MacOS/Quire'])).toBe(true)
  })
})

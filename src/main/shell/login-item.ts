import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { App } from 'electron'

/** Passed when the OS starts Quire at login: it comes up in the tray without opening its window. */
export const HIDDEN_FLAG = '--hidden'

export interface LoginItemContext {
  app: Pick<App, 'setLoginItemSettings' | 'getLoginItemSettings' | 'isPackaged'>
  platform: NodeJS.Platform
  env: NodeJS.ProcessEnv
  execPath: string
}

// Desktop Entry spec: quote each argument and escape the characters that stay special inside quotes.
const quoteExec = (arg: string) => `"${arg.replace(/(["`$\\])/g, '\\$1')}"`

function autostartFile(env: NodeJS.ProcessEnv): string {
  return path.join(env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'), 'autostart', 'quire.desktop')
}

/** The XDG autostart entry (Electron's setLoginItemSettings does nothing on Linux). */
export function autostartEntry(command: string): string {
  return ['[Desktop Entry]', 'Type=Application', 'Name=Quire', 'Comment=Sync documentation spaces to local files', `Exec=${quoteExec(command)} ${HIDDEN_FLAG}`, 'Terminal=false', 'X-GNOME-Autostart-enabled=true', ''].join('\n')
}

/**
 * Starts Quire at login, or stops doing so. Only a packaged app registers itself: in development the
 * executable is Electron's own binary, which would start an empty Electron at every login.
 */
export async function applyStartAtLogin(context: LoginItemContext, enabled: boolean): Promise<void> {
  if (!context.app.isPackaged) return
  if (context.platform === 'linux') {
    const file = autostartFile(context.env)
    if (!enabled) return fs.rm(file, { force: true })
    // An AppImage runs from a temporary mount; $APPIMAGE is the file that stays.
    await fs.mkdir(path.dirname(file), { recursive: true })
    await fs.writeFile(file, autostartEntry(context.env.APPIMAGE || context.execPath), { mode: 0o644 })
    return
  }
  context.app.setLoginItemSettings({ openAtLogin: enabled, args: [HIDDEN_FLAG] })
}

/** Whether this launch is the OS starting Quire at login (then the window stays closed). */
export function launchedAtLogin(context: Pick<LoginItemContext, 'app' | 'platform'>, argv: readonly string[]): boolean {
  if (argv.includes(HIDDEN_FLAG)) return true
  return context.platform === 'darwin' && context.app.getLoginItemSettings().wasOpenedAtLogin === true
}

import { spawn } from 'node:child_process'

/**
 * What the backend asks of the desktop around it: open a file in the user's editor, a URL in the
 * browser, a folder in the file manager. The Electron shell passes its own (shell.openPath,
 * shell.openExternal); `quire serve` runs on the user's machine and uses the platform's opener.
 */
export interface DesktopActions {
  openFile(file: string, line?: number): Promise<void>
  openUrl(url: string): Promise<void>
  openFolder(folder: string): Promise<void>
}

function run(command: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore' })
    child.once('error', reject)
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}

function platformOpener(target: string): [string, string[]] {
  if (process.platform === 'darwin') return ['open', [target]]
  // `start` is a cmd builtin; the empty string is the window title it would otherwise take from the target.
  if (process.platform === 'win32') return ['cmd', ['/c', 'start', '', target]]
  return ['xdg-open', [target]]
}

/**
 * `QUIRE_EDITOR` lets the user name an editor command that understands a line, with `{file}` and
 * `{line}` placeholders (e.g. `code -g {file}:{line}`); without it the file opens with the system's
 * default application for its type.
 */
export function systemDesktopActions(env: NodeJS.ProcessEnv = process.env): DesktopActions {
  return {
    async openFile(file, line) {
      const template = env.QUIRE_EDITOR?.trim()
      if (template) {
        const [command, ...args] = template.split(/\s+/).map((part) => part.replaceAll('{file}', file).replaceAll('{line}', String(line ?? 1)))
        return run(command, args)
      }
      return run(...platformOpener(file))
    },
    openUrl: (url) => run(...platformOpener(url)),
    openFolder: (folder) => run(...platformOpener(folder)),
  }
}

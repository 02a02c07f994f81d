import { startDetached, systemEditor, type EditorLauncher } from './editor-launch'

/**
 * What the backend asks of the desktop around it: open a file in the user's editor, a URL in the
 * browser, a folder in the file manager. The Electron shell passes its own (shell.openPath,
 * shell.openExternal); `quire serve` runs on the user's machine and uses the platform's opener.
 */
export interface DesktopActions {
  /** Answers the editor it opened the file in (its name), or nothing when the system's default application opened it. */
  openFile(file: string, line?: number): Promise<string | void>
  openUrl(url: string): Promise<void>
  openFolder(folder: string): Promise<void>
}

/** The system's desktop actions, and the editor step of openFile alone (the Electron shell puts shell.openPath after it). */
export interface SystemDesktopActions extends DesktopActions {
  openInEditor: EditorLauncher
}

function platformOpener(target: string): { command: string; args: string[] } {
  if (process.platform === 'darwin') return { command: 'open', args: [target] }
  // explorer.exe opens a file with its default application and a URL in the browser, with no cmd.exe in
  // between to read a hostile file name (`a & calc.md`) as two commands, as `cmd /c start` would.
  if (process.platform === 'win32') return { command: 'explorer.exe', args: [target] }
  return { command: 'xdg-open', args: [target] }
}

/**
 * Opening a file at its line: `QUIRE_EDITOR` (a command with `{file}` and `{line}`, e.g.
 * `code -g {file}:{line}`), else the editor launch-editor finds (a running one, $VISUAL, $EDITOR), else
 * the system's default application for the file's type (which cannot be told the line).
 */
export function systemDesktopActions(env: NodeJS.ProcessEnv = process.env, openInEditor: EditorLauncher = systemEditor({ env })): SystemDesktopActions {
  return {
    openInEditor,
    async openFile(file, line) {
      const editor = await openInEditor(file, line)
      if (editor) return editor
      await startDetached(platformOpener(file))
    },
    openUrl: (url) => startDetached(platformOpener(url)),
    openFolder: (folder) => startDetached(platformOpener(folder)),
  }
}

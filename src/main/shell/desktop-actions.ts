import fs from 'node:fs/promises'
import path from 'node:path'
import type { Shell } from 'electron'
import type { DesktopActions } from '../app/desktop-actions'
import type { EditorLauncher } from '../app/editor-launch'
import { openExternalUrl } from './external-url'

// shell.openPath runs whatever the OS associates with a file: an .exe, .app, .command or .desktop would be
// launched, not shown. Only documents the link report and the workspace hold are opened.
const OPENABLE = new Set(['.md', '.markdown', '.mdx', '.txt', '.yaml', '.yml', '.json', '.png', '.jpg', '.jpeg', '.gif', '.svg', '.webp', '.pdf'])

async function requireKind(target: string, kind: 'file' | 'directory') {
  if (!path.isAbsolute(target)) throw new Error(`not an absolute path: ${target}`)
  const stat = await fs.stat(target).catch(() => undefined)
  if (!stat) throw new Error(`${target} does not exist`)
  if (kind === 'file' ? !stat.isFile() : !stat.isDirectory()) throw new Error(`${target} is not a ${kind}`)
}

async function openPath(shell: Pick<Shell, 'openPath'>, target: string) {
  // openPath resolves with an error message ('' on success) instead of rejecting.
  const failure = await shell.openPath(target)
  if (failure) throw new Error(`could not open ${target}: ${failure}`)
}

/**
 * What the backend asks of the desktop, done the Electron way: URLs through the http(s) allow-list to the
 * system browser, folders through the OS's default application. A file opens at its line in the user's
 * editor when `system.openInEditor` finds one (`QUIRE_EDITOR`, else launch-editor's guess: a running
 * editor, $VISUAL, $EDITOR); otherwise through the OS's default application, which cannot be told the line.
 */
export function electronDesktopActions(shell: Pick<Shell, 'openExternal' | 'openPath'>, system?: Partial<DesktopActions> & { openInEditor?: EditorLauncher }): DesktopActions {
  return {
    openUrl: (url) => openExternalUrl(shell, url),
    async openFolder(folder) {
      await requireKind(folder, 'directory')
      await openPath(shell, folder)
    },
    async openFile(file, line) {
      await requireKind(file, 'file')
      if (!OPENABLE.has(path.extname(file).toLowerCase())) throw new Error(`refused to open ${path.basename(file)}: not a document`)
      const editor = system?.openInEditor ? await system.openInEditor(file, line) : false
      if (editor) return editor
      await openPath(shell, file)
    },
  }
}

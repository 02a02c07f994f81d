import { spawn } from 'node:child_process'
import path from 'node:path'
import getArgumentsForFile from 'launch-editor/get-args.js'
import guessEditor from 'launch-editor/guess.js'

/**
 * Opening a file at a line in the user's editor. Which editor and how to pass it the line is
 * launch-editor's knowledge (the package behind Vite's and Vue's "open in editor"): a command the user
 * named, else a known editor that is running, else $VISUAL / $EDITOR; each with its own line syntax
 * (`code -r -g file:7:1`, `subl file:7:1`, `idea --line 7 file`, ...). Quire does its own spawning, for
 * three reasons: the file name goes to the editor as one argument, never through a shell (page slugs
 * come from the server, so file names may be hostile); an editor that needs a terminal is skipped (the
 * app has none: the OS default opens the file instead); and the caller learns whether an editor started.
 */

/** Starts an editor on `file` at `line` and answers its name ("Visual Studio Code"); false when there is no editor to start, so the caller opens the file another way. */
export type EditorLauncher = (file: string, line?: number) => Promise<string | false>

/** What people call the editors launch-editor knows by their command. */
const EDITOR_NAMES: Record<string, string> = {
  code: 'Visual Studio Code',
  'code-insiders': 'Visual Studio Code Insiders',
  codium: 'VSCodium',
  cursor: 'Cursor',
  subl: 'Sublime Text',
  sublime_text: 'Sublime Text',
  atom: 'Atom',
  zed: 'Zed',
  idea: 'IntelliJ IDEA',
  webstorm: 'WebStorm',
  phpstorm: 'PhpStorm',
  pycharm: 'PyCharm',
  gedit: 'gedit',
  'gnome-text-editor': 'Text Editor',
  kate: 'Kate',
  mate: 'TextMate',
  notepad: 'Notepad',
  'notepad++': 'Notepad++',
}

/** An editor's name from its command (a path, maybe with .exe): the known name, else the command's own. */
export function editorName(command: string): string {
  const base = path.basename(command).replace(/\.(exe|cmd|bat|app)$/i, '')
  return EDITOR_NAMES[base.toLowerCase()] ?? base
}

// These run inside a terminal: started from the app or `quire serve` they would sit invisible (or take
// over the terminal `quire serve` prints to).
const TERMINAL_EDITORS = new Set(['vi', 'vim', 'nvim', 'nano', 'pico', 'emacs', 'joe', 'micro', 'hx', 'helix', 'kak', 'ne', 'mg', 'ed', 'jed', 'mcedit'])

export interface EditorCommand {
  command: string
  args: string[]
}

/**
 * The command that opens `file` at `line` in the editor launch-editor finds (`specifiedEditor`, a command
 * line the user wrote, parsed by shell-quote; else its guess), or undefined when none fits.
 */
export function editorCommand(file: string, line: number | undefined, options: { specifiedEditor?: string; guess?: typeof guessEditor } = {}): EditorCommand | undefined {
  const [editor, ...extra] = (options.guess ?? guessEditor)(options.specifiedEditor)
  // shell-quote turns `a | b` or `a > f` into operator objects: such a command line is not one program to run.
  if (typeof editor !== 'string' || editor === '' || extra.some((part) => typeof part !== 'string')) return undefined
  const name = path.basename(editor).replace(/\.(exe|cmd|bat)$/i, '')
  if (TERMINAL_EDITORS.has(name)) return undefined
  // A .cmd or .bat (how `code` is on a Windows PATH) runs only through cmd.exe, which would read the file
  // name as shell syntax; the OS default opens the file instead.
  if (process.platform === 'win32' && /\.(cmd|bat)$/i.test(editor)) return undefined
  const lineArgs = getArgumentsForFile(editor, file, line && line > 0 ? line : undefined, 1).map(String)
  return { command: editor, args: [...(extra as string[]), ...lineArgs] }
}

/**
 * `QUIRE_EDITOR='code -g {file}:{line}'`: the user's own command, split on spaces, with `{file}` and
 * `{line}` filled in inside single arguments (no shell).
 */
export function templateCommand(template: string, file: string, line: number | undefined): EditorCommand {
  const [command, ...args] = template
    .trim()
    .split(/\s+/)
    .map((part) => part.replaceAll('{file}', file).replaceAll('{line}', String(line ?? 1)))
  return { command, args }
}

/** Starts `command` detached from Quire (it outlives `quire serve`); resolves once it started, rejects when it could not start. */
export function startDetached({ command, args }: EditorCommand): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { detached: true, stdio: 'ignore', shell: false, windowsHide: false })
    child.once('error', (error) => reject(new Error(`could not start ${path.basename(command)}: ${error.message}`)))
    child.once('spawn', () => {
      child.unref()
      resolve()
    })
  })
}

export interface EditorLauncherOptions {
  env?: NodeJS.ProcessEnv
  /** launch-editor's guess, which reads process.env and `ps` (tests pass their own: the machine's running editors are no test's business). */
  guess?: typeof guessEditor
  start?: (command: EditorCommand) => Promise<void>
}

/**
 * The desktop's editor: `QUIRE_EDITOR` when set (its failure is the user's to see), else launch-editor's
 * choice (`LAUNCH_EDITOR` names one for it, then running editors, $VISUAL, $EDITOR); an editor that does
 * not start counts as none, so the file still opens with the OS default.
 */
export function systemEditor(options: EditorLauncherOptions = {}): EditorLauncher {
  const env = options.env ?? process.env
  const start = options.start ?? startDetached
  return async (file, line) => {
    const template = env.QUIRE_EDITOR?.trim()
    if (template) {
      const command = templateCommand(template, file, line)
      await start(command)
      return editorName(command.command)
    }
    const command = editorCommand(file, line, options.guess ? { guess: options.guess } : {})
    if (!command) return false
    return start(command).then(
      () => editorName(command.command),
      () => false as const,
    )
  }
}

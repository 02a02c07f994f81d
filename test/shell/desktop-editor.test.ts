import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { editorCommand, systemEditor, type EditorCommand } from '../../src/main/app/editor-launch'
import { electronDesktopActions } from '../../src/main/shell/desktop-actions'
import { resetElectronMock, shell } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

/**
 * Opening a file at its line without QUIRE_EDITOR: launch-editor's choice of editor and its line syntax,
 * then the OS default. No real desktop editor is ever started here: the editors are recording scripts
 * named as launch-editor knows them (`code`, `subl`), given through its own specifiedEditor argument or
 * through a stand-in for its guess (which would otherwise look at the editors running on this machine).
 */
describe.skipIf(process.platform === 'win32')('opening a file at its line in the editor launch-editor finds', () => {
  let dir: string
  let calls: string
  let page: string

  /** An executable named `name` that appends the arguments it was started with to `calls`. */
  const recordingEditor = (name: string) => {
    const file = path.join(dir, 'bin', name)
    fs.mkdirSync(path.dirname(file), { recursive: true })
    fs.writeFileSync(file, `#!${process.execPath}\nrequire('node:fs').appendFileSync(${JSON.stringify(calls)}, JSON.stringify(process.argv.slice(2)) + '\\n')\n`, { mode: 0o755 })
    return file
  }
  const recorded = async () => {
    await expect.poll(() => fs.existsSync(calls), { timeout: 20_000 }).toBe(true)
    return fs
      .readFileSync(calls, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as string[])
  }

  beforeEach(() => {
    resetElectronMock()
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-editor-'))
    calls = path.join(dir, 'calls.jsonl')
    // A page slug from the server can make any file name: this one is shell syntax in every way.
    page = path.join(dir, `$(touch pwned) & x'; y "z" \`id\`.md`)
    fs.writeFileSync(page, '# Page\n')
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('passes the line the way the editor understands it (code: -r -g file:line:column), the file name as one argument, through no shell', async () => {
    const code = recordingEditor('code')
    const launch = systemEditor({ env: {}, guess: () => [code] })
    expect(await launch(page, 7)).toBe('Visual Studio Code')
    expect(await recorded()).toEqual([['-r', '-g', `${page}:7:1`]])
    expect(fs.existsSync(path.join(dir, 'pwned'))).toBe(false)
  })

  it("takes launch-editor's specifiedEditor, parsed as a command line (subl file:line:column after its own arguments)", async () => {
    const subl = recordingEditor('subl')
    const command = editorCommand(page, 12, { specifiedEditor: `'${subl}' --new-window` })
    expect(command).toEqual({ command: subl, args: ['--new-window', `${page}:12:1`] })
    // Without a line the file alone; an editor launch-editor does not know gets the file alone too.
    expect(editorCommand(page, undefined, { specifiedEditor: subl })?.args).toEqual([page])
    expect(editorCommand(page, 3, { specifiedEditor: recordingEditor('some-editor') })?.args).toEqual([page])
    // A command line with shell operators is not one program: no editor.
    expect(editorCommand(page, 3, { specifiedEditor: `${subl} | tee /tmp/x` })).toBeUndefined()
  })

  it('opens the file with the OS default when no editor is found, when the editor needs a terminal, or when it cannot start', async () => {
    const started: EditorCommand[] = []
    const recordStart = async (command: EditorCommand) => void started.push(command)
    const cases = [
      systemEditor({ env: {}, guess: () => [null] }),
      systemEditor({ env: {}, guess: () => ['vim'], start: recordStart }),
      systemEditor({ env: {}, guess: () => [path.join(dir, 'no-such-editor')] }),
    ]
    for (const openInEditor of cases) await electronDesktopActions(shell, { openInEditor }).openFile(page, 4)
    expect(started).toEqual([]) // vim was never started
    expect(shell.openPath.mock.calls).toEqual([[page], [page], [page]])
  })

  it('uses the editor in the Electron app when one starts, and never then the OS default', async () => {
    const code = recordingEditor('code')
    await electronDesktopActions(shell, { openInEditor: systemEditor({ env: {}, guess: () => [code] }) }).openFile(page, 9)
    expect(await recorded()).toEqual([['-r', '-g', `${page}:9:1`]])
    expect(shell.openPath).not.toHaveBeenCalled()
  })

  it('QUIRE_EDITOR wins, with {file} and {line} inside single arguments; its failure to start is reported, not hidden', async () => {
    const script = recordingEditor('my-editor')
    const launch = systemEditor({ env: { QUIRE_EDITOR: `${script} --goto {file}:{line}` }, guess: () => ['code'] })
    expect(await launch(page, 5)).toBe('my-editor')
    expect(await recorded()).toEqual([['--goto', `${page}:5`]])
    const broken = systemEditor({ env: { QUIRE_EDITOR: `${path.join(dir, 'missing')} {file}` } })
    await expect(broken(page, 1)).rejects.toThrow(/could not start missing/)
  })
})

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { electronDesktopActions } from '../../src/main/shell/desktop-actions'
import { resetElectronMock, shell } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

describe('desktop actions (Electron)', () => {
  let dir: string
  beforeEach(() => {
    resetElectronMock()
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-desktop-'))
    fs.writeFileSync(path.join(dir, 'page.md'), '# Page\n')
    fs.writeFileSync(path.join(dir, 'run.sh'), '#!/bin/sh\n')
  })
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

  it('opens a markdown file and the workspace folder with the OS', async () => {
    const actions = electronDesktopActions(shell)
    await actions.openFile(path.join(dir, 'page.md'), 12)
    await actions.openFolder(dir)
    expect(shell.openPath.mock.calls).toEqual([[path.join(dir, 'page.md')], [dir]])
  })

  it('never launches a program, a missing file or a folder passed as a file', async () => {
    const actions = electronDesktopActions(shell)
    await expect(actions.openFile(path.join(dir, 'run.sh'))).rejects.toThrow(/not a document/)
    await expect(actions.openFile(path.join(dir, 'missing.md'))).rejects.toThrow(/does not exist/)
    await expect(actions.openFile(dir)).rejects.toThrow(/is not a file/)
    await expect(actions.openFolder(path.join(dir, 'page.md'))).rejects.toThrow(/is not a directory/)
    await expect(actions.openFile('page.md')).rejects.toThrow(/absolute/)
    expect(shell.openPath).not.toHaveBeenCalled()
  })

  it("reports the OS's failure to open", async () => {
    shell.openPath.mockResolvedValueOnce('No application knows how to open this file')
    await expect(electronDesktopActions(shell).openFile(path.join(dir, 'page.md'))).rejects.toThrow(/No application/)
  })

  it('opens only http(s) URLs in the browser', async () => {
    const actions = electronDesktopActions(shell)
    await actions.openUrl('https://app.example/cr/1')
    await expect(actions.openUrl('file:///etc/passwd')).rejects.toThrow(/only http\(s\)/)
    expect(shell.openExternal.mock.calls).toEqual([['https://app.example/cr/1']])
  })
})

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { shellLog } from '../../src/main/shell/shell-log'

describe('main process log', () => {
  const roots: string[] = []
  afterEach(() => roots.splice(0).forEach((r) => fs.rmSync(r, { recursive: true, force: true })))

  it('appends lines in order to <logs>/main.log (0600), creating the folder on first use', async () => {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-log-'))
    roots.push(root)
    const dir = path.join(root, 'logs')
    const echo = vi.fn()
    const log = shellLog(dir, echo)
    expect(fs.existsSync(dir)).toBe(false)
    log('first')
    log('second')
    await log.flushed()
    expect(fs.readFileSync(path.join(dir, 'main.log'), 'utf8')).toMatch(/Z first\n.*Z second\n$/)
    expect(echo).toHaveBeenCalledWith('quire: first')
    if (process.platform !== 'win32') expect(fs.statSync(path.join(dir, 'main.log')).mode & 0o777).toBe(0o600)
  })
})

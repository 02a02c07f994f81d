import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { ActivityLog } from '../../src/main/app/activity-log'
import { readLogTail, RotatingLogFile } from '../../src/main/app/rotating-log-file'
import { shellLog } from '../../src/main/shell/shell-log'

const roots: string[] = []
afterEach(() => roots.splice(0).forEach((r) => fs.rmSync(r, { recursive: true, force: true })))
function tempDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-rotate-'))
  roots.push(dir)
  return dir
}

/** Every line of the log, oldest first, across its rotated files. */
function allLines(log: RotatingLogFile): string[] {
  return log.files().flatMap((file) => fs.readFileSync(file, 'utf8').split('\n').filter(Boolean))
}

describe('logs rotate (levels and rotation, as GitHub Desktop keeps its log)', () => {
  it('never lets a file pass its limit, keeps the newest lines in order, and drops only the oldest files', () => {
    const file = path.join(tempDir(), 'logs', 'activity.log')
    const log = new RotatingLogFile(file, { maxBytes: 1000, keep: 2 })
    const lines = Array.from({ length: 200 }, (_, i) => `line ${String(i).padStart(3, '0')} ${'x'.repeat(i % 40)}`)
    for (const line of lines) log.appendSync(`${line}\n`)

    expect(log.files()).toEqual([`${file}.2`, `${file}.1`, file])
    for (const f of log.files()) expect(fs.statSync(f).size).toBeLessThanOrEqual(1000)
    if (process.platform !== 'win32') for (const f of log.files()) expect(fs.statSync(f).mode & 0o777).toBe(0o600)
    const kept = allLines(log)
    // What is kept is exactly the newest lines, in order, with none missing between them.
    expect(kept).toEqual(lines.slice(-kept.length))
    expect(kept.length).toBeGreaterThan(20)
    expect(kept.length).toBeLessThan(200)
    expect(fs.existsSync(`${file}.3`)).toBe(false)
  })

  it('a new writer over an existing file counts what is already there before rotating', async () => {
    const file = path.join(tempDir(), 'main.log')
    fs.writeFileSync(file, `${'old\n'.repeat(250)}`)
    const log = new RotatingLogFile(file, { maxBytes: 1000, keep: 1 })
    await log.append('new line\n')
    expect(fs.readFileSync(file, 'utf8')).toBe('new line\n')
    expect(fs.readFileSync(`${file}.1`, 'utf8')).toBe('old\n'.repeat(250))
  })

  it('the tail starts at a whole line and spans a rotation', () => {
    const file = path.join(tempDir(), 'a.log')
    const log = new RotatingLogFile(file, { maxBytes: 100, keep: 3 })
    for (let i = 0; i < 30; i++) log.appendSync(`entry-${i}\n`)
    const tail = readLogTail(log, 150)
    expect(Buffer.byteLength(tail)).toBeLessThanOrEqual(150)
    const lines = tail.split('\n').filter(Boolean)
    expect(lines.every((l) => /^entry-\d+$/.test(l))).toBe(true)
    expect(lines.at(-1)).toBe('entry-29')
    expect(lines.length).toBeGreaterThan(10) // more than the current file alone holds
    expect(lines).toEqual(lines.map((_, i) => `entry-${30 - lines.length + i}`))
  })

  it('the activity log comes back after a restart from its rotated files, newest entries, levels kept', () => {
    const file = path.join(tempDir(), 'logs', 'activity.log')
    const first = new ActivityLog(file, () => new Date('2026-11-24T10:00:00Z'), { maxBytes: 4000, keep: 2 })
    for (let i = 0; i < 120; i++) first.add(i % 10 === 0 ? 'warning' : 'info', `Synced page ${i}`)
    expect(fs.existsSync(`${file}.1`)).toBe(true)
    for (const f of [file, `${file}.1`]) expect(fs.statSync(f).size).toBeLessThanOrEqual(4000)

    const again = new ActivityLog(file, undefined, { maxBytes: 4000, keep: 2 })
    const entries = again.list()
    expect(entries.at(-1)).toMatchObject({ level: 'info', message: 'Synced page 119' })
    expect(entries.map((e) => e.message)).toEqual(first.list().slice(-entries.length).map((e) => e.message))
    expect(entries.find((e) => e.message === 'Synced page 110')?.level).toBe('warning')
  })

  it("the app's main log rotates too, and flushed() waits for its last line", async () => {
    const dir = tempDir()
    const log = shellLog(dir, () => undefined)
    const long = 'y'.repeat(1000)
    for (let i = 0; i < 2200; i++) log(`${i} ${long}`) // about 2.2 MB: past the 2 MB limit once
    await log.flushed()
    expect(fs.statSync(path.join(dir, 'main.log')).size).toBeLessThanOrEqual(2 * 1024 * 1024)
    expect(fs.existsSync(path.join(dir, 'main.log.1'))).toBe(true)
    expect(fs.readFileSync(path.join(dir, 'main.log'), 'utf8').trimEnd().split('\n').at(-1)).toMatch(/Z 2199 y+$/)
  })
})

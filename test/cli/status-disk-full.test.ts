/**
 * Issue 25, item 6: with the disk that holds the cache full and the service back, `quire status` said
 * "offline": the pass that found the service again could not record anything, so the state last
 * recorded (offline) was shown. Now it says the disk is full and names the folder.
 */
import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../src/main/engine/cache/open-cache'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { seedSpace } from '../engine/sync-up/support/workspace'
import { loginTo, quire } from './support/cli-home'

const t = restartableServiceForFile()

/** A tmpfs of `size` mounted at `dir`, when this machine lets the test mount one (root in a privileged container). */
function mountTmpfs(dir: string, size: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Writes a file until the disk refuses (ENOSPC): the disk is then full. */
function fill(dir: string) {
  const fd = fs.openSync(path.join(dir, 'filler'), 'w')
  const chunk = Buffer.alloc(64 * 1024, 1)
  try {
    for (;;) fs.writeSync(fd, chunk)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  }
  // The last few blocks, in smaller writes.
  try {
    for (;;) fs.writeSync(fd, chunk.subarray(0, 512))
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOSPC') throw error
  } finally {
    fs.closeSync(fd)
  }
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-status-full-'))
const home = path.join(root, 'home')
const workspace = path.join(root, 'ws')
fs.mkdirSync(home)
const mounted = mountTmpfs(home, '16m')

beforeAll(() => {
  process.env.QUIRE_HOME = home
  process.env.QUIRE_TOKEN_STORE = 'file'
})
afterAll(() => {
  if (mounted) execFileSync('umount', [home])
  fs.rmSync(root, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

describe('quire status on a full disk', () => {
  it.skipIf(!mounted)('says the disk holding the cache is full, naming the folder, not "offline"', async () => {
    const seeded = await seedSpace(t)
    await loginTo(t)
    expect((await quire('sync', '--once', '--space', seeded.spaceId, '--workspace', workspace)).code).toBe(0)
    const full = `disk full: no space left for the cache in ${home}`

    // Another process (a quire watch, the app) has the cache open while the disk fills.
    const held = openCacheDatabase(path.join(home, 'cache.db'))
    try {
      await t.stop()
      try {
        expect((await quire('sync', '--once')).code).not.toBe(0)
        expect((await quire('status')).out).toMatch(/: offline: /)
        fill(home)
      } finally {
        await t.start()
      }
      expect((await quire('sync', '--once')).code).not.toBe(0)
      const status = await quire('status')
      expect(status.out).not.toMatch(/offline/)
      expect(status.out).toContain(`Docs: error: ${full}`)
      const json = JSON.parse((await quire('status', '--json')).out) as { spaces: Array<{ state: string; stateDetail: { reason: string } }> }
      expect(json.spaces.map((s) => [s.state, s.stateDetail.reason])).toEqual([['error', full]])
    } finally {
      held.close()
    }
    // Alone, the cache may not even open (SQLite cannot make its journal): the command says why.
    const alone = await quire('status')
    expect(alone.all).not.toMatch(/offline/)
    expect(alone.all).toContain(full)

    // Room again: the state is what the next pass records.
    fs.rmSync(path.join(home, 'filler'))
    expect((await quire('sync', '--once')).code).toBe(0)
    expect((await quire('status')).out).not.toMatch(/disk full|offline/)
  })
})

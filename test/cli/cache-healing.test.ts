import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

/**
 * A cache that heals (issue 25 item 5): a truncated, zeroed or byte-flipped cache.db no longer bricks
 * every command with SQLite's bare text. `quire status`, run as a real process, sets the file aside
 * (renamed, never deleted), says so in one line naming both files, and works on a fresh cache. `quire
 * doctor` checks and repairs on demand; an unreadable outbox row is found and set aside.
 */

const t = serviceForFile()
const home = quireHomeForFile('quire-heal-')
const bin = path.resolve(__dirname, '../../bin/quire.mjs')
/** A healthy cache as `quire login` and `quire sync --once` left it, copied before any damage. */
let pristine: Buffer
let spaceId: string

beforeAll(async () => {
  const { seeded } = await mirroredSeededSpace(t, home)
  spaceId = seeded.spaceId
  // Every connection is closed: the WAL is checkpointed into the file, so the file alone is the cache.
  expect(fs.existsSync(path.join(home, 'cache.db-wal'))).toBe(false)
  pristine = fs.readFileSync(path.join(home, 'cache.db'))
}, 60_000)

/** A Quire home of its own holding the pristine cache, damaged by `damage`. */
function damagedHome(name: string, damage: (bytes: Buffer) => Buffer): string {
  const dir = path.join(home, name)
  fs.mkdirSync(dir, { recursive: true })
  fs.writeFileSync(path.join(dir, 'cache.db'), damage(Buffer.from(pristine)))
  return dir
}

function run(quireHome: string, ...args: string[]): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, ...args], { env: { ...process.env, QUIRE_HOME: quireHome, QUIRE_TOKEN_STORE: 'file' }, stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    let err = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, out, err }))
  })
}

const pageSize = (bytes: Buffer) => {
  const size = bytes.readUInt16BE(16)
  return size === 1 ? 65536 : size
}

const DAMAGES: Record<string, (bytes: Buffer) => Buffer> = {
  truncated: (bytes) => bytes.subarray(0, Math.floor(bytes.length * 0.4)),
  zeroed: (bytes) => Buffer.alloc(bytes.length),
  // The first byte of each b-tree page after the first (its page type), flipped, as a failing disk might.
  'byte-flipped': (bytes) => {
    const size = pageSize(bytes)
    for (let page = 1; page < Math.min(bytes.length / size, 12); page++) bytes[page * size] ^= 0xff
    return bytes
  },
}

describe('a damaged cache.db: quire status sets it aside, says so once, and works', () => {
  for (const [name, damage] of Object.entries(DAMAGES)) {
    it(`${name}`, { timeout: 60_000 }, async () => {
      const dir = damagedHome(`status-${name}`, damage)
      const damaged = fs.readFileSync(path.join(dir, 'cache.db'))
      const status = await run(dir, 'status')
      const errLines = status.err.trim().split('\n').filter(Boolean)
      expect(errLines, status.err).toHaveLength(1)
      const aside = fs.readdirSync(dir).filter((f) => f.startsWith('cache.db.damaged-') && !/-(wal|shm)$/.test(f))
      expect(aside).toHaveLength(1)
      expect(errLines[0]).toContain(path.join(dir, 'cache.db'))
      expect(errLines[0]).toContain(path.join(dir, aside[0]))
      expect(errLines[0]).toContain('quire login')
      // Set aside as it was: nothing deleted.
      expect(fs.readFileSync(path.join(dir, aside[0])).equals(damaged)).toBe(true)
      // It works: a fresh cache, signed out (the account lived in the cache; the token file stays).
      expect(status.out).toContain('not signed in: run quire login')
      expect(status.code).toBe(1)
      const again = await run(dir, 'status')
      expect(again.err).toBe('')
      expect(again.out).toContain('not signed in: run quire login')
    })
  }
})

describe('quire doctor', () => {
  it('finds a damaged cache and changes nothing; --repair sets it aside; then it is healthy', { timeout: 60_000 }, async () => {
    const dir = damagedHome('doctor-zeroed', DAMAGES.zeroed)
    process.env.QUIRE_HOME = dir
    try {
      const found = await quire('doctor')
      expect(found.code).toBe(1)
      expect(found.out).toContain('is damaged')
      expect(fs.readdirSync(dir).filter((f) => f.includes('damaged'))).toEqual([])

      const repaired = await quire('doctor', '--repair')
      expect(repaired.code).toBe(1)
      expect(repaired.err.split('\n')).toHaveLength(1)
      expect(repaired.err).toMatch(/set aside as .*cache\.db\.damaged-/)
      expect(fs.readdirSync(dir).some((f) => f.startsWith('cache.db.damaged-'))).toBe(true)

      const healthy = await quire('doctor')
      expect(healthy).toMatchObject({ code: 0 })
      expect(healthy.out).toContain('healthy')
    } finally {
      process.env.QUIRE_HOME = home
    }
  })

  it('finds an outbox row whose data cannot be read; --repair sets it aside, the rest stays', { timeout: 60_000 }, async () => {
    const dir = damagedHome('doctor-outbox', (bytes) => bytes)
    const db = new Database(path.join(dir, 'cache.db'))
    const insert = db.prepare("INSERT INTO outbox (space_id, generation, kind, op_key, payload, state, created_at) VALUES (?, 1, 'comment', ?, ?, 'pending', '2026-01-01T00:00:00Z')")
    const bad = Number(insert.run(spaceId, 'bad-row', '{"pageId": ').lastInsertRowid)
    const good = Number(insert.run(spaceId, 'good-row', JSON.stringify({ pageId: 'p', text: 'hello', target: 'space', userId: 'u' })).lastInsertRowid)
    db.close()
    process.env.QUIRE_HOME = dir
    try {
      const found = await quire('doctor')
      expect(found.code).toBe(1)
      expect(found.out).toContain(`operation #${bad} (comment)`)
      expect(found.out).not.toContain(`#${good} `)

      const repaired = await quire('doctor', '--repair')
      expect(repaired.code).toBe(1)
      const after = new Database(path.join(dir, 'cache.db'), { readonly: true })
      const states = after.prepare('SELECT seq, state FROM outbox WHERE seq IN (?, ?) ORDER BY seq').all(bad, good)
      after.close()
      expect(states).toEqual([
        { seq: bad, state: 'set-aside' },
        { seq: good, state: 'pending' },
      ])

      const healthy = await quire('doctor')
      expect(healthy.code).toBe(0)
      expect(healthy.out).toContain(`#${bad} (comment)`)
      expect(healthy.out).toContain('set aside earlier')
    } finally {
      process.env.QUIRE_HOME = home
    }
  })
})

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type { Comment } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../src/main/engine/outbox/outbox-repository'
import { LeaseChild, type ChildEvent } from './support/lease-processes'
import { serviceForFile } from './sync-up/support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './sync-up/support/workspace'

// Real processes (node --import tsx) on one real SQLite cache file, and the real local service.

const children: LeaseChild[] = []
const dirs: string[] = []
afterEach(async () => {
  for (const child of children.splice(0)) {
    child.kill('SIGCONT')
    child.kill('SIGKILL')
    await child.exited
  }
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function start(args: ConstructorParameters<typeof LeaseChild>[0], env?: NodeJS.ProcessEnv): LeaseChild {
  const child = new LeaseChild(args, env)
  children.push(child)
  return child
}

function cacheFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-lease-proc-'))
  dirs.push(dir)
  return path.join(dir, 'cache.db')
}

const acquired = (e: ChildEvent) => e.event === 'acquired'

describe('workspace lease between processes', () => {
  it('a second process is told who holds the lease; SIGKILL of the holder hands it over at once (its pid is dead)', { timeout: 120_000 }, async () => {
    const file = cacheFile()
    const holder = start({ mode: 'hold', cacheFile: file, kind: 'watch', ttlMs: 30_000, heartbeatMs: 1_000 })
    const got = await holder.until(acquired)
    expect(got.tookOver).toBeUndefined()

    const second = start({ mode: 'hold', cacheFile: file, kind: 'app', ttlMs: 30_000, heartbeatMs: 1_000 })
    const held = await second.until((e) => e.event === 'held')
    expect(held.holder).toMatchObject({ kind: 'watch', pid: holder.pid, ownerId: got.ownerId, hostname: os.hostname() })
    expect((await second.exited).code).toBe(3)

    const waiter = start({ mode: 'wait', cacheFile: file, kind: 'sync', ttlMs: 30_000, heartbeatMs: 1_000 })
    await waiter.until((e) => e.event === 'waiting')
    const killedAt = Date.now()
    holder.kill('SIGKILL')
    const over = await waiter.until(acquired)
    // The ttl is 30 s: only the dead pid lets the waiter in this soon.
    expect(Date.now() - killedAt).toBeLessThan(25_000)
    expect(over.tookOver).toMatchObject({ reason: 'dead', from: { pid: holder.pid, kind: 'watch' } })
    expect((await waiter.exited).code).toBe(0)
    console.log(`lease: handed over ${(over.at as number) - killedAt} ms after SIGKILL of the holder (ttl 30 s)`)
  })

  it('a frozen holder (SIGSTOP) is taken over after its ttl; when it runs again its heartbeat reports the loss', { timeout: 120_000 }, async () => {
    const file = cacheFile()
    const ttlMs = 1_500
    const holder = start({ mode: 'hold', cacheFile: file, kind: 'watch', ttlMs, heartbeatMs: 200 })
    await holder.until(acquired)
    const waiter = start({ mode: 'wait', cacheFile: file, kind: 'sync', ttlMs, heartbeatMs: 200, stay: true })
    await waiter.until((e) => e.event === 'waiting')

    holder.kill('SIGSTOP')
    const over = await waiter.until(acquired)
    expect(over.tookOver).toMatchObject({ reason: 'expired', from: { pid: holder.pid, kind: 'watch' } })
    // Not before a whole ttl without a heartbeat.
    const { from } = over.tookOver as { from: { heartbeatAt: number } }
    expect(over.at as number).toBeGreaterThan(from.heartbeatAt + ttlMs)
    console.log(`lease: taken over ${(over.at as number) - from.heartbeatAt} ms after the frozen holder's last heartbeat (ttl ${ttlMs} ms)`)

    holder.kill('SIGCONT')
    const lost = await holder.until((e) => e.event === 'lost')
    expect(lost.by).toMatchObject({ pid: waiter.pid, kind: 'sync', ownerId: over.ownerId })
  })
})

const t = serviceForFile()

describe('two processes racing to drain one outbox', () => {
  it('sends every op exactly once: holders take turns, a frozen holder is taken over and cannot claim when it wakes, a killed one is replaced', { timeout: 300_000 }, async () => {
    const dir = tempDir('quire-lease-race-')
    dirs.push(dir)
    const seeded = await seedSpace(t)
    const pageIds = [...pagesOf(await mainRevision(t.api, seeded.spaceId)).keys()]
    const setup = new Workstation(t, seeded, dir)
    const texts: string[] = []
    for (let n = 0; n < 36; n++) {
      const text = `Lease race comment ${n}`
      texts.push(text)
      setup.outbox.enqueue({
        spaceId: seeded.spaceId,
        generation: 1,
        kind: 'comment',
        key: `race:${n}`,
        payload: { pageId: pageIds[n % pageIds.length], text, target: 'space', userId: t.service.ownerId },
      })
    }
    setup.close()

    const ttlMs = 1_500
    const base = {
      mode: 'drain' as const,
      cacheFile: path.join(dir, 'cache.db'),
      kind: 'sync',
      ttlMs,
      heartbeatMs: 250,
      remote: { origin: t.service.origin, token: t.service.token },
      spaceId: seeded.spaceId,
      batch: 4,
    }
    // The first holds the lease first, and freezes its whole thread (no heartbeat) after its second
    // comment, for three times the ttl, while the two others wait for the lease.
    const frozen = start({ ...base, stallAfter: 2, stallMs: 3 * ttlMs })
    const others = [start(base), start(base)]
    const ready = (e: ChildEvent) => e.event === 'ready'
    await Promise.all([frozen, ...others].map((c) => c.until(ready)))
    frozen.go()
    await frozen.until(acquired)
    for (const c of others) c.go()

    // Whichever other one posts its third comment first is SIGKILLed then (usually in the middle of its
    // next op), and a new process takes its place.
    const third = (c: LeaseChild) => c.until((e) => e.event === 'posted' && c.events.filter((p) => p.event === 'posted').length >= 3, { timeoutMs: 120_000 })
    const doomed = await Promise.any(others.map(async (c) => (await third(c), c)))
    doomed.kill('SIGKILL')
    const replacement = start(base)
    await replacement.until(ready)
    replacement.go()
    const survivors = [frozen, ...others.filter((c) => c !== doomed), replacement]

    const ends = await Promise.all(survivors.map((c) => c.exited))
    const all = [...survivors, doomed].flatMap((c) => c.events)
    const story = `events: ${JSON.stringify(all)}\nstderr: ${[...survivors, doomed].map((c) => c.stderr).join('\n')}`
    expect(ends.map((e) => e.code), story).toEqual([0, 0, 0])
    // Killed unless it had already sent the last op and ended.
    const end = await doomed.exited
    expect(end.signal === 'SIGKILL' || (end.code === 0 && doomed.events.some((e) => e.event === 'done')), story).toBe(true)

    // Each comment on the service exactly once.
    const listed = await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { limit: 1000 } })
    const posted = (listed.body.items as Comment[]).map((c) => (c.body as { markdown: string }).markdown.trim())
    expect(posted.filter((p) => p.startsWith('Lease race comment')).sort(), story).toEqual([...texts].sort())

    const db = openCacheDatabase(path.join(dir, 'cache.db'))
    try {
      const outbox = new OutboxRepository(db)
      expect(outbox.unfinished(seeded.spaceId)).toEqual([])
      expect(new Set(outbox.ops(seeded.spaceId).map((op) => op.state))).toEqual(new Set(['done']))
    } finally {
      db.close()
    }

    // The frozen one woke up believing it held the lease, after another had taken it over: its claim was refused.
    const resumed = frozen.events.findIndex((e) => e.event === 'resumed')
    expect(frozen.events[resumed], story).toMatchObject({ believesHeld: true })
    expect(frozen.events.slice(resumed).find((e) => e.event === 'drained'), story).toMatchObject({ stopped: 'lease-lost' })
    expect(all.some((e) => e.event === 'acquired' && (e.tookOver as { reason: string; from: { pid: number } } | undefined)?.from.pid === frozen.pid), story).toBe(true)
    // Holders took turns.
    expect(frozen.events.filter((e) => e.event === 'posted').length).toBeGreaterThanOrEqual(2)
    expect(doomed.events.filter((e) => e.event === 'posted').length).toBeGreaterThanOrEqual(3)
  })
})

import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import type Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { CacheRepository } from '../../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../../src/main/engine/cache/open-cache'
import { describeHolder, LeaseHeldError, waitFor, WorkspaceLease, type LeaseEnvironment } from '../../src/main/engine/cache/workspace-lease'
import { ApiGateway } from '../../src/main/engine/gateway/api-gateway'
import { ClaimLostError, OutboxRepository } from '../../src/main/engine/outbox/outbox-repository'
import { OutboxSender } from '../../src/main/engine/outbox/outbox-sender'

// Two connections to one real cache file stand for two processes (each its own owner id and pid); the
// tests with real processes are in lease-processes.test.ts.

const dirs: string[] = []
const dbs: Database.Database[] = []
afterEach(() => {
  for (const db of dbs.splice(0)) db.close()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function cacheFile(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-lease-'))
  dirs.push(dir)
  return path.join(dir, 'cache.db')
}

function open(file: string): Database.Database {
  const db = openCacheDatabase(file)
  dbs.push(db)
  return db
}

/** A clock both "processes" read, moved by the test. */
function clock(start = Date.parse('2026-11-24T04:00:00Z')) {
  let now = start
  return { now: () => now, advance: (ms: number) => (now += ms) }
}

/** A pid that certainly belonged to a process that has ended. */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], { encoding: 'utf8' })
  return Number(child.stdout)
}

const env = (c: ReturnType<typeof clock>, pid: number, extra: LeaseEnvironment = {}): LeaseEnvironment => ({ now: c.now, pid, ...extra })

function withSpace(db: Database.Database, spaceId = 'space-1') {
  const cache = new CacheRepository(db)
  const account = cache.saveAccount({ id: 'acct', endpoint: 'http://127.0.0.1:9', userId: 'u1', displayName: 'Writer', tokenStore: 'file' })
  cache.upsertOrganization({ id: 'org', accountId: account.id, title: 'Acme' })
  cache.upsertSpace({ id: spaceId, orgId: 'org', title: 'Docs' })
}

const comment = (n: number) => ({ spaceId: 'space-1', generation: 1, kind: 'comment' as const, key: `comment:${n}`, payload: { pageId: 'p1', text: `Comment ${n}`, target: 'space' as const, userId: 'u1' } })

describe('workspace lease', () => {
  it('a second opener is told who holds the lease (kind, pid, since) and does not take it', () => {
    const file = cacheFile()
    const c = clock()
    const a = new WorkspaceLease(open(file), env(c, process.pid))
    const b = new WorkspaceLease(open(file), env(c, process.pid))
    const got = a.acquire({ kind: 'watch', ttlMs: 10_000, heartbeatMs: 0 })
    expect(got).toMatchObject({ acquired: true, holder: { ownerId: a.ownerId, kind: 'watch', pid: process.pid, hostname: os.hostname() } })
    expect(got.acquired && got.tookOver).toBeUndefined()

    c.advance(2_000)
    const refused = b.acquire({ kind: 'app', ttlMs: 10_000, heartbeatMs: 0 })
    expect(refused.acquired).toBe(false)
    if (refused.acquired) return
    expect(refused.holder).toMatchObject({ ownerId: a.ownerId, kind: 'watch', pid: process.pid })
    expect(refused.holder.acquiredAt.toISOString()).toBe('2026-11-24T04:00:00.000Z')
    expect(b.held).toBe(false)
    expect(describeHolder(refused.holder, c.now())).toBe(`quire watch (pid ${process.pid} on ${os.hostname()}) since 2026-11-24T04:00:00.000Z, last heartbeat 2 s ago`)
    expect(new LeaseHeldError(refused.holder).message).toMatch(/^this workspace is in use by quire watch \(pid \d+/)

    // The holder acquiring again keeps its "since" and renews its heartbeat.
    c.advance(1_000)
    expect(a.acquire({ kind: 'watch', ttlMs: 10_000, heartbeatMs: 0 })).toMatchObject({ acquired: true })
    expect(a.holder()!.acquiredAt.toISOString()).toBe('2026-11-24T04:00:00.000Z')
    expect(a.holder()!.heartbeatAt.getTime()).toBe(c.now())
  })

  it('a live owner that stopped beating is taken over after its ttl (not before); its next heartbeat reports the loss', () => {
    const file = cacheFile()
    const c = clock()
    const lost = vi.fn()
    const a = new WorkspaceLease(open(file), env(c, process.pid))
    const b = new WorkspaceLease(open(file), env(c, process.pid))
    a.acquire({ kind: 'sync', ttlMs: 1_000, heartbeatMs: 0, onLost: lost })

    c.advance(1_000)
    expect(b.acquire({ kind: 'watch', ttlMs: 5_000 }).acquired).toBe(false)
    c.advance(1)
    const got = b.acquire({ kind: 'watch', ttlMs: 5_000, heartbeatMs: 0 })
    expect(got).toMatchObject({ acquired: true, tookOver: { reason: 'expired', from: { ownerId: a.ownerId, kind: 'sync' } } })

    expect(a.held).toBe(true) // it does not know yet
    expect(a.heartbeat()).toBe(false)
    expect(a.held).toBe(false)
    expect(lost).toHaveBeenCalledTimes(1)
    expect(lost.mock.calls[0][0]).toMatchObject({ ownerId: b.ownerId, kind: 'watch' })
    expect(a.heartbeat()).toBe(false)
    expect(lost).toHaveBeenCalledTimes(1)

    // The old owner's heartbeat never revives its row; the new owner's ttl (5 s) now counts.
    c.advance(4_000)
    expect(a.acquire({ kind: 'sync', ttlMs: 1_000, heartbeatMs: 0 }).acquired).toBe(false)
    expect(b.heartbeat()).toBe(true)
  })

  it('an owner whose pid is dead on this host is taken over at once; on another host only its ttl counts', () => {
    const file = cacheFile()
    const c = clock()
    const dead = deadPid()
    const gone = new WorkspaceLease(open(file), env(c, dead))
    gone.acquire({ kind: 'watch', ttlMs: 60_000, heartbeatMs: 0 })
    const b = new WorkspaceLease(open(file), env(c, process.pid))
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 })).toMatchObject({ acquired: true, tookOver: { reason: 'dead', from: { pid: dead, kind: 'watch' } } })
    b.release()

    const elsewhere = new WorkspaceLease(open(file), env(c, dead, { hostname: 'another-machine' }))
    elsewhere.acquire({ kind: 'watch', ttlMs: 60_000, heartbeatMs: 0 })
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 })).toMatchObject({ acquired: false, holder: { hostname: 'another-machine' } })
    c.advance(60_001)
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 })).toMatchObject({ acquired: true, tookOver: { reason: 'expired' } })
  })

  it('release frees the lease; a heartbeat keeps it; a heartbeat not shorter than the ttl is refused', async () => {
    const file = cacheFile()
    const a = new WorkspaceLease(open(file))
    const b = new WorkspaceLease(open(file))
    expect(() => a.acquire({ kind: 'sync', ttlMs: 100, heartbeatMs: 100 })).toThrow(RangeError)
    a.acquire({ kind: 'sync', ttlMs: 150, heartbeatMs: 20 })
    const first = a.holder()!.heartbeatAt.getTime()
    await vi.waitFor(() => expect(a.holder()!.heartbeatAt.getTime()).toBeGreaterThan(first), { timeout: 5_000, interval: 10 })
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 }).acquired).toBe(false)
    a.release()
    expect(a.held).toBe(false)
    expect(a.holder()).toBeUndefined()
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 })).toMatchObject({ acquired: true })
    expect(b.acquire({ kind: 'app', heartbeatMs: 0 }).acquired && b.held).toBe(true)
    // A released owner's release does not free another's lease.
    a.release()
    expect(b.holder()!.ownerId).toBe(b.ownerId)

    // A session that closed its database first can still release (its dead pid frees the row later).
    const closing = open(cacheFile())
    const c = new WorkspaceLease(closing)
    c.acquire({ kind: 'sync', ttlMs: 150, heartbeatMs: 20 })
    closing.close()
    expect(() => c.release()).not.toThrow()
  })

  it('waitFor waits until the holder lets go, gives up after its timeout naming the holder, and stops when aborted', async () => {
    const file = cacheFile()
    const a = new WorkspaceLease(open(file))
    const b = new WorkspaceLease(open(file))
    a.acquire({ kind: 'watch', ttlMs: 60_000, heartbeatMs: 0 })

    await expect(waitFor(b, { kind: 'sync', timeoutMs: 50, pollMs: 10 })).rejects.toSatisfy((e: unknown) => e instanceof LeaseHeldError && e.holder.kind === 'watch')

    const controller = new AbortController()
    const aborted = waitFor(b, { kind: 'sync', signal: controller.signal, pollMs: 10_000 })
    controller.abort(new Error('shutting down'))
    await expect(aborted).rejects.toThrow('shutting down')

    const waiting = waitFor(b, { kind: 'sync', heartbeatMs: 0, pollMs: 10 })
    let settled = false
    void waiting.then(() => (settled = true))
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(settled).toBe(false)
    a.release()
    await expect(waiting).resolves.toMatchObject({ acquired: true })
    expect(b.held).toBe(true)
  })
})

describe('outbox claims under the lease', () => {
  it('only the holder claims; an owner that lost the lease cannot claim or mark an op sending, even while it believes it holds it', async () => {
    const file = cacheFile()
    const c = clock()
    const dbA = open(file)
    const dbB = open(file)
    withSpace(dbA)
    const lost = vi.fn()
    const a = new WorkspaceLease(dbA, env(c, process.pid))
    const b = new WorkspaceLease(dbB, env(c, process.pid))
    const outboxA = new OutboxRepository(dbA, undefined, a.outboxClaim())
    const outboxB = new OutboxRepository(dbB, undefined, b.outboxClaim())
    for (let n = 1; n <= 3; n++) outboxA.enqueue(comment(n))

    // Without the lease nobody claims.
    expect(() => outboxA.claimNext('space-1')).toThrow(ClaimLostError)

    a.acquire({ kind: 'watch', ttlMs: 1_000, heartbeatMs: 0, onLost: lost })
    expect(() => outboxB.claimNext('space-1')).toThrow(ClaimLostError)
    const first = outboxA.claimNext('space-1')!
    expect(first.key).toBe('comment:1')
    expect(outboxA.claimedBy(first.seq)).toBe(a.ownerId)

    // A claim renews the lease: an owner busy claiming is not taken for gone.
    c.advance(900)
    outboxA.claimNext('space-1')
    c.advance(900)
    expect(b.acquire({ kind: 'app', ttlMs: 1_000, heartbeatMs: 0 }).acquired).toBe(false)

    // A freezes past its ttl and B takes over. A wakes up still believing it holds the lease, the op
    // still claimed by A: the last check before sending refuses all the same.
    c.advance(1_001)
    expect(b.acquire({ kind: 'app', ttlMs: 1_000, heartbeatMs: 0 })).toMatchObject({ acquired: true, tookOver: { reason: 'expired' } })
    expect(a.held).toBe(true)
    expect(() => outboxA.markSending(first.seq)).toThrow(ClaimLostError)
    expect(outboxA.claimedBy(first.seq)).toBe(a.ownerId)

    // B claims the same op (A never marked it sending); A's next claim and its sending are refused.
    expect(outboxB.claimNext('space-1')!.seq).toBe(first.seq)
    expect(outboxB.claimedBy(first.seq)).toBe(b.ownerId)
    expect(() => outboxA.markSending(first.seq)).toThrow(ClaimLostError)
    expect(outboxA.op(first.seq)!.state).toBe('pending')
    expect(() => outboxA.claimNext('space-1')).toThrow(ClaimLostError)
    await Promise.resolve()
    expect(a.held).toBe(false)
    expect(lost).toHaveBeenCalledTimes(1)

    outboxB.markSending(first.seq)
    expect(outboxB.op(first.seq)).toMatchObject({ state: 'sending', attempts: 1 })
  })

  it('an op claimed by another owner cannot be marked sending, even by a holder that skipped the claim', () => {
    const file = cacheFile()
    const dbA = open(file)
    withSpace(dbA)
    const a = new WorkspaceLease(dbA)
    const outboxA = new OutboxRepository(dbA, undefined, a.outboxClaim())
    const { seq } = outboxA.enqueue(comment(1))
    a.acquire({ kind: 'sync', heartbeatMs: 0 })
    expect(() => outboxA.markSending(seq)).toThrow(ClaimLostError) // never claimed by A
    expect(outboxA.claimNext('space-1')!.seq).toBe(seq)
    outboxA.markSending(seq)
    expect(outboxA.op(seq)!.state).toBe('sending')
  })

  it('a claim must check the lease on the outbox\'s own connection', () => {
    const file = cacheFile()
    const lease = new WorkspaceLease(open(file))
    expect(() => new OutboxRepository(open(file), undefined, lease.outboxClaim())).toThrow(/same database connection/)
  })

  it('a sender whose process does not hold the lease stops with lease-lost and sends nothing', async () => {
    const file = cacheFile()
    const dbA = open(file)
    const dbB = open(file)
    withSpace(dbA)
    const a = new WorkspaceLease(dbA)
    const b = new WorkspaceLease(dbB)
    a.acquire({ kind: 'watch', heartbeatMs: 0 })
    const outboxB = new OutboxRepository(dbB, undefined, b.outboxClaim())
    outboxB.enqueue(comment(1))
    // Nothing listens there: a request that left would fail as offline, not as lease-lost.
    const sender = new OutboxSender(new ApiGateway({ endpoint: 'http://127.0.0.1:9', token: 't', maxAttempts: 1 }), outboxB)
    const result = await sender.drain('space-1')
    expect(result).toMatchObject({ sent: 0, failed: [], stopped: { reason: 'lease-lost' } })
    expect(outboxB.unfinished('space-1').map((op) => op.state)).toEqual(['pending'])
  })
})

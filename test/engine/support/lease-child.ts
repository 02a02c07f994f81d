/**
 * A Quire process on a shared cache, for the lease tests. Speaks JSON lines on stdout.
 *
 * argv: JSON {mode, cacheFile, kind, ttlMs, heartbeatMs, ...}
 * - `hold`: acquires the lease (or prints who holds it and exits 3), then stays until killed;
 *   prints `lost` when its heartbeat finds another owner.
 * - `wait`: waits for the lease (waitFor), prints `acquired` with the takeover, then exits (or, with
 *   `stay`, holds it until killed).
 * - `drain`: {remote, spaceId, batch, stallAfter?, stallMs?}: prints `ready`, starts on a line on stdin;
 *   until the space's outbox is empty, waits for
 *   the lease, sends at most `batch` ops, releases it. After its `stallAfter`-th posted op it blocks its
 *   whole thread for `stallMs` (no heartbeat, no timers: a frozen process), then carries on as if it
 *   still held the lease. Prints `posted` for each op it saw answered.
 */
import readline from 'node:readline'
import { openCacheDatabase } from '../../../src/main/engine/cache/open-cache'
import { waitFor, WorkspaceLease, type LeaseHolder } from '../../../src/main/engine/cache/workspace-lease'
import { ApiGateway } from '../../../src/main/engine/gateway/api-gateway'
import { OutboxRepository } from '../../../src/main/engine/outbox/outbox-repository'
import { OutboxSender } from '../../../src/main/engine/outbox/outbox-sender'

export interface LeaseChildArgs {
  mode: 'hold' | 'wait' | 'drain'
  cacheFile: string
  kind: string
  ttlMs: number
  heartbeatMs: number
  remote?: { origin: string; token: string }
  spaceId?: string
  batch?: number
  stallAfter?: number
  stallMs?: number
  stay?: boolean
}

const args = JSON.parse(process.argv[2]) as LeaseChildArgs
const say = (event: string, data: Record<string, unknown> = {}) => process.stdout.write(`${JSON.stringify({ event, pid: process.pid, at: Date.now(), ...data })}\n`)
const who = (h: LeaseHolder | undefined) =>
  h && { ownerId: h.ownerId, kind: h.kind, pid: h.pid, hostname: h.hostname, acquiredAt: h.acquiredAt.toISOString(), heartbeatAt: h.heartbeatAt.getTime() }

const db = openCacheDatabase(args.cacheFile)
const lease = new WorkspaceLease(db)
const onLost = (by: LeaseHolder | undefined) => say('lost', { by: who(by) })
const leaseOptions = { kind: args.kind, ttlMs: args.ttlMs, heartbeatMs: args.heartbeatMs, onLost }

if (args.mode === 'hold') {
  const result = lease.acquire(leaseOptions)
  if (!result.acquired) {
    say('held', { holder: who(result.holder) })
    process.exit(3)
  }
  say('acquired', { ownerId: lease.ownerId, tookOver: result.tookOver && { reason: result.tookOver.reason, from: who(result.tookOver.from) } })
  // Stays alive (the heartbeat timer is unref'd) until the parent kills it.
  setInterval(() => {}, 1 << 30)
} else if (args.mode === 'wait') {
  say('waiting', { holder: who(lease.holder()) })
  const result = await waitFor(lease, { ...leaseOptions, pollMs: 20 })
  say('acquired', { ownerId: lease.ownerId, tookOver: result.tookOver && { reason: result.tookOver.reason, from: who(result.tookOver.from) } })
  if (args.stay) setInterval(() => {}, 1 << 30)
  else {
    lease.release()
    db.close()
  }
} else {
  const spaceId = args.spaceId!
  const outbox = new OutboxRepository(db, undefined, process.env.LEASE_CHILD_NO_CLAIM ? undefined : lease.outboxClaim())
  const gateway = new ApiGateway({ endpoint: args.remote!.origin, token: args.remote!.token, maxAttempts: 2, backoff: { baseMs: 5, capMs: 20 } })
  let posted = 0
  say('ready')
  // Starts on the parent's word, so the test decides who holds the lease first.
  const stdin = readline.createInterface({ input: process.stdin })
  await new Promise((resolve) => stdin.once('line', resolve))
  stdin.close()
  const sender = new OutboxSender(gateway, outbox, undefined, {
    commentPosted: async (op) => {
      posted++
      say('posted', { seq: op.seq, ownerId: lease.ownerId })
      if (posted === args.stallAfter) {
        say('stalling', { ms: args.stallMs })
        Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, args.stallMs)
        say('resumed', { believesHeld: lease.held })
      }
    },
  })
  while (outbox.unfinished(spaceId).length > 0) {
    const got = await waitFor(lease, { ...leaseOptions, pollMs: 20 })
    say('acquired', { ownerId: lease.ownerId, tookOver: got.tookOver && { reason: got.tookOver.reason, from: who(got.tookOver.from) } })
    const drained = await sender.drain(spaceId, { stopAfter: args.batch })
    say('drained', { sent: drained.sent, stopped: drained.stopped?.reason, failed: drained.failed.map((f) => f.error) })
    if (drained.stopped && drained.stopped.reason !== 'lease-lost') throw new Error(`drain stopped: ${drained.stopped.message}`)
    if (drained.failed.length > 0) throw new Error(`ops refused: ${drained.failed.map((f) => f.error).join('; ')}`)
    lease.release()
    // Lets another process in before this one asks again, so holders take turns.
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
  say('done', { posted })
  db.close()
}

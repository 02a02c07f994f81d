import { randomUUID } from 'node:crypto'
import os from 'node:os'
import type Database from 'better-sqlite3'

/**
 * Which process of those that open one cache syncs and sends: a row per workspace with the owner's id,
 * pid, host and heartbeat (Joplin's LockHandler is the model). This module is the only one that touches
 * the `workspace_lease` table.
 *
 * The lease is taken over only from an owner that is gone: its pid is dead on this host, or it has not
 * beaten for its ttl. Each change of owner happens in one IMMEDIATE transaction, so at any moment of
 * the database at most one owner holds it; `outboxClaim()` lets the outbox check that inside its own
 * transactions, so an owner that still believes it holds the lease cannot claim an op after losing it.
 */

export type LeaseKind = 'app' | 'serve' | 'watch' | 'sync' | (string & {})

export interface LeaseHolder {
  ownerId: string
  kind: LeaseKind
  pid: number
  hostname: string
  /** How long the holder may go without a heartbeat before it counts as gone. */
  ttlMs: number
  acquiredAt: Date
  heartbeatAt: Date
}

export interface Takeover {
  from: LeaseHolder
  reason: 'dead' | 'expired'
}

export type AcquireResult = { acquired: true; holder: LeaseHolder; tookOver?: Takeover } | { acquired: false; holder: LeaseHolder }

export interface AcquireOptions {
  kind: LeaseKind
  /** Without a heartbeat for this long the lease may be taken over. Default 60 s. */
  ttlMs?: number
  /** How often the held lease is renewed (an unref'd timer). Default ttl / 4; 0: no timer. */
  heartbeatMs?: number
  /** Another process took the lease over: stop syncing and sending. Called once, with the new holder. */
  onLost?: (by: LeaseHolder | undefined) => void
}

/** What a process is, for tests (a fake clock) and for the owner id; real values by default. */
export interface LeaseEnvironment {
  /** The leased thing within this cache (one row per workspace). Default `workspace`. */
  workspace?: string
  ownerId?: string
  pid?: number
  hostname?: string
  now?: () => number
  isAlive?: (pid: number) => boolean
}

export const DEFAULT_LEASE_TTL_MS = 60_000

/** The lease is held by a live process: says who, since when, and how to find it. */
export class LeaseHeldError extends Error {
  constructor(readonly holder: LeaseHolder) {
    super(`this workspace is in use by ${describeHolder(holder)}`)
  }
}

type Row = {
  workspace: string
  owner_id: string
  pid: number
  hostname: string
  kind: string
  ttl_ms: number
  acquired_at: number
  heartbeat_at: number
}

export class WorkspaceLease {
  readonly ownerId: string
  readonly workspace: string
  private readonly pid: number
  private readonly hostname: string
  private readonly now: () => number
  private readonly isAlive: (pid: number) => boolean
  private state: 'idle' | 'held' | 'lost' | 'released' = 'idle'
  private timer: NodeJS.Timeout | undefined
  private onLost: AcquireOptions['onLost']

  constructor(
    private readonly db: Database.Database,
    env: LeaseEnvironment = {},
  ) {
    this.workspace = env.workspace ?? 'workspace'
    this.ownerId = env.ownerId ?? randomUUID()
    this.pid = env.pid ?? process.pid
    this.hostname = env.hostname ?? os.hostname()
    this.now = env.now ?? Date.now
    this.isAlive = env.isAlive ?? pidIsAlive
  }

  /** True from a successful acquire until release or loss (as far as this process knows). */
  get held(): boolean {
    return this.state === 'held'
  }

  /** Takes the lease when it is free, ours, or its owner is gone; otherwise says who holds it. */
  acquire(options: AcquireOptions): AcquireResult {
    const ttlMs = options.ttlMs ?? DEFAULT_LEASE_TTL_MS
    const heartbeatMs = options.heartbeatMs ?? Math.floor(ttlMs / 4)
    if (!(ttlMs > 0) || !(heartbeatMs >= 0) || (heartbeatMs > 0 && heartbeatMs >= ttlMs)) {
      throw new RangeError(`lease heartbeat (${heartbeatMs} ms) must be shorter than its ttl (${ttlMs} ms)`)
    }
    const result = this.db
      .transaction((): AcquireResult => {
        const row = this.row()
        const now = this.now()
        let tookOver: Takeover | undefined
        if (row && row.owner_id !== this.ownerId) {
          const reason = this.goneReason(row, now)
          if (!reason) return { acquired: false, holder: holderOf(row) }
          tookOver = { from: holderOf(row), reason }
        }
        const acquiredAt = row && row.owner_id === this.ownerId ? row.acquired_at : now
        this.db
          .prepare(
            `INSERT OR REPLACE INTO workspace_lease (workspace, owner_id, pid, hostname, kind, ttl_ms, acquired_at, heartbeat_at)
             VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          )
          .run(this.workspace, this.ownerId, this.pid, this.hostname, options.kind, ttlMs, acquiredAt, now)
        return { acquired: true, holder: holderOf(this.row()!), tookOver }
      })
      .immediate()
    if (result.acquired) {
      this.state = 'held'
      this.onLost = options.onLost
      this.stopTimer()
      if (heartbeatMs > 0) {
        this.timer = setInterval(() => this.beat(), heartbeatMs)
        this.timer.unref()
      }
    } else if (this.state === 'held') {
      this.lose()
    }
    return result
  }

  /** Renews the lease; false (and `onLost`) when another process has taken it over. */
  heartbeat(): boolean {
    if (this.state !== 'held') return false
    if (this.renew()) return true
    this.lose()
    return false
  }

  /**
   * Whether this process holds the lease at this moment, renewing it when it does. Meant to run inside
   * a caller's transaction on the same connection (the outbox's claim), so the answer holds for it.
   */
  holds(): boolean {
    if (this.state !== 'held') return false
    if (this.renew()) return true
    // Not inside the caller's transaction: its rollback must not depend on what the callback does.
    queueMicrotask(() => this.lose())
    return false
  }

  /** Gives the lease up (when still ours) and stops the heartbeat. */
  release() {
    this.stopTimer()
    if (this.state === 'held' && this.db.open) this.db.prepare('DELETE FROM workspace_lease WHERE workspace = ? AND owner_id = ?').run(this.workspace, this.ownerId)
    this.state = 'released'
  }

  /** Who holds the lease now, as the database says (whether or not that owner is still alive). */
  holder(): LeaseHolder | undefined {
    const row = this.row()
    return row && holderOf(row)
  }

  /** What the outbox needs to claim ops only while this process holds the lease (OutboxRepository's third argument). */
  outboxClaim(): { ownerId: string; database: Database.Database; holds: () => boolean } {
    return { ownerId: this.ownerId, database: this.db, holds: () => this.holds() }
  }

  private beat() {
    try {
      this.heartbeat()
    } catch {
      // A busy or failing database: the next beat tries again, and a lease lost meanwhile is found then.
    }
  }

  private renew(): boolean {
    return (
      this.db.prepare('UPDATE workspace_lease SET heartbeat_at = ? WHERE workspace = ? AND owner_id = ?').run(this.now(), this.workspace, this.ownerId)
        .changes === 1
    )
  }

  private lose() {
    if (this.state !== 'held') return
    this.state = 'lost'
    this.stopTimer()
    let by: LeaseHolder | undefined
    try {
      by = this.holder()
    } catch {
      by = undefined
    }
    this.onLost?.(by)
  }

  private stopTimer() {
    if (this.timer) clearInterval(this.timer)
    this.timer = undefined
  }

  private row(): Row | undefined {
    return this.db.prepare('SELECT * FROM workspace_lease WHERE workspace = ?').get(this.workspace) as Row | undefined
  }

  /** Why a lease row's owner counts as gone, or undefined while it may still be working. */
  private goneReason(row: Row, now: number): Takeover['reason'] | undefined {
    // A pid can only be checked on its own host; elsewhere, and for a reused pid, the heartbeat decides.
    if (row.hostname === this.hostname && row.pid !== this.pid && !this.isAlive(row.pid)) return 'dead'
    if (now - row.heartbeat_at > row.ttl_ms) return 'expired'
    return undefined
  }
}

/**
 * Polls until the lease is acquired ("waits" for a process that holds it to end). Rejects with
 * LeaseHeldError after `timeoutMs`, or with the signal's reason when aborted.
 */
export async function waitFor(
  lease: WorkspaceLease,
  options: AcquireOptions & { timeoutMs?: number; signal?: AbortSignal; pollMs?: number },
): Promise<Extract<AcquireResult, { acquired: true }>> {
  const { timeoutMs, signal, pollMs = 250, ...acquire } = options
  const deadline = timeoutMs === undefined ? Infinity : Date.now() + timeoutMs
  for (;;) {
    signal?.throwIfAborted()
    const result = lease.acquire(acquire)
    if (result.acquired) return result
    if (Date.now() >= deadline) throw new LeaseHeldError(result.holder)
    await new Promise<void>((resolve) => {
      const done = () => {
        clearTimeout(timer)
        signal?.removeEventListener('abort', done)
        resolve()
      }
      const timer = setTimeout(done, Math.max(0, Math.min(pollMs, deadline - Date.now())))
      signal?.addEventListener('abort', done, { once: true })
    })
  }
}

/** "quire watch (pid 4242 on mybox) since 2026-11-24T04:31:07.000Z, last heartbeat 3 s ago" */
export function describeHolder(holder: LeaseHolder, now = Date.now()): string {
  const who = holder.kind === 'app' ? 'the Quire app' : `quire ${holder.kind}`
  const ago = Math.max(0, Math.round((now - holder.heartbeatAt.getTime()) / 1000))
  return `${who} (pid ${holder.pid} on ${holder.hostname}) since ${holder.acquiredAt.toISOString()}, last heartbeat ${ago} s ago`
}

function holderOf(row: Row): LeaseHolder {
  return {
    ownerId: row.owner_id,
    kind: row.kind,
    pid: Number(row.pid),
    hostname: row.hostname,
    ttlMs: Number(row.ttl_ms),
    acquiredAt: new Date(Number(row.acquired_at)),
    heartbeatAt: new Date(Number(row.heartbeat_at)),
  }
}

/** Signal 0 tests a pid without touching it: ESRCH means no such process; EPERM means one we may not signal. */
function pidIsAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

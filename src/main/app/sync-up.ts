import type Database from 'better-sqlite3'
import type { CacheRepository } from '../engine/cache/cache-repository'
import { CommentsRepository } from '../engine/comments/comments-repository'
import type { ApiGateway } from '../engine/gateway/api-gateway'
import { OutboxRepository, type ConflictRow } from '../engine/outbox/outbox-repository'
import { heldPageIds } from '../engine/push/hold'
import { SpacePusher, type PushResult } from '../engine/push/space-pusher'

/**
 * The sync-up engine as the app uses it: after a space is synced down, its local edits are pushed to
 * the writer's change request (SpacePusher), comment markers become comments, conflicts get copies.
 * Nothing is decided here; this only holds the engine's repositories over the app's cache database.
 */
export class SyncUp {
  private readonly outbox: OutboxRepository
  private readonly comments: CommentsRepository

  constructor(db: Database.Database) {
    this.outbox = new OutboxRepository(db)
    this.comments = new CommentsRepository(db)
  }

  /** Pages a sync down pass must leave alone: their rename, move or deletion waits in the writer's change request. */
  held(cache: CacheRepository, spaceId: string): ReadonlySet<string> {
    return heldPageIds(cache.journal(spaceId), this.outbox.entries(spaceId))
  }

  push(input: { gateway: ApiGateway; cache: CacheRepository; spaceId: string; folder: string; userId: string; now?: () => Date }): Promise<PushResult> {
    return new SpacePusher({ ...input, outbox: this.outbox, comments: this.comments }).push()
  }

  /** Conflicted copies still on disk, for the status. */
  conflicts(spaceId?: string): ConflictRow[] {
    return this.outbox.conflicts(spaceId).filter((c) => c.state === 'open')
  }
}

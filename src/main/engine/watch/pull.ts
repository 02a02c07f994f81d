import type { CacheRepository, SpaceIssue, SpaceState } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { holdOf } from '../push/hold'
import { syncSpace } from '../sync/space-sync'

/**
 * Sync down for a space that sync up works on: the sync-down engine's own pass (`syncSpace`), given the
 * pages whose rename, move or deletion waits in the writer's change request as its hold, so the pass
 * does not put them back.
 */

export interface PullInput {
  gateway: ApiGateway
  cache: CacheRepository
  outbox: OutboxRepository
  spaceId: string
  folder: string
  allowMassDelete?: boolean
  refreshLinks?: boolean
}

export interface PullResult {
  revision: string
  unchanged: boolean
  written: number
  state: SpaceState
  issues: SpaceIssue[]
}

export async function pullSpace(input: PullInput): Promise<PullResult> {
  const { cache, spaceId } = input
  const space = cache.space(spaceId)
  if (!space) throw new Error(`space ${spaceId} is not in the cache`)
  const before = space.syncedRevision
  const outcome = await syncSpace(space, input.folder, {
    cache,
    gateway: input.gateway,
    allowMassDelete: input.allowMassDelete,
    refreshLinks: input.refreshLinks,
    hold: holdOf(cache, input.outbox, spaceId, input.folder),
  })
  return {
    revision: outcome.revision ?? '',
    unchanged: outcome.steps === 0 && outcome.revision === before,
    written: outcome.steps,
    state: outcome.state,
    issues: outcome.issues,
  }
}

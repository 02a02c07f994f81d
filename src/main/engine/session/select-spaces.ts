import type { AccountRow, CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import { SyncEngine } from '../sync/sync-engine'

/** What to sync, as `--all`, `--space`, `--org` and `--collection` of quire sync and quire watch name it. */
export interface SelectionPicks {
  all: boolean
  spaces: string[]
  organizations: string[]
  collections: string[]
}

/**
 * Replaces the remembered selection with the picks (no picks keep it). Spaces named by id are looked up
 * (with their organization); organizations and collections are listed first, `all` lists everything.
 * `handOverLists`: the lists just read serve the next pass (quire sync), so nothing is listed twice.
 */
export async function selectSpaces(
  ws: { cache: CacheRepository; account: AccountRow; gateway: ApiGateway; workspace: string },
  { all, ...picks }: SelectionPicks,
  options: { handOverLists?: boolean } = {},
): Promise<void> {
  const { cache, account } = ws
  const engine = new SyncEngine({ cache, account, gateway: ws.gateway, workspace: ws.workspace, handOverLists: options.handOverLists })
  if (all) {
    await engine.discover()
    cache.setSelection({ organizations: cache.organizations(account.id).map((o) => o.id) })
    return
  }
  if (picks.spaces.length + picks.organizations.length + picks.collections.length === 0) return
  if (picks.organizations.length + picks.collections.length > 0) await engine.discover()
  await engine.resolveSpaces(picks.spaces)
  const orgs = cache.organizations(account.id)
  for (const id of picks.organizations) if (!orgs.some((o) => o.id === id)) throw new Error(`no organization ${id}`)
  const collections = new Set(orgs.flatMap((o) => cache.collections(o.id).map((c) => c.id)))
  for (const id of picks.collections) if (!collections.has(id)) throw new Error(`no collection ${id}`)
  cache.setSelection(picks)
}

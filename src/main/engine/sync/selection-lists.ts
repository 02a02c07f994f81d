import { GitBookAPIError, type Space } from '@gitbook/api'
import type { CacheRepository } from '../cache/cache-repository'
import { paginate, type ApiGateway } from '../gateway/api-gateway'

/** Each space as its organization's space list showed it this pass (its `revision` included), by id. */
export type ListedSpaces = ReadonlyMap<string, Space>

/**
 * What a pass needs to decide which spaces changed, in as few requests as the selection allows: one
 * space list per organization that holds a selected space (the list carries every space's `revision`,
 * so an unchanged space costs nothing more), plus that organization's collections only when the
 * selection names a collection in it (a space moved into a sub-collection joins the selection). The
 * organizations themselves are not listed: a selected organization, collection or space is already in
 * the cache, and a pass does not need their titles (`discover` refreshes them).
 *
 * An organization whose list the service refuses (gone, access withdrawn) is left out: its spaces fall
 * back to one request each, which reports their own error. A 401 or an unreachable service is thrown.
 */
export async function listSelection(cache: CacheRepository, gateway: ApiGateway, accountId: string): Promise<ListedSpaces> {
  const orgs = new Set<string>()
  const withCollections = new Set<string>()
  for (const org of cache.organizations(accountId)) {
    if (org.selected) orgs.add(org.id)
    if (cache.collections(org.id).some((c) => c.selected)) {
      orgs.add(org.id)
      withCollections.add(org.id)
    }
  }
  for (const space of cache.selectedSpaces()) orgs.add(space.orgId)

  const listed = new Map<string, Space>()
  for (const orgId of orgs) {
    try {
      if (withCollections.has(orgId)) await listCollections(cache, gateway, orgId)
      for (const space of await listSpaces(cache, gateway, orgId)) listed.set(space.id, space)
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code !== 401) continue
      throw error
    }
  }
  return listed
}

/** One organization's collections, into the cache. */
export async function listCollections(cache: CacheRepository, gateway: ApiGateway, orgId: string): Promise<void> {
  const client = gateway.client
  const collections = paginate((page) => client.orgs.listCollectionsInOrganizationById(orgId, { page, limit: 1000 }).then((r) => r.data))
  for await (const c of collections) cache.upsertCollection({ id: c.id, orgId, parentId: c.parent, title: c.title })
}

/** One organization's spaces, into the cache (their remote revision too), and as the list showed them. */
export async function listSpaces(cache: CacheRepository, gateway: ApiGateway, orgId: string): Promise<Space[]> {
  const client = gateway.client
  const spaces: Space[] = []
  for await (const s of paginate((page) => client.orgs.listSpacesInOrganizationById(orgId, { page, limit: 1000 }).then((r) => r.data))) {
    cache.upsertSpace({ id: s.id, orgId, collectionId: s.parent, title: s.title, remoteRevision: s.revision })
    spaces.push(s)
  }
  return spaces
}

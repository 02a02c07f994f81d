import type { CollectionNode, OrganizationNode, SpaceNode } from '../../shared/contract'
import type { CacheRepository, CollectionRow, SpaceRow } from '../engine/cache/cache-repository'

/** Builds the selection tree from the cache; `node` turns a space row into what the renderer shows. */
export function spaceTree(cache: CacheRepository, accountId: string, node: (space: SpaceRow) => SpaceNode): OrganizationNode[] {
  return cache.organizations(accountId).map((org) => {
    const collections = cache.collections(org.id)
    const spaces = cache.spaces(org.id)
    const branch = (c: CollectionRow): CollectionNode => ({
      id: c.id,
      title: c.title,
      selected: c.selected,
      collections: collections.filter((child) => child.parentId === c.id).map(branch),
      spaces: spaces.filter((s) => s.collectionId === c.id).map(node),
    })
    const known = new Set(collections.map((c) => c.id))
    return {
      id: org.id,
      title: org.title,
      selected: org.selected,
      collections: collections.filter((c) => !c.parentId || !known.has(c.parentId)).map(branch),
      spaces: spaces.filter((s) => !s.collectionId || !known.has(s.collectionId)).map(node),
    }
  })
}

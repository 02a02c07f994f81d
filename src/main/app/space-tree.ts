import type { CollectionNode, OrganizationNode, SelectionTarget, SpaceNode } from '../../shared/contract'
import type { CacheRepository, CollectionRow, SpaceRow } from '../engine'

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

/** Selects or unselects an organization, collection or space of the account; answers its title, or undefined when it is not known. */
export function applySelection(cache: CacheRepository, accountId: string, target: SelectionTarget): string | undefined {
  const orgs = cache.organizations(accountId)
  const collections = orgs.flatMap((o) => cache.collections(o.id))
  const spaces = orgs.flatMap((o) => cache.spaces(o.id))
  const found =
    target.kind === 'organization' ? orgs.find((o) => o.id === target.id) : target.kind === 'collection' ? collections.find((c) => c.id === target.id) : spaces.find((s) => s.id === target.id)
  if (!found) return undefined
  const selection = {
    organizations: new Set(orgs.filter((o) => o.selected).map((o) => o.id)),
    collections: new Set(collections.filter((c) => c.selected).map((c) => c.id)),
    spaces: new Set(spaces.filter((s) => s.selected).map((s) => s.id)),
  }
  const set = { organization: selection.organizations, collection: selection.collections, space: selection.spaces }[target.kind]
  if (target.selected) set.add(target.id)
  else set.delete(target.id)
  cache.setSelection({ organizations: [...selection.organizations], collections: [...selection.collections], spaces: [...selection.spaces] })
  return found.title
}

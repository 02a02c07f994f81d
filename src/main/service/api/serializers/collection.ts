import { atLeast, type Role } from '../../access/roles'
import type { Collection } from '../../store/collections'
import { OrganizationsRepository } from '../../store/organizations'
import type { ServiceStore } from '../../store/service-store'
import { SpacesRepository } from '../../store/spaces'
import { apiUrl, appUrl } from '../urls'

/**
 * The caller's role on a collection, by the same rule `spaceRole` applies to spaces in it: organization
 * admins administrate every collection; other members get the nearest set `defaultLevel` of the
 * collection or its ancestors, else their organization role. Non-members have none.
 */
export function collectionRole(store: ServiceStore, collection: Collection, userId: string): Role | null {
  const member = store.repo(OrganizationsRepository).member(collection.orgId, userId)
  if (!member) return null
  if (member.role === 'admin') return 'admin'
  return store.repo(SpacesRepository).collectionDefaultLevel(collection.id) ?? member.role
}

export function collectionPermissions(role: Role | null) {
  return {
    view: atLeast(role, 'read'),
    admin: atLeast(role, 'admin'),
    viewInviteLinks: atLeast(role, 'admin'),
    create: atLeast(role, 'create'),
  }
}

/** The spec's `Collection` object as the caller `userId` sees it. */
export function collectionJson(store: ServiceStore, collection: Collection, userId: string, origin: string) {
  return {
    object: 'collection' as const,
    id: collection.id,
    title: collection.title,
    ...(collection.description !== null ? { description: collection.description } : {}),
    organization: collection.orgId,
    ...(collection.parentId ? { parent: collection.parentId } : {}),
    defaultLevel: collection.defaultLevel,
    urls: {
      location: apiUrl(origin, `/collections/${collection.id}`),
      app: appUrl(origin, `/collections/${collection.id}`),
    },
    permissions: collectionPermissions(collectionRole(store, collection, userId)),
  }
}

import type { ChangeRequest } from '../../store/change-requests'
import { openCommentCount } from '../../store/comments'
import type { ServiceStore } from '../../store/service-store'
import { SpacesRepository } from '../../store/spaces'
import { UsersRepository } from '../../store/users'
import { apiUrl, appUrl } from '../urls'
import { userJson } from '../users'

/**
 * Behind the space: the space moved on since the change request was created or last updated.
 * Merged and archived change requests are never reported outdated: nothing can update them.
 */
export function isOutdated(store: ServiceStore, cr: ChangeRequest): boolean {
  if (cr.status === 'merged' || cr.status === 'archived') return false
  const space = store.repo(SpacesRepository).get(cr.spaceId)
  return !!space?.revisionId && space.revisionId !== cr.revisionMergedAncestor
}

function userById(store: ServiceStore, id: string, origin: string) {
  const user = store.repo(UsersRepository).get(id)
  if (!user) throw new Error(`change request refers to a missing user ${id}`)
  return userJson(user, origin)
}

const changeRequestLocation = (origin: string, cr: ChangeRequest) => apiUrl(origin, `/spaces/${cr.spaceId}/change-requests/${cr.id}`)

/** The spec's `ChangeRequest`. */
export function changeRequestJson(store: ServiceStore, cr: ChangeRequest, origin: string) {
  const merged = cr.status === 'merged'
  return {
    object: 'change-request' as const,
    id: cr.id,
    number: cr.number,
    status: cr.status,
    subject: cr.subject,
    ...(cr.data.description ? { description: cr.data.description } : {}),
    createdBy: userById(store, cr.createdBy, origin),
    createdAt: cr.createdAt,
    updatedAt: cr.updatedAt,
    ...(merged && cr.data.mergedBy ? { mergedBy: userById(store, cr.data.mergedBy, origin) } : {}),
    ...(merged && cr.data.mergedAt ? { mergedAt: cr.data.mergedAt } : {}),
    space: cr.spaceId,
    revision: cr.revisionId,
    revisionInitial: cr.revisionInitial,
    revisionMergedAncestor: cr.revisionMergedAncestor,
    ...(cr.revisionMerged ? { revisionMerged: cr.revisionMerged } : {}),
    comments: openCommentCount(store, { spaceId: cr.spaceId, changeRequestId: cr.id }),
    outdated: isOutdated(store, cr),
    ...(cr.data.links && cr.data.links.length > 0 ? { links: cr.data.links } : {}),
    urls: {
      app: appUrl(origin, `/spaces/${cr.spaceId}/change-requests/${cr.number}`),
      location: changeRequestLocation(origin, cr),
    },
  }
}

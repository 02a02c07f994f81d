import type { Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import type { RequestContext } from '../http/context'
import { conflict, forbidden, notFound } from '../http/errors'
import { ChangeRequestsRepository, type ChangeRequest } from '../store/change-requests'
import { RevisionsRepository, type Revision } from '../store/revisions'
import { SpacesRepository, type Space } from '../store/spaces'
import { spacePermissions } from './serializers/space'

/** What an operation needs on the space; the same rules produce the Space's `permissions` flags. */
export type ContentAccess = 'view' | 'edit' | 'merge'

export interface SpaceAccess {
  space: Space
  role: Role | null
}

const DENIED: Record<ContentAccess, string> = {
  view: 'You cannot read this space',
  edit: 'Editing this space needs the edit role, and the space must not be locked',
  merge: 'Merging needs the review role on the space, and the space must not be locked',
}

/** The space of `{spaceId}`: 404 when missing, deleted or invisible to the caller, 403 when visible but not allowed. */
export function requireSpace(ctx: RequestContext, access: ContentAccess, spaceId = ctx.params.spaceId): SpaceAccess {
  const space = spaceId ? ctx.store.repo(SpacesRepository).get(spaceId) : undefined
  const role = space ? spaceRole(ctx.store, space, ctx.user.id) : null
  if (!space || space.deletedAt !== null || !role) throw notFound(`Space ${spaceId ?? ''} could not be found`)
  if (!spacePermissions(role, space)[access]) throw forbidden(DENIED[access])
  return { space, role }
}

/** `{changeRequestId}`: the id or the incremental number of a change request of the space. */
export function requireChangeRequest(ctx: RequestContext, space: Space, idOrNumber = ctx.params.changeRequestId ?? ''): ChangeRequest {
  const cr = ctx.store.repo(ChangeRequestsRepository).resolve(space.id, idOrNumber)
  if (!cr) throw notFound(`Change request ${idOrNumber} could not be found in space ${space.id}`)
  return cr
}

/** The space's current revision; a space that never had content has none yet (404). */
export function currentRevision(ctx: RequestContext, space: Space): Revision {
  const revision = space.revisionId ? ctx.store.repo(RevisionsRepository).get(space.revisionId) : undefined
  if (!revision) throw notFound(`Space ${space.id} has no content yet`)
  return revision
}

export function requireRevision(ctx: RequestContext, space: Space, revisionId = ctx.params.revisionId ?? ''): Revision {
  const revision = ctx.store.repo(RevisionsRepository).getInSpace(space.id, revisionId)
  if (!revision) throw notFound(`Revision ${revisionId} could not be found in space ${space.id}`)
  return revision
}

export function changeRequestRevision(ctx: RequestContext, cr: ChangeRequest): Revision {
  const revision = ctx.store.repo(RevisionsRepository).get(cr.revisionId)
  if (!revision) throw new Error(`change request ${cr.id} points at a missing revision ${cr.revisionId}`)
  return revision
}

/** Content writes and merges are refused on change requests that are merged or archived. */
export function requireEditable(cr: ChangeRequest, action: string) {
  if (cr.status === 'merged') throw conflict(`Change request #${cr.number} is already merged: ${action} is not possible on a merged change request`)
  if (cr.status === 'archived') throw conflict(`Change request #${cr.number} is archived: reopen it (status open or draft) before ${action}`)
}

import type { ServiceStore } from '../../store/service-store'
import { InvitesRepository, type Invite } from '../../store/invites'
import { SpacesRepository } from '../../store/spaces'
import { spaceJson } from './space'

/**
 * A link invite is redundant when an older link invite of the organization already grants the same
 * thing: the same organization role, or the same level on the same space. Holders of either link end up
 * with identical access, so only the oldest of such a group is needed.
 */
export function isRedundant(store: ServiceStore, invite: Invite): boolean {
  // Oldest first, so the invites before this one are the ones it could duplicate.
  const siblings = store.repo(InvitesRepository).list(invite.orgId, 'link', { spaceId: invite.spaceId })
  const index = siblings.findIndex((other) => other.id === invite.id)
  return siblings.slice(0, index).some((other) => other.role === invite.role)
}

/** `InviteLinkToOrganization`, or `InviteLinkToSpace` for an invite to one space. */
export function inviteLinkJson(store: ServiceStore, invite: Invite, userId: string, origin: string) {
  const redundant = isRedundant(store, invite)
  if (invite.spaceId === null) return { object: 'invite' as const, id: invite.id, role: invite.role, redundant }
  const space = store.repo(SpacesRepository).get(invite.spaceId)
  if (!space) throw new Error(`invite ${invite.id} points at missing space ${invite.spaceId}`)
  return { object: 'invite' as const, id: invite.id, level: invite.role, redundant, space: spaceJson(store, space, userId, origin) }
}

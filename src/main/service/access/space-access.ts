import { OrganizationsRepository } from '../store/organizations'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository, type Space } from '../store/spaces'
import { strongest, type Role } from './roles'

/**
 * The caller's role on a space: an explicit space grant, a grant to one of their teams, the organization
 * admin role, or the level the space (or its collections) gives members, falling back to the member's
 * organization role.
 * Public and unlisted spaces are readable by anyone signed in.
 */
export function spaceRole(store: ServiceStore, space: Space, userId: string): Role | null {
  const spaces = store.repo(SpacesRepository)
  const explicit = spaces.userRole(space.id, userId)
  const member = store.repo(OrganizationsRepository).member(space.orgId, userId)
  let inherited: Role | null | undefined
  // Guests (members whose organization role is null) only get what is granted to them explicitly.
  if (member && member.role !== null) {
    if (member.role === 'admin') return 'admin'
    const level = space.data.defaultLevel
    inherited =
      level && level !== 'inherit'
        ? level
        : ((space.collectionId ? spaces.collectionDefaultLevel(space.collectionId) : undefined) ?? member.role)
  }
  const publicRead: Role | null = space.data.visibility === 'public' || space.data.visibility === 'unlisted' ? 'read' : null
  return strongest(explicit, ...spaces.teamRolesOfUser(space.id, userId), inherited, publicRead)
}

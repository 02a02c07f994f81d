import { spaceRole } from '../../access/space-access'
import type { OrgMember } from '../../store/organizations'
import type { ServiceStore } from '../../store/service-store'
import { SpacesRepository } from '../../store/spaces'
import { TeamsRepository, type TeamMembership } from '../../store/teams'
import { UsersRepository } from '../../store/users'
import { userJson } from '../users'

/**
 * The spec's `OrganizationMember`. `spaces` counts the organization's live spaces the member can read;
 * `sites` is 0 because this service keeps no per-user site grants; `sso` is false because nobody signs
 * in through SAML here (providers are configuration only).
 */
export function organizationMemberJson(store: ServiceStore, orgId: string, member: OrgMember, origin: string) {
  const user = store.repo(UsersRepository).get(member.userId)
  if (!user) throw new Error(`member ${member.userId} has no user row`)
  const spaces = store
    .repo(SpacesRepository)
    .listByOrg(orgId)
    .filter((space) => spaceRole(store, space, member.userId) !== null).length
  return {
    object: 'member' as const,
    id: member.userId,
    role: member.role,
    user: userJson(user, origin),
    disabled: false,
    joinedAt: member.joinedAt,
    sso: false,
    spaces,
    teams: store.repo(TeamsRepository).teamsOfUser(orgId, member.userId).length,
    sites: 0,
  }
}

/** The spec's `OrganizationTeamMember`: the organization membership plus the role in the team. */
export function teamMemberJson(store: ServiceStore, orgId: string, member: OrgMember, membership: TeamMembership, origin: string) {
  return {
    organization: organizationMemberJson(store, orgId, member, origin),
    team: { role: membership.role },
    permissions: { view: true },
  }
}

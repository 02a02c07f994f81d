import type { ServiceStore } from '../../store/service-store'
import { TeamsRepository, type Team } from '../../store/teams'
import { OrganizationsRepository } from '../../store/organizations'

/**
 * Organization admins manage every team; a team's owners manage their own team (rename it, change its
 * members). Members of the organization see every team; guests see none.
 */
export function canManageTeam(store: ServiceStore, team: Team, userId: string): boolean {
  const member = store.repo(OrganizationsRepository).member(team.orgId, userId)
  if (!member) return false
  if (member.role === 'admin') return true
  return store.repo(TeamsRepository).membership(team.id, userId)?.role === 'owner'
}

/** The spec's `OrganizationTeam` as the caller sees it. */
export function teamJson(store: ServiceStore, team: Team, userId: string) {
  const teams = store.repo(TeamsRepository)
  const member = store.repo(OrganizationsRepository).member(team.orgId, userId)
  return {
    object: 'team' as const,
    id: team.id,
    title: team.title,
    members: teams.memberCount(team.id),
    spaces: teams.spaceCount(team.id),
    createdAt: team.createdAt,
    permissions: {
      admin: canManageTeam(store, team, userId),
      view: !!member && member.role !== null,
    },
  }
}

export type TeamJson = ReturnType<typeof teamJson>

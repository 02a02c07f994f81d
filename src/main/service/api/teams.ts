import { created, noContent, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { OrganizationsRepository } from '../store/organizations'
import { TeamsRepository, type Team, type TeamMemberRole } from '../store/teams'
import { deleted } from './serializers/deleted'
import { orgForAdmin, orgForMember, type OrgCaller } from './serializers/org-admin-access'
import { canManageTeam, teamJson } from './serializers/team'
import { teamMemberJson } from './serializers/team-member'

interface CreateTeamBody {
  title: string
  members?: string[]
}
interface UpdateMembersBody {
  add?: string[]
  remove?: string[]
  memberships?: Record<string, { role: TeamMemberRole }>
}

function checkTitle(title: string): string {
  if (title.trim() === '') throw badRequest('body/title must not be blank')
  return title
}

function teamOf(ctx: RequestContext, caller: OrgCaller): Team {
  const team = ctx.store.repo(TeamsRepository).inOrg(caller.org.id, ctx.params.teamId)
  if (!team) throw notFound(`No team ${ctx.params.teamId} in this organization`)
  return team
}

/** A team the caller may manage: admins of the organization or owners of the team. */
function managedTeam(ctx: RequestContext): Team {
  const team = teamOf(ctx, orgForMember(ctx))
  if (!canManageTeam(ctx.store, team, ctx.user.id)) throw forbidden('Only organization admins and team owners can manage this team')
  return team
}

/** Every id must name a member of the organization (guests included: they may join teams). */
function requireOrgMembers(ctx: RequestContext, orgId: string, ids: string[], field: string) {
  const orgs = ctx.store.repo(OrganizationsRepository)
  const unknown = ids.filter((id) => !orgs.member(orgId, id))
  if (unknown.length > 0) throw badRequest(`${field} names users who are not members of the organization: ${unknown.join(', ')}`)
}

const listTeams: Route = {
  operationId: 'listTeamsInOrganizationById',
  handler: (ctx) => {
    const { org } = orgForMember(ctx)
    let teams = ctx.store.repo(TeamsRepository).listByOrg(org.id)
    if (typeof ctx.query.owner === 'string') {
      const owner = ctx.query.owner
      teams = teams.filter((team) => canManageTeam(ctx.store, team, owner))
    }
    if (typeof ctx.query.title === 'string') {
      const needle = ctx.query.title.toLowerCase()
      teams = teams.filter((team) => team.title.toLowerCase().includes(needle))
    }
    return ok(paginate(teams, ctx.query, (team) => teamJson(ctx.store, team, ctx.user.id)))
  },
}

const createTeam: Route = {
  operationId: 'createOrganizationTeam',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const body = ctx.body as CreateTeamBody
    const title = checkTitle(body.title)
    const members = [...new Set(body.members ?? [])]
    requireOrgMembers(ctx, org.id, members, 'body/members')
    const team = ctx.store.repo(TeamsRepository).create({ orgId: org.id, title, members: members.map((userId) => ({ userId })) })
    return created(teamJson(ctx.store, team, ctx.user.id))
  },
}

const getTeam: Route = {
  operationId: 'getTeamInOrganizationById',
  handler: (ctx) => ok(teamJson(ctx.store, teamOf(ctx, orgForMember(ctx)), ctx.user.id)),
}

const updateTeam: Route = {
  operationId: 'updateTeamInOrganizationById',
  handler: (ctx) => {
    const team = managedTeam(ctx)
    const title = checkTitle((ctx.body as { title: string }).title)
    return ok(teamJson(ctx.store, ctx.store.repo(TeamsRepository).rename(team.id, title), ctx.user.id))
  },
}

const deleteTeam: Route = {
  operationId: 'removeTeamFromOrganizationById',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const teams = ctx.store.repo(TeamsRepository)
    const team = teams.inOrg(org.id, ctx.params.teamId)
    return deleted(!!team && teams.delete(team.id))
  },
}

const listTeamMembers: Route = {
  operationId: 'listTeamMembersInOrganizationById',
  handler: (ctx) => {
    const caller = orgForMember(ctx)
    const team = teamOf(ctx, caller)
    const orgs = ctx.store.repo(OrganizationsRepository)
    const rows = ctx.store
      .repo(TeamsRepository)
      .members(team.id)
      .flatMap((membership) => {
        const member = orgs.member(caller.org.id, membership.userId)
        return member ? [{ member, membership }] : []
      })
    return ok(paginate(rows, ctx.query, ({ member, membership }) => teamMemberJson(ctx.store, caller.org.id, member, membership, ctx.origin)))
  },
}

const updateMembers: Route = {
  operationId: 'updateMembersInOrganizationTeam',
  handler: (ctx) => {
    const team = managedTeam(ctx)
    const teams = ctx.store.repo(TeamsRepository)
    const body = ctx.body as UpdateMembersBody
    const add = [...new Set(body.add ?? [])]
    const remove = new Set(body.remove ?? [])
    const both = add.filter((id) => remove.has(id))
    if (both.length > 0) throw badRequest(`body/add and body/remove both name ${both.join(', ')}`)
    requireOrgMembers(ctx, team.orgId, add, 'body/add')
    const memberships = Object.entries(body.memberships ?? {})
    const inTeamAfter = (userId: string) => add.includes(userId) || (!remove.has(userId) && !!teams.membership(team.id, userId))
    const strays = memberships.filter(([userId]) => !inTeamAfter(userId)).map(([userId]) => userId)
    if (strays.length > 0) throw badRequest(`body/memberships names users who are not in the team: ${strays.join(', ')}`)
    ctx.store.transaction(() => {
      for (const userId of remove) teams.removeMember(team.id, userId)
      for (const userId of add) if (!teams.membership(team.id, userId)) teams.setMember(team.id, userId, 'member')
      for (const [userId, { role }] of memberships) teams.setMember(team.id, userId, role)
    })
    return noContent()
  },
}

const addMember: Route = {
  operationId: 'addMemberToOrganizationTeamById',
  handler: (ctx) => {
    const team = managedTeam(ctx)
    const userId = ctx.params.userId
    if (!ctx.store.repo(OrganizationsRepository).member(team.orgId, userId)) throw notFound(`No member ${userId} in this organization`)
    const teams = ctx.store.repo(TeamsRepository)
    const role = (ctx.body as { role?: TeamMemberRole } | undefined)?.role
    teams.setMember(team.id, userId, role ?? teams.membership(team.id, userId)?.role ?? 'member')
    return noContent()
  },
}

const removeMember: Route = {
  operationId: 'deleteMemberFromOrganizationTeamById',
  handler: (ctx) => {
    const team = managedTeam(ctx)
    return deleted(ctx.store.repo(TeamsRepository).removeMember(team.id, ctx.params.userId))
  },
}

export const teamRoutes: Route[] = [listTeams, createTeam, getTeam, updateTeam, deleteTeam, listTeamMembers, updateMembers, addMember, removeMember]

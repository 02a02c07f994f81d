import { atLeast, ROLES, type Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { noContent, ok, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { OrganizationsRepository } from '../store/organizations'
import { SpacesRepository } from '../store/spaces'
import { TeamsRepository } from '../store/teams'
import { UsersRepository, type UserRow } from '../store/users'
import { teamJson } from './serializers/team'
import { requireSpace } from './spaces'
import { userJson } from './users'

// A null role in these bodies ("guest") grants nothing on a space, so it withdraws the explicit grant:
// the user or team falls back to what the organization and collections give them.

const roleRank = (role: Role) => ROLES.indexOf(role)

function permissionJson(ctx: RequestContext, user: UserRow, role: Role) {
  return { permission: role, user: userJson(user, ctx.origin) }
}

function requireRoleField(body: { role?: Role | null }): Role | null {
  if (!('role' in body) || body.role === undefined) throw badRequest('body/role is required')
  return body.role
}

/** Explicit grants to users and to teams work alike; only the repository methods and the words differ. */
interface Grantee {
  noun: 'User' | 'Team'
  param: 'userId' | 'teamId'
  role(spaces: SpacesRepository, spaceId: string, id: string): Role | null | undefined
  set(spaces: SpacesRepository, spaceId: string, id: string, role: Role): void
  remove(spaces: SpacesRepository, spaceId: string, id: string): boolean
}

const USER: Grantee = {
  noun: 'User',
  param: 'userId',
  role: (spaces, spaceId, id) => spaces.userRole(spaceId, id),
  set: (spaces, spaceId, id, role) => spaces.setUserRole(spaceId, id, role),
  remove: (spaces, spaceId, id) => spaces.removeUser(spaceId, id),
}

const TEAM: Grantee = {
  noun: 'Team',
  param: 'teamId',
  role: (spaces, spaceId, id) => spaces.teamRole(spaceId, id),
  set: (spaces, spaceId, id, role) => spaces.setTeamRole(spaceId, id, role),
  remove: (spaces, spaceId, id) => spaces.removeTeam(spaceId, id),
}

function grant(spaces: SpacesRepository, grantee: Grantee, spaceId: string, id: string, role: Role | null) {
  if (role === null) grantee.remove(spaces, spaceId, id)
  else grantee.set(spaces, spaceId, id, role)
}

interface InviteBody {
  role: Role | null
  users?: string[]
  teams?: string[]
}

/** Adds (or changes) explicit grants for users and teams; any unknown id rejects the whole request. */
function inviteToSpace(ctx: RequestContext): HandlerResult {
  const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
  const body = ctx.body as InviteBody
  const users = ctx.store.repo(UsersRepository)
  const teams = ctx.store.repo(TeamsRepository)
  // The spec's answer to an unknown id here is 404 "No team or user with the provided Id".
  body.users?.forEach((id, i) => {
    if (!users.get(id)) throw notFound(`body/users/${i}: no user ${id}`)
  })
  body.teams?.forEach((id, i) => {
    if (!teams.inOrg(space.orgId, id)) throw notFound(`body/teams/${i}: no team ${id} in the space's organization`)
  })
  const spaces = ctx.store.repo(SpacesRepository)
  for (const id of new Set(body.users)) grant(spaces, USER, space.id, id, body.role)
  for (const id of new Set(body.teams)) grant(spaces, TEAM, space.id, id, body.role)
  return noContent()
}

function listUserPermissions(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId)
  const users = ctx.store.repo(UsersRepository)
  const items = ctx.store
    .repo(SpacesRepository)
    .users(space.id)
    .flatMap((grant) => {
      const user = users.get(grant.userId)
      return user && grant.role ? [permissionJson(ctx, user, grant.role)] : []
    })
  return ok(paginate(items, ctx.query))
}

function updatePermission(grantee: Grantee) {
  return (ctx: RequestContext): HandlerResult => {
    const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
    const role = requireRoleField(ctx.body as { role?: Role | null })
    const spaces = ctx.store.repo(SpacesRepository)
    const id = ctx.params[grantee.param]
    if (!grantee.role(spaces, space.id, id)) throw notFound(`${grantee.noun} ${id} was not found in the space`)
    grant(spaces, grantee, space.id, id, role)
    return noContent()
  }
}

/** The spec's outcomes: 205 "user/team has been removed", 204 "user/team was not found in the space". */
function removeGrantee(grantee: Grantee) {
  return (ctx: RequestContext): HandlerResult => {
    const { space } = requireSpace(ctx, ctx.params.spaceId, 'admin')
    return { status: grantee.remove(ctx.store.repo(SpacesRepository), space.id, ctx.params[grantee.param]) ? 205 : 204 }
  }
}

/**
 * Everyone who can read the space by a grant this service can enumerate: organization members, users
 * invited to the space and members of invited teams. Readers of a public space who belong to none of
 * those are not listed. Strongest roles first.
 */
function listAggregate(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId)
  const spaces = ctx.store.repo(SpacesRepository)
  const candidates = new Set<string>([
    ...ctx.store
      .repo(OrganizationsRepository)
      .members(space.orgId)
      .map((m) => m.userId),
    ...spaces.users(space.id).map((u) => u.userId),
    ...spaces.teamMemberIds(space.id),
  ])
  const filter = ctx.query.role as Role | undefined
  const users = ctx.store.repo(UsersRepository)
  const entries: Array<{ user: UserRow; role: Role }> = []
  for (const id of candidates) {
    const user = users.get(id)
    const role = user ? spaceRole(ctx.store, space, id) : null
    if (user && role && atLeast(role, 'read') && (!filter || role === filter)) entries.push({ user, role })
  }
  entries.sort((a, b) => roleRank(a.role) - roleRank(b.role))
  return ok(paginate(entries, ctx.query, (e) => permissionJson(ctx, e.user, e.role)))
}

function listTeamPermissions(ctx: RequestContext) {
  const { space } = requireSpace(ctx, ctx.params.spaceId)
  const teams = ctx.store.repo(TeamsRepository)
  const items = ctx.store
    .repo(SpacesRepository)
    .teams(space.id)
    .flatMap((grant) => {
      const team = teams.get(grant.teamId)
      return team && grant.role ? [{ permission: grant.role, team: teamJson(ctx.store, team, ctx.user.id) }] : []
    })
  return ok(paginate(items, ctx.query))
}

const inTransaction = (handler: (ctx: RequestContext) => HandlerResult) => (ctx: RequestContext) => ctx.store.transaction(() => handler(ctx))

export const spacePermissionRoutes: Route[] = [
  { operationId: 'inviteToSpace', handler: inTransaction(inviteToSpace) },
  { operationId: 'listUserPermissionsInSpace', handler: listUserPermissions },
  { operationId: 'updateUserPermissionInSpace', handler: inTransaction(updatePermission(USER)) },
  { operationId: 'removeUserFromSpace', handler: inTransaction(removeGrantee(USER)) },
  { operationId: 'listPermissionsAggregateInSpace', handler: listAggregate },
  { operationId: 'listTeamPermissionsInSpace', handler: listTeamPermissions },
  { operationId: 'updateTeamPermissionInSpace', handler: inTransaction(updatePermission(TEAM)) },
  { operationId: 'removeTeamFromSpace', handler: inTransaction(removeGrantee(TEAM)) },
]

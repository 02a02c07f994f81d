import { spaceRole } from '../access/space-access'
import { strongest, type Role } from '../access/roles'
import { created, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { InvitesRepository, type Invite } from '../store/invites'
import { OrganizationsRepository, type Organization, type OrgMember } from '../store/organizations'
import { SamlProvidersRepository } from '../store/saml-providers'
import { SpacesRepository, type Space } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { deleted } from './serializers/deleted'
import { inviteLinkJson } from './serializers/invite'
import { orgForAdmin, orgOfCaller } from './serializers/org-admin-access'
import { samlStatus } from './serializers/saml-provider'

type EmailEntry = string | { email: string; role: Role | null }
interface InviteUsersBody {
  emails: EmailEntry[]
  role?: Role | null
  sso?: boolean
}
type CreateLinkBody = { role: Role | null } | { level: Role | null; space: string } | { level: Role | null; collection: string }
type UpdateLinkBody = { role: Role | null } | { level: Role | null }

/**
 * Whether an organization invite changes someone's membership: it admits non-members and turns guests
 * (null role) into members; members keep the role they have, so an invite never demotes anyone.
 */
function invitationApplies(existing: OrgMember | undefined, role: Role | null): boolean {
  return !existing || (existing.role === null && role !== null)
}

/** The role an invitee gets when the request names none: the organization's default role. */
function defaultInviteRole(org: Organization): Role | null {
  return org.data.defaultRole === undefined ? 'read' : org.data.defaultRole
}

/**
 * E-mail invites. This service sends no e-mail, so an address that already has an account here joins at
 * once (its id is in `users`; a guest becomes a member, members are left as they are). Any other address
 * gets a pending invitation, which its owner accepts through POST /orgs/{id}/invites/{inviteId} once they
 * have an account with that address. `invited` counts both. With `sso`, an address can only be invited
 * when the organization has an active SAML provider to sign in with; otherwise it is reported in
 * `failedSSOEmails` and nothing is done for it.
 */
const inviteUsers: Route = {
  operationId: 'inviteUsersToOrganization',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const body = ctx.body as InviteUsersBody
    if (body.emails.length === 0) throw badRequest('body/emails must name at least one address')
    const fallbackRole = body.role === undefined ? defaultInviteRole(org) : body.role
    const wanted = new Map<string, Role | null>()
    for (const entry of body.emails) {
      const email = (typeof entry === 'string' ? entry : entry.email).trim().toLowerCase()
      wanted.set(email, typeof entry === 'string' ? fallbackRole : entry.role)
    }
    const ssoReady = ctx.store
      .repo(SamlProvidersRepository)
      .listByOrg(org.id)
      .some((p) => samlStatus(p) === 'active')

    const orgs = ctx.store.repo(OrganizationsRepository)
    const users = ctx.store.repo(UsersRepository)
    const invites = ctx.store.repo(InvitesRepository)
    const result = { users: [] as string[], invited: 0, failedSSOEmails: [] as string[] }
    ctx.store.transaction(() => {
      for (const [email, role] of wanted) {
        if (body.sso && !ssoReady) {
          result.failedSSOEmails.push(email)
          continue
        }
        const account = users.byEmail(email)
        if (account) {
          if (!invitationApplies(orgs.member(org.id, account.id), role)) continue
          orgs.setMember(org.id, account.id, role)
          result.users.push(account.id)
        } else {
          const pending = invites.pendingEmailInvite(org.id, email)
          if (pending) invites.setRole(pending.id, role)
          else invites.create({ orgId: org.id, kind: 'email', role, email, createdBy: ctx.user.id })
        }
        result.invited++
      }
    })
    return ok(result)
  },
}

/**
 * Joining through an invite: a link invite admits whoever holds its id (while the organization allows
 * invite links); an e-mail invitation admits only its addressee and is used up. Someone who is already
 * a member keeps their role (a guest becomes a member); an invite to a space makes a non-member a guest
 * of the organization.
 */
const joinWithInvite: Route = {
  operationId: 'joinOrganizationWithInvite',
  handler: (ctx) => {
    const orgId = ctx.params.organizationId
    const invite = ctx.store.repo(InvitesRepository).get(ctx.params.inviteId)
    const org = ctx.store.repo(OrganizationsRepository).get(orgId)
    if (!org || !invite || invite.orgId !== orgId) throw notFound(`No invite ${ctx.params.inviteId} for organization ${orgId}`)
    if (invite.kind === 'email' && invite.email !== ctx.user.email.toLowerCase()) {
      throw forbidden('This invitation is addressed to another e-mail address')
    }
    if (invite.kind === 'link' && !org.data.inviteLinks) throw forbidden('Invite links are disabled for this organization')
    const orgs = ctx.store.repo(OrganizationsRepository)
    const spaces = ctx.store.repo(SpacesRepository)
    if (invite.spaceId !== null && spaces.get(invite.spaceId)?.deletedAt !== null) throw notFound('The space of this invite has been deleted')
    ctx.store.transaction(() => {
      const member = orgs.member(org.id, ctx.user.id)
      if (invite.spaceId === null) {
        if (invitationApplies(member, invite.role)) orgs.setMember(org.id, ctx.user.id, invite.role)
      } else {
        if (!member) orgs.setMember(org.id, ctx.user.id, null)
        const current = spaces.userRole(invite.spaceId, ctx.user.id)
        spaces.setUserRole(invite.spaceId, ctx.user.id, strongest(current, invite.role))
      }
      if (invite.kind === 'email') ctx.store.repo(InvitesRepository).delete(invite.id)
    })
    return ok({})
  },
}

/** A space of the organization whose invite links the caller administrates (404 when invisible). */
function adminSpace(ctx: RequestContext, orgId: string, spaceId: string): Space {
  const space = ctx.store.repo(SpacesRepository).get(spaceId)
  const role = space && space.orgId === orgId && space.deletedAt === null ? spaceRole(ctx.store, space, ctx.user.id) : null
  if (!space || !role) throw notFound(`No space ${spaceId} in this organization`)
  if (role !== 'admin') throw forbidden('Only administrators of the space manage its invite links')
  return space
}

/** A link invite of the organization the caller may manage: organization-wide ones need an org admin. */
function managedLinkInvite(ctx: RequestContext): Invite {
  const caller = orgOfCaller(ctx)
  const invite = ctx.store.repo(InvitesRepository).inOrg(caller.org.id, 'link', ctx.params.inviteId)
  if (!invite) throw notFound(`No invite link ${ctx.params.inviteId} in this organization`)
  if (invite.spaceId === null) {
    if (!caller.isAdmin) throw forbidden('Only administrators of the organization manage its invite links')
  } else {
    adminSpace(ctx, caller.org.id, invite.spaceId)
  }
  return invite
}

const listLinks: Route = {
  operationId: 'listOrganizationInviteLinks',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const links = ctx.store.repo(InvitesRepository).list(org.id, 'link', { spaceId: null })
    return ok(paginate(links, ctx.query, (invite) => inviteLinkJson(ctx.store, invite, ctx.user.id, ctx.origin)))
  },
}

const createLink: Route = {
  operationId: 'createOrganizationInvite',
  handler: (ctx) => {
    const body = ctx.body as CreateLinkBody
    const invites = ctx.store.repo(InvitesRepository)
    let invite: Invite
    if ('role' in body) {
      const { org } = orgForAdmin(ctx)
      invite = invites.create({ orgId: org.id, kind: 'link', role: body.role, createdBy: ctx.user.id })
    } else if ('space' in body) {
      const { org } = orgOfCaller(ctx)
      const space = adminSpace(ctx, org.id, body.space)
      if (body.level === null) throw badRequest('body/level must be a role: an invite to a space grants access to it')
      invite = invites.create({ orgId: org.id, kind: 'link', role: body.level, spaceId: space.id, createdBy: ctx.user.id })
    } else {
      orgOfCaller(ctx)
      // Collections here carry a default level for everyone, not grants for individual users.
      throw badRequest('Invite links to a collection are not supported: this service has no per-user collection permissions')
    }
    return created(inviteLinkJson(ctx.store, invite, ctx.user.id, ctx.origin))
  },
}

const getLink: Route = {
  operationId: 'getOrganizationInviteLink',
  handler: (ctx) => ok(inviteLinkJson(ctx.store, managedLinkInvite(ctx), ctx.user.id, ctx.origin)),
}

const updateLink: Route = {
  operationId: 'updateOrganizationInviteById',
  handler: (ctx) => {
    const invite = managedLinkInvite(ctx)
    const body = ctx.body as UpdateLinkBody
    let role: Role | null
    if (invite.spaceId === null) {
      if (!('role' in body)) throw badRequest('body/role is required: this invite is to the organization')
      role = body.role
    } else {
      if (!('level' in body)) throw badRequest('body/level is required: this invite is to a space')
      if (body.level === null) throw badRequest('body/level must be a role: an invite to a space grants access to it')
      role = body.level
    }
    const updated = ctx.store.repo(InvitesRepository).setRole(invite.id, role)
    return ok(inviteLinkJson(ctx.store, updated, ctx.user.id, ctx.origin))
  },
}

const deleteLink: Route = {
  operationId: 'deleteOrganizationInviteById',
  handler: (ctx) => {
    const { org } = orgOfCaller(ctx)
    if (!ctx.store.repo(InvitesRepository).inOrg(org.id, 'link', ctx.params.inviteId)) return deleted(false)
    return deleted(ctx.store.repo(InvitesRepository).delete(managedLinkInvite(ctx).id))
  },
}

export const inviteRoutes: Route[] = [inviteUsers, joinWithInvite, listLinks, createLink, getLink, updateLink, deleteLink]

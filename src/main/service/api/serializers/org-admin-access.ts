import type { RequestContext } from '../../http/context'
import { forbidden, notFound } from '../../http/errors'
import { OrganizationsRepository, type Organization, type OrgMember } from '../../store/organizations'

export interface OrgCaller {
  org: Organization
  member: OrgMember
  /** Organization admins manage teams, invites, SSO, fonts and agent instructions. */
  isAdmin: boolean
}

/**
 * The organization as the caller reaches it. An organization the caller does not belong to is invisible
 * (404), like any object the caller cannot see.
 */
export function orgOfCaller(ctx: RequestContext, orgId: string = ctx.params.organizationId): OrgCaller {
  const orgs = ctx.store.repo(OrganizationsRepository)
  const org = orgs.get(orgId)
  const member = org && orgs.member(org.id, ctx.user.id)
  if (!org || !member) throw notFound(`No organization ${orgId}`)
  return { org, member, isAdmin: member.role === 'admin' }
}

/** For reads open to members: guests (a null organization role) only reach what is shared with them. */
export function orgForMember(ctx: RequestContext): OrgCaller {
  const caller = orgOfCaller(ctx)
  if (caller.member.role === null) throw forbidden('Guests of the organization cannot do this')
  return caller
}

export function orgForAdmin(ctx: RequestContext): OrgCaller {
  const caller = orgOfCaller(ctx)
  if (!caller.isAdmin) throw forbidden('Only administrators of the organization can do this')
  return caller
}

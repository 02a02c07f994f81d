import { atLeast, type Role } from '../access/roles'
import { noContent, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { OrganizationsRepository, type Organization, type OrganizationData, type OrgMember } from '../store/organizations'
import { SitesRepository } from '../store/sites'
import { UsersRepository } from '../store/users'
import { organizationJson } from './serializers/organization'
import { organizationMemberJson } from './serializers/team-member'

export interface OrgAccess {
  org: Organization
  member: OrgMember
}

/**
 * The organization if the caller belongs to it (guests included); 404 otherwise, so non-members
 * cannot tell an organization exists.
 */
export function requireOrg(ctx: RequestContext, orgId: string): OrgAccess {
  const orgs = ctx.store.repo(OrganizationsRepository)
  const org = orgs.get(orgId)
  const member = org && orgs.member(org.id, ctx.user.id)
  if (!org || !member) throw notFound(`Organization ${orgId} not found`)
  return { org, member }
}

/** As requireOrg, and the caller's organization role must grant `needed` (403 otherwise). */
export function requireOrgRole(ctx: RequestContext, orgId: string, needed: Role): OrgAccess {
  const access = requireOrg(ctx, orgId)
  if (!atLeast(access.member.role, needed)) throw forbidden(`This operation needs the ${needed} role in the organization`)
  return access
}

const HOSTNAME = /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/
const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/

function normalizeDomains(domains: string[]): string[] {
  const out: string[] = []
  for (const raw of domains) {
    const domain = raw.trim().toLowerCase()
    if (!DOMAIN.test(domain)) throw badRequest(`body/emailDomains: "${raw}" is not a domain name`)
    if (!out.includes(domain)) out.push(domain)
  }
  return out
}

interface MergeRulesInput {
  type: string
  rules?: Array<{ rule: string; users?: string[] }>
}

/** Merge rules may only name reviewers who belong to the organization. */
export function checkMergeRuleUsers(ctx: RequestContext, orgId: string, rules: MergeRulesInput, where: string) {
  const orgs = ctx.store.repo(OrganizationsRepository)
  for (const rule of rules.rules ?? []) {
    for (const userId of rule.users ?? []) {
      if (!orgs.member(orgId, userId)) throw badRequest(`${where}: user ${userId} is not a member of the organization`)
    }
  }
}

interface UpdateOrganizationBody {
  title?: string
  emailDomains?: string[]
  hostname?: string
  defaultRole?: Role | null
  defaultContent?: { type: 'site'; site: string } | null
  logo?: string | null
  sso?: boolean
  ai?: boolean
  inviteLinks?: boolean
  mergeRules?: MergeRulesInput
}

function updateOrganization(ctx: RequestContext) {
  const { org } = requireOrgRole(ctx, ctx.params.organizationId, 'admin')
  const body = ctx.body as UpdateOrganizationBody
  const orgs = ctx.store.repo(OrganizationsRepository)
  const data: Partial<OrganizationData> = {}
  if (body.hostname !== undefined) {
    const hostname = body.hostname.toLowerCase()
    if (!HOSTNAME.test(hostname)) throw badRequest('body/hostname may only hold letters, digits and inner hyphens')
    if (orgs.all().some((o) => o.id !== org.id && o.data.hostname === hostname)) throw conflict(`The hostname ${hostname} is already taken`)
    data.hostname = hostname
  }
  if (body.emailDomains !== undefined) data.emailDomains = normalizeDomains(body.emailDomains)
  if (body.defaultRole !== undefined) data.defaultRole = body.defaultRole
  if (body.defaultContent) {
    // Visitors are sent to this site: it must be one of the organization's own.
    const site = body.defaultContent.site
    if (!ctx.store.repo(SitesRepository).getInOrg(org.id, site)) throw badRequest(`body/defaultContent/site: no site ${site} in this organization`)
  }
  if (body.defaultContent !== undefined) data.defaultContent = body.defaultContent
  if (body.logo !== undefined) data.logo = body.logo
  if (body.sso !== undefined) data.sso = body.sso
  if (body.ai !== undefined) data.ai = body.ai
  if (body.inviteLinks !== undefined) data.inviteLinks = body.inviteLinks
  if (body.mergeRules !== undefined) {
    checkMergeRuleUsers(ctx, org.id, body.mergeRules, 'body/mergeRules')
    data.mergeRules = body.mergeRules as OrganizationData['mergeRules']
  }
  const title = body.title?.trim()
  const updated = orgs.update(org.id, { title, data })
  return ok(organizationJson(ctx.store, updated, ctx.user.id, ctx.origin))
}

/** Joining by e-mail domain: the caller becomes a member with the organization's default role. */
function joinOrganization(ctx: RequestContext) {
  const orgs = ctx.store.repo(OrganizationsRepository)
  const org = orgs.get(ctx.params.organizationId)
  if (!org) throw notFound(`Organization ${ctx.params.organizationId} not found`)
  if (orgs.member(org.id, ctx.user.id)) return noContent()
  const domain = ctx.user.email.split('@').pop()?.toLowerCase() ?? ''
  // The spec's answer to a domain the organization does not allow: 400 "User's email domain is not valid".
  if (!org.data.emailDomains.map((d) => d.toLowerCase()).includes(domain)) {
    throw badRequest(`Your e-mail domain is not allowed to join this organization`)
  }
  orgs.setMember(org.id, ctx.user.id, org.data.defaultRole === undefined ? 'read' : org.data.defaultRole)
  return noContent()
}

/**
 * Members of the organization, for members (guests may not list them: 403). `sort=lastSeenAt` sorts by
 * join date: the service does not track activity.
 */
function listMembers(ctx: RequestContext) {
  const { org, member } = requireOrg(ctx, ctx.params.organizationId)
  if (member.role === null) throw forbidden('Guests of the organization cannot list its members')
  const users = ctx.store.repo(UsersRepository)
  const roleFilter = ctx.query.role as Role | 'guest' | undefined
  const search = typeof ctx.query.search === 'string' ? ctx.query.search.trim().toLowerCase() : ''
  const rows = ctx.store
    .repo(OrganizationsRepository)
    .members(org.id)
    .flatMap((m) => {
      const user = users.get(m.userId)
      return user ? [{ member: m, user }] : []
    })
    .filter(({ member: m }) => roleFilter === undefined || (roleFilter === 'guest' ? m.role === null : m.role === roleFilter))
    .filter(({ user }) => !search || user.display_name.toLowerCase().includes(search) || user.email.includes(search))
  const byName = ctx.query.sort === 'name'
  rows.sort((a, b) =>
    byName ? a.user.display_name.localeCompare(b.user.display_name) || a.user.id.localeCompare(b.user.id) : a.member.joinedAt.localeCompare(b.member.joinedAt),
  )
  if ((ctx.query.order ?? 'desc') === 'desc') rows.reverse()
  return ok(paginate(rows, ctx.query, ({ member: m }) => organizationMemberJson(ctx.store, org.id, m, ctx.origin)))
}

export const organizationRoutes: Route[] = [
  {
    operationId: 'listOrganizationsForAuthenticatedUser',
    handler: (ctx) =>
      ok(paginate(ctx.store.repo(OrganizationsRepository).forUser(ctx.user.id), ctx.query, (org) => organizationJson(ctx.store, org, ctx.user.id, ctx.origin))),
  },
  {
    operationId: 'getOrganizationById',
    handler: (ctx) => ok(organizationJson(ctx.store, requireOrg(ctx, ctx.params.organizationId).org, ctx.user.id, ctx.origin)),
  },
  { operationId: 'updateOrganizationById', handler: (ctx) => ctx.store.transaction(() => updateOrganization(ctx)) },
  { operationId: 'joinOrganization', handler: (ctx) => ctx.store.transaction(() => joinOrganization(ctx)) },
  { operationId: 'listMembersInOrganizationById', handler: listMembers },
]

import { atLeast, type Role } from '../../access/roles'
import { OrganizationsRepository, type Organization, type OrgMember } from '../../store/organizations'
import type { ServiceStore } from '../../store/service-store'
import { apiUrl, appUrl } from '../urls'

export interface OrganizationPermissions {
  view: boolean
  access: boolean
  admin: boolean
  ownTeam: boolean
  createContent: boolean
  createOpenAPISpec: boolean
  viewBilling: boolean
  listMembers: boolean
  listTeams: boolean
  listIntegrations: boolean
  listInstallations: boolean
  installIntegration: boolean
}

/**
 * What membership allows in an organization. Guests (member with a null role) see the organization but
 * only reach the spaces shared with them; members list members and teams; `create` creates content;
 * admins manage the rest. `ownTeam` is false: team ownership lives with teams, not here.
 */
export function organizationPermissions(member: OrgMember | undefined): OrganizationPermissions {
  const role: Role | null = member?.role ?? null
  const isMember = !!member && member.role !== null
  return {
    view: !!member,
    access: isMember,
    admin: atLeast(role, 'admin'),
    ownTeam: false,
    createContent: atLeast(role, 'create'),
    createOpenAPISpec: atLeast(role, 'create'),
    viewBilling: atLeast(role, 'admin'),
    listMembers: isMember,
    listTeams: isMember,
    listIntegrations: isMember,
    listInstallations: atLeast(role, 'admin'),
    installIntegration: atLeast(role, 'admin'),
  }
}

/** The spec's `Organization` object as the caller `userId` sees it. */
export function organizationJson(store: ServiceStore, org: Organization, userId: string, origin: string) {
  const member = store.repo(OrganizationsRepository).member(org.id, userId)
  const d = org.data
  return {
    object: 'organization' as const,
    id: org.id,
    title: org.title,
    createdAt: org.createdAt,
    emailDomains: d.emailDomains,
    ...(d.hostname ? { hostname: d.hostname } : {}),
    type: d.type === 'community' ? ('community' as const) : ('business' as const),
    ...(d.useCase ? { useCase: d.useCase } : {}),
    ...(d.communityType ? { communityType: d.communityType } : {}),
    ...(d.defaultRole !== undefined ? { defaultRole: d.defaultRole } : {}),
    ...(d.defaultContent ? { defaultContent: d.defaultContent } : {}),
    ...(d.sso !== undefined ? { sso: d.sso } : {}),
    ...(d.ai !== undefined ? { ai: d.ai } : {}),
    inviteLinks: d.inviteLinks,
    plan: d.plan,
    mergeRules: d.mergeRules,
    urls: {
      location: apiUrl(origin, `/orgs/${org.id}`),
      app: appUrl(origin, `/orgs/${org.id}`),
      ...(d.logo ? { logo: d.logo } : {}),
    },
    trial: { status: 'notapplicable' as const, count: 0 },
    ...(d.customHostname ? { customHostname: d.customHostname } : {}),
    permissions: organizationPermissions(member),
  }
}

export type OrganizationJson = ReturnType<typeof organizationJson>

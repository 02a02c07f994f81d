import { atLeast, type Role } from '../access/roles'
import type { RequestContext } from '../http/context'
import { forbidden, notFound } from '../http/errors'
import { OrganizationsRepository, type Organization } from '../store/organizations'
import { SiteShareLinksRepository } from '../store/site-share-links'
import { SiteStructureRepository, type SectionGroupRecord, type SiteSectionRecord, type SiteSpaceRecord } from '../store/site-structure'
import type { SiteTree } from '../store/site-tree'
import { SitesRepository, type Site } from '../store/sites'
import { siteRole, type SiteView } from './serializers/site'

/** The organization of the path, when the caller is one of its members (outsiders get 404). */
export function memberOrganization(ctx: RequestContext): Organization {
  const orgId = ctx.params.organizationId
  const orgs = ctx.store.repo(OrganizationsRepository)
  const org = orgs.get(orgId)
  if (!org || !orgs.member(orgId, ctx.user.id)) throw notFound(`No organization ${orgId}`)
  return org
}

/** Creating sites is an organization admin's decision. */
export function requireOrgAdmin(ctx: RequestContext): Organization {
  const org = memberOrganization(ctx)
  if (ctx.store.repo(OrganizationsRepository).member(org.id, ctx.user.id)?.role !== 'admin') {
    throw forbidden('Only organization admins can create sites')
  }
  return org
}

export interface LoadedSite {
  site: Site
  role: Role
  tree: SiteTree
  view: SiteView
}

/**
 * The site of the path as the caller may use it: 404 when they cannot see it, 403 when they can but
 * `need` is more than their role allows.
 */
export function loadSite(ctx: RequestContext, need: 'read' | 'admin'): LoadedSite {
  const org = memberOrganization(ctx)
  const site = ctx.store.repo(SitesRepository).getInOrg(org.id, ctx.params.siteId)
  const role = site ? siteRole(ctx.store, site, ctx.user.id) : null
  if (!site || !atLeast(role, 'read')) throw notFound(`No site ${ctx.params.siteId} in organization ${org.id}`)
  if (!atLeast(role, need)) throw forbidden(`Managing site ${site.id} needs the admin role`)
  const tree = ctx.store.repo(SiteStructureRepository).tree(site)
  return { site, role: role as Role, tree, view: { store: ctx.store, origin: ctx.origin, userId: ctx.user.id, site, tree } }
}

/** The tree and view again after a write, so the response shows the new state. */
export function reload(ctx: RequestContext, site: Site, extra: Partial<SiteView> = {}): SiteView {
  const fresh = ctx.store.repo(SitesRepository).getInOrg(site.orgId, site.id) ?? site
  const tree = ctx.store.repo(SiteStructureRepository).tree(fresh)
  return { store: ctx.store, origin: ctx.origin, userId: ctx.user.id, site: fresh, tree, ...extra }
}

/** The share key, when it is an active key of this share-link site (other keys open nothing). */
export function validShareKey(ctx: RequestContext, site: Site, key: unknown): string | undefined {
  if (typeof key !== 'string' || key === '' || site.visibility !== 'share-link') return undefined
  return ctx.store.repo(SiteShareLinksRepository).activeByKey(site.id, key) ? key : undefined
}

export function sectionOf(tree: SiteTree, id: string): SiteSectionRecord {
  const section = tree.sectionsById.get(id)
  if (!section) throw notFound(`No site section ${id} in site ${tree.site.id}`)
  return section
}

export function groupOf(tree: SiteTree, id: string): SectionGroupRecord {
  const group = tree.groupsById.get(id)
  if (!group) throw notFound(`No section group ${id} in site ${tree.site.id}`)
  return group
}

export function siteSpaceOf(tree: SiteTree, id: string): SiteSpaceRecord {
  const siteSpace = tree.siteSpacesById.get(id)
  if (!siteSpace) throw notFound(`No site space ${id} in site ${tree.site.id}`)
  return siteSpace
}

import { atLeast, type Role } from '../../access/roles'
import { OrganizationsRepository } from '../../store/organizations'
import type { ServiceStore } from '../../store/service-store'
import type { SiteShareLink } from '../../store/site-share-links'
import type { SiteTree } from '../../store/site-tree'
import { SitesRepository, type Site } from '../../store/sites'
import { apiUrl, appUrl, publishedUrl } from '../urls'
import { defaultSiteCustomization, hasAdvancedCustomization, premiumCustomizationsUsed, type Settings } from './site-customization'

/** What a serializer needs to show a site's objects to one caller. */
export interface SiteView {
  store: ServiceStore
  origin: string
  userId: string
  site: Site
  tree: SiteTree
  /** A valid share key the caller presented: published URLs carry it. */
  shareKey?: string
  /** Published view: draft sections, groups and site spaces, and deleted spaces, are left out. */
  publishedOnly?: boolean
}

/**
 * The caller's role on a site. Organization admins administer every site; other members get the
 * site's `defaultLevel` when it names one (null: no access), else their organization role. Guests
 * and outsiders have none.
 */
export function siteRole(store: ServiceStore, site: Site, userId: string): Role | null {
  const member = store.repo(OrganizationsRepository).member(site.orgId, userId)
  if (!member || member.role === null) return null
  if (member.role === 'admin') return 'admin'
  const level = site.data.defaultLevel
  return level === 'inherit' || level === undefined ? member.role : level
}

/** Every write on a site, its structure and customization needs the admin role; reading needs `read`. */
export function sitePermissions(role: Role | null) {
  const view = atLeast(role, 'read')
  const admin = atLeast(role, 'admin')
  return {
    view,
    access: view,
    edit: admin,
    create: admin,
    admin,
    installIntegration: admin,
    viewAdaptiveSchema: view,
    editAdaptiveSchema: admin,
  }
}

/** Where the site answers without a proxy: its custom hostname, else the local service. */
function servingUrl(site: Site, origin: string): string {
  if (site.data.hostname) return `https://${site.data.hostname}`
  return publishedUrl(origin, `/${site.orgId}/${encodeURIComponent(site.data.basename ?? site.id)}`)
}

function baseUrl(site: Site, origin: string): string {
  return site.data.proxy ? `https://${site.data.proxy}` : servingUrl(site, origin)
}

/**
 * A published URL under the site (`tail` like `/guides/api`), or undefined while the site is not
 * published. A share key the caller presented rides along so the URL opens a share-link site.
 */
export function publishedSiteUrl(view: Pick<SiteView, 'site' | 'origin' | 'shareKey'>, tail = ''): string | undefined {
  if (!view.site.published) return undefined
  const url = `${baseUrl(view.site, view.origin)}${tail}`
  return view.shareKey ? `${url}?shareKey=${encodeURIComponent(view.shareKey)}` : url
}

export function siteLocation(site: Pick<Site, 'id' | 'orgId'>, origin: string): string {
  return apiUrl(origin, `/orgs/${site.orgId}/sites/${site.id}`)
}

/** The customization as stored, or the defaults while nobody has customized the site. */
export function storedSiteCustomization(store: ServiceStore, site: Site): Settings {
  return store.repo(SitesRepository).customization(site.id)?.value ?? defaultSiteCustomization()
}

function siteFeatures(view: SiteView) {
  if (!hasAdvancedCustomization(view.site.type)) return []
  const customizations = premiumCustomizationsUsed(storedSiteCustomization(view.store, view.site))
  return [{ id: 'sites-advanced-customization', plan: view.site.type, frozen: false, customizations }]
}

/** The spec's `Site` as the caller sees it. */
export function siteJson(view: SiteView) {
  const { site, origin } = view
  const favicon = storedSiteCustomization(view.store, site).favicon as Settings | undefined
  const published = publishedSiteUrl(view)
  return {
    object: 'site' as const,
    id: site.id,
    type: site.type,
    appliedType: site.type,
    title: site.title,
    ...(favicon && Object.keys(favicon).length > 0 ? { icon: favicon } : {}),
    ...(site.data.hostname ? { hostname: site.data.hostname } : {}),
    ...(site.data.basename ? { basename: site.data.basename } : {}),
    ...(site.data.proxy ? { proxy: { origin: site.data.proxy, target: servingUrl(site, origin) } } : {}),
    visibility: site.visibility,
    defaultLevel: site.data.defaultLevel,
    permissions: sitePermissions(siteRole(view.store, site, view.userId)),
    published: site.published,
    siteSpaces: view.tree.siteSpacesById.size,
    createdAt: site.createdAt,
    adaptiveContent: site.data.adaptiveContent,
    agentsContext: site.data.agentsContext,
    ...(site.data.styleguide ? { styleguide: { kind: 'space' as const, space: site.data.styleguide } } : {}),
    features: siteFeatures(view),
    urls: {
      location: siteLocation(site, origin),
      app: appUrl(origin, `/orgs/${site.orgId}/sites/${site.id}`),
      preview: appUrl(origin, `/orgs/${site.orgId}/sites/${site.id}/preview`),
      ...(published ? { published } : {}),
    },
  }
}

export function shareLinkJson(view: Pick<SiteView, 'site' | 'origin'>, link: SiteShareLink) {
  const published = link.active ? publishedSiteUrl({ ...view, shareKey: link.key }) : undefined
  return {
    object: 'share-link' as const,
    id: link.id,
    createdAt: link.createdAt,
    ...(link.name !== null ? { name: link.name } : {}),
    active: link.active,
    urls: published ? { published } : {},
  }
}

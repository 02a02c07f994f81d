import { ok, type RequestContext, type Route } from '../http/context'
import { SiteStructureRepository } from '../store/site-structure'
import { SitesRepository, type Site } from '../store/sites'
import { loadSite, siteSpaceOf } from './site-access'
import { applyOverridePatch, maskSettings, mergeSettings, type Settings } from './serializers/site-customization'
import { storedSiteCustomization } from './serializers/site'
import { deleted } from './serializers/deleted'

/**
 * Settings as a reader gets them: premium settings the site's plan lacks are masked unless the
 * deprecated `unmasked` asks for what is stored.
 */
function shown(ctx: RequestContext, site: Site, settings: Settings, updatedAt: string | null | undefined) {
  const body = ctx.query.unmasked === true ? settings : maskSettings(settings, site.type)
  return ok({ ...body, ...(updatedAt ? { updatedAt } : {}) })
}

function siteCustomization(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'read')
  return shown(ctx, site, storedSiteCustomization(ctx.store, site), ctx.store.repo(SitesRepository).customization(site.id)?.updatedAt)
}

/** The PUT replaces the whole settings (the published schema makes every group required). */
function replaceSiteCustomization(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'admin')
  const settings = ctx.body as Settings
  const updatedAt = ctx.store.repo(SitesRepository).setCustomization(site.id, settings)
  return shown(ctx, site, settings, updatedAt)
}

/** A site space's settings: the site's with the site space's override laid over them. */
function siteSpaceCustomization(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'read')
  const siteSpace = siteSpaceOf(tree, ctx.params.siteSpaceId)
  const effective = mergeSettings(storedSiteCustomization(ctx.store, site), siteSpace.customization ?? {})
  const updatedAt = siteSpace.customizationUpdatedAt ?? ctx.store.repo(SitesRepository).customization(site.id)?.updatedAt
  return shown(ctx, site, effective, updatedAt)
}

function overrideSiteSpaceCustomization(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const siteSpace = siteSpaceOf(tree, ctx.params.siteSpaceId)
  const override = applyOverridePatch(siteSpace.customization ?? {}, ctx.body as Settings)
  // An override that resets everything is no override: the site space follows the site again.
  const stored = Object.keys(override).length > 0 ? override : null
  const updatedAt = ctx.store.repo(SiteStructureRepository).setSiteSpaceCustomization(siteSpace.id, stored)
  return shown(ctx, site, mergeSettings(storedSiteCustomization(ctx.store, site), override), updatedAt ?? ctx.store.repo(SitesRepository).customization(site.id)?.updatedAt)
}

function deleteSiteSpaceCustomization(ctx: RequestContext) {
  const { tree } = loadSite(ctx, 'admin')
  const siteSpace = siteSpaceOf(tree, ctx.params.siteSpaceId)
  if (!siteSpace.customization) return deleted(false)
  ctx.store.repo(SiteStructureRepository).setSiteSpaceCustomization(siteSpace.id, null)
  return deleted(true)
}

export const siteCustomizationRoutes: Route[] = [
  { operationId: 'getSiteCustomizationById', handler: siteCustomization },
  { operationId: 'updateSiteCustomizationById', handler: replaceSiteCustomization },
  { operationId: 'getSiteSpaceCustomizationById', handler: siteSpaceCustomization },
  { operationId: 'overrideSiteSpaceCustomizationById', handler: overrideSiteSpaceCustomization },
  { operationId: 'deleteSiteSpaceCustomizationById', handler: deleteSiteSpaceCustomization },
]

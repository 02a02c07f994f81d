import { atLeast } from '../access/roles'
import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { OrganizationsRepository } from '../store/organizations'
import { SiteStructureRepository } from '../store/site-structure'
import { SitesRepository, type SiteData, type SiteDefaultLevel, type SiteType, type SiteVisibility } from '../store/sites'
import { SpacesRepository } from '../store/spaces'
import { siteAdaptiveSchemaRoutes } from './site-adaptive-schema'
import { loadSite, memberOrganization, reload, requireOrgAdmin, siteSpaceOf, validShareKey } from './site-access'
import { siteShareLinkRoutes } from './site-share-links'
import { boundedTitle, insertSiteSpace, spaceForSite } from './site-structure-edits'
import { mergeSettings, maskSettings, type Settings } from './serializers/site-customization'
import { siteJson, siteLocation, siteRole, storedSiteCustomization, type SiteView } from './serializers/site'
import { structureJson } from './serializers/site-structure'
import { deleted } from './serializers/deleted'

// The document's patterns for fields the published spec's PATCH body does not declare.
const HOSTNAME = /^([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?[.]){2,}[a-z0-9][a-z0-9-]{0,61}[a-z0-9]$/
const AGENTS_CONTEXT = ['included', 'excluded']

interface CreateSiteBody {
  type?: SiteType
  title?: string
  visibility?: SiteVisibility
  spaces?: string[]
}

interface UpdateSiteBody {
  title?: string
  visibility?: SiteVisibility
  basename?: string
  adaptiveContent?: { enabled: boolean }
  defaultLevel?: SiteDefaultLevel
  defaultSiteSpace?: string
  defaultSiteSection?: string
  proxy?: string | null
  styleguide?: string | null
  hostname?: unknown
  agentsContext?: unknown
}

function listSites(ctx: RequestContext) {
  const org = memberOrganization(ctx)
  const repo = ctx.store.repo(SitesRepository)
  const q = ctx.query
  let sites = repo.listByOrg(org.id).filter((s) => atLeast(siteRole(ctx.store, s, ctx.user.id), 'read'))
  if (typeof q.space === 'string') {
    const withSpace = repo.siteIdsWithSpace(org.id, q.space)
    sites = sites.filter((s) => withSpace.has(s.id))
  }
  if (typeof q.title === 'string') {
    const needle = q.title.toLowerCase()
    sites = sites.filter((s) => s.title.toLowerCase().includes(needle))
  }
  if (typeof q.published === 'boolean') sites = sites.filter((s) => s.published === q.published)
  if (Array.isArray(q.type) && q.type.length > 0) sites = sites.filter((s) => (q.type as string[]).includes(s.type))
  return ok(paginate(sites, q, (s) => siteJson(reload(ctx, s))))
}

function createSite(ctx: RequestContext) {
  const org = requireOrgAdmin(ctx)
  const body = (ctx.body ?? {}) as CreateSiteBody
  const spaceIds = body.spaces ?? []
  const duplicate = spaceIds.find((id, i) => spaceIds.indexOf(id) !== i)
  if (duplicate) throw badRequest(`body/spaces lists space ${duplicate} twice`)
  const site = ctx.store.transaction(() => {
    const created = ctx.store.repo(SitesRepository).create({
      orgId: org.id,
      title: body.title ?? boundedTitle(org.title, 'Docs site'),
      type: body.type ?? 'basic',
      visibility: body.visibility ?? 'public',
    })
    for (const spaceId of spaceIds) {
      const space = spaceForSite(ctx, created, spaceId, {})
      insertSiteSpace(ctx, ctx.store.repo(SiteStructureRepository).tree(created), { space, sectionId: null })
    }
    return created
  })
  return { status: 201, body: siteJson(reload(ctx, site)), headers: { Location: siteLocation(site, ctx.origin) } }
}

/** Checks every field first, so a rejected PATCH writes nothing. */
function updateSite(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const body = ctx.body as UpdateSiteBody
  const sites = ctx.store.repo(SitesRepository)
  const data: Partial<SiteData> = {}
  const remove: Array<keyof SiteData> = []

  if (body.agentsContext !== undefined) {
    if (typeof body.agentsContext !== 'string' || !AGENTS_CONTEXT.includes(body.agentsContext)) {
      throw badRequest('body/agentsContext must be "included" or "excluded"')
    }
    data.agentsContext = body.agentsContext as SiteData['agentsContext']
  }
  if (body.hostname === null) remove.push('hostname')
  else if (body.hostname !== undefined) {
    if (typeof body.hostname !== 'string' || body.hostname.length > 512 || !HOSTNAME.test(body.hostname)) {
      throw badRequest('body/hostname must be a lowercase host name with at least three labels, like docs.example.com')
    }
    const owner = sites.hostnameOwner(body.hostname, site.id)
    if (owner) throw badRequest(`body/hostname ${body.hostname} is already used by another site`)
    data.hostname = body.hostname
  }
  if (body.basename !== undefined) {
    if (/[/?#\s]/.test(body.basename)) throw badRequest('body/basename must be one URL path segment (no "/", "?", "#" or spaces)')
    const owner = sites.basenameOwner(site.orgId, body.basename, site.id)
    if (owner) throw badRequest(`body/basename ${body.basename} is already used by site ${owner.id}`)
    data.basename = body.basename
  }
  if (body.proxy === null) remove.push('proxy')
  else if (body.proxy !== undefined) data.proxy = body.proxy
  if (body.styleguide === null) remove.push('styleguide')
  else if (body.styleguide !== undefined) {
    const space = ctx.store.repo(SpacesRepository).get(body.styleguide)
    if (!space || space.orgId !== site.orgId || space.deletedAt) throw notFound(`No space ${body.styleguide} in organization ${site.orgId}`)
    data.styleguide = space.id
  }
  if (body.adaptiveContent !== undefined) data.adaptiveContent = { enabled: body.adaptiveContent.enabled }
  if (body.defaultLevel !== undefined) data.defaultLevel = body.defaultLevel

  let defaultSectionId = tree.defaultSectionId()
  if (body.defaultSiteSection !== undefined) {
    if (!tree.sectionsById.has(body.defaultSiteSection)) throw notFound(`No site section ${body.defaultSiteSection} in site ${site.id}`)
    defaultSectionId = data.defaultSectionId = body.defaultSiteSection
  }
  let sectionDefault: { sectionId: string; siteSpaceId: string } | undefined
  if (body.defaultSiteSpace !== undefined) {
    const siteSpace = siteSpaceOf(tree, body.defaultSiteSpace)
    const expected = tree.hasSections ? (defaultSectionId ?? null) : null
    if (siteSpace.sectionId !== expected) {
      throw badRequest(`body/defaultSiteSpace ${siteSpace.id} is not in ${tree.hasSections ? "the site's default section" : 'the site root'}`)
    }
    if (siteSpace.sectionId) sectionDefault = { sectionId: siteSpace.sectionId, siteSpaceId: siteSpace.id }
    else data.defaultSiteSpaceId = siteSpace.id
  }

  ctx.store.transaction(() => {
    sites.update(site.id, { title: body.title, visibility: body.visibility, data }, remove)
    if (sectionDefault) {
      const structure = ctx.store.repo(SiteStructureRepository)
      const section = tree.sectionsById.get(sectionDefault.sectionId)
      if (section) structure.updateSection(section, { data: { defaultSiteSpaceId: sectionDefault.siteSpaceId } })
    }
  })
  return ok(siteJson(reload(ctx, site)))
}

/** The spec's two outcomes: 205 deleted, 204 did not exist (nor does a site the caller cannot see). */
function deleteSite(ctx: RequestContext) {
  const org = memberOrganization(ctx)
  const existing = ctx.store.repo(SitesRepository).getInOrg(org.id, ctx.params.siteId)
  if (!existing || !atLeast(siteRole(ctx.store, existing, ctx.user.id), 'read')) return deleted(false)
  const { site } = loadSite(ctx, 'admin')
  ctx.store.transaction(() => {
    ctx.store.repo(SitesRepository).delete(site.id)
    // The organization must not keep pointing visitors at a site that is gone.
    const orgs = ctx.store.repo(OrganizationsRepository)
    const org = orgs.get(site.orgId)
    if (org?.data.defaultContent?.site === site.id) orgs.update(org.id, { data: { defaultContent: null } })
  })
  return deleted(true)
}

function setPublished(published: boolean) {
  return (ctx: RequestContext) => {
    const { site } = loadSite(ctx, 'admin')
    const updated = ctx.store.repo(SitesRepository).update(site.id, { published })
    return ok(siteJson(reload(ctx, updated)))
  }
}

type StructureNode = { object: string; id: string; siteSpaces?: StructureNode[]; children?: StructureNode[] }

/** Ids of the site spaces a published structure shows, at any depth. */
function siteSpaceIdsIn(nodes: StructureNode[]): string[] {
  return nodes.flatMap((node) => {
    if (node.object === 'site-space') return [node.id]
    if (node.object === 'site-section') return siteSpaceIdsIn(node.siteSpaces ?? [])
    return siteSpaceIdsIn(node.children ?? [])
  })
}

/** Customizations of the published site: the site's, and each shown site space's with its override. */
function publishedCustomizations(view: SiteView, shown: string[]) {
  const stored = storedSiteCustomization(view.store, view.site)
  const siteSpaces: Record<string, Settings> = {}
  for (const id of shown) {
    const override = view.tree.siteSpacesById.get(id)?.customization ?? {}
    siteSpaces[id] = maskSettings(mergeSettings(stored, override), view.site.type)
  }
  return { site: maskSettings(stored, view.site.type), siteSpaces }
}

/**
 * The published site as a visitor sees it. Public and unlisted sites are open to anyone signed in;
 * a share-link site to holders of an active share key (a wrong key opens nothing, even for members);
 * members who can see the site read any of its published forms.
 */
function getPublishedContentSite(ctx: RequestContext) {
  const { organizationId, siteId } = ctx.params
  const site = ctx.store.repo(SitesRepository).getInOrg(organizationId, siteId)
  const missing = () => notFound(`No published site ${siteId} in organization ${organizationId}`)
  if (!site || !site.published) throw missing()
  const presented = ctx.query.shareKey
  const shareKey = validShareKey(ctx, site, presented)
  if (site.visibility === 'share-link' && presented !== undefined && !shareKey) throw missing()
  const member = atLeast(siteRole(ctx.store, site, ctx.user.id), 'read')
  const open = site.visibility === 'public' || site.visibility === 'unlisted' || (site.visibility === 'share-link' && shareKey !== undefined)
  if (!open && !member) throw missing()
  const view = reload(ctx, site, { shareKey, publishedOnly: true })
  const structure = structureJson(view)
  return ok({
    object: 'published-content-site',
    site: siteJson(view),
    structure,
    customizations: publishedCustomizations(view, siteSpaceIdsIn(structure.structure as StructureNode[])),
    scripts: [],
  })
}

function getSiteStructure(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'read')
  return ok(structureJson(reload(ctx, site, { shareKey: validShareKey(ctx, site, ctx.query.shareKey) })))
}

export const siteRoutes: Route[] = [
  { operationId: 'listSites', handler: listSites },
  { operationId: 'createSite', handler: createSite },
  { operationId: 'getSiteById', handler: (ctx) => ok(siteJson(loadSite(ctx, 'read').view)) },
  { operationId: 'updateSiteById', handler: updateSite },
  { operationId: 'deleteSiteById', handler: deleteSite },
  { operationId: 'publishSite', handler: setPublished(true) },
  { operationId: 'unpublishSite', handler: setPublished(false) },
  { operationId: 'getPublishedContentSite', handler: getPublishedContentSite },
  { operationId: 'getSiteStructure', handler: getSiteStructure },
  ...siteAdaptiveSchemaRoutes,
  ...siteShareLinkRoutes,
]

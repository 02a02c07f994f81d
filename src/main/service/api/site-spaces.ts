import { uniqueSlug } from '../../content/gitsync/slug'
import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest } from '../http/errors'
import { paginate } from '../http/pagination'
import { SiteStructureRepository, type SiteSpaceData, type SiteSpaceRecord } from '../store/site-structure'
import { InvalidPositionError, insertAt, insertionIndex } from '../store/site-tree'
import type { Site } from '../store/sites'
import { SpacesRepository } from '../store/spaces'
import { loadSite, reload, sectionOf, siteSpaceOf, validShareKey } from './site-access'
import { checkPathSegment } from './site-sections'
import { checkPageInSpace, insertSiteSpace, spaceForSite } from './site-structure-edits'
import { siteLocation } from './serializers/site'
import { siteSpaceJson } from './serializers/site-structure'
import { deleted } from './serializers/deleted'

interface AddSiteSpaceBody {
  spaceId: string | null
  template?: unknown
  sectionId?: string
  draft?: boolean
  pageId?: string | null
  title?: string
}

interface UpdateSiteSpaceBody {
  path?: string
  condition?: string | null
  pageId?: string | null
  spaceId?: string
  hidden?: boolean
  draft?: boolean
}

interface Pointer {
  type: 'site-space'
  siteSpace: string
}

function siteSpaceResponse(ctx: RequestContext, site: Site, id: string) {
  const view = reload(ctx, site)
  return siteSpaceJson(view, view.tree.siteSpacesById.get(id) as SiteSpaceRecord)
}

/** Site spaces of the whole site in site order; `default` keeps only (true) or drops (false) the defaults. */
function listSiteSpaces(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'read')
  const view = reload(ctx, site, { shareKey: validShareKey(ctx, site, ctx.query.shareKey) })
  let items = view.tree.orderedSiteSpaces()
  if (typeof ctx.query.default === 'boolean') {
    const wanted = ctx.query.default
    items = items.filter((s) => (view.tree.defaultSiteSpaceId(s.sectionId) === s.id) === wanted)
  }
  return ok(paginate(items, ctx.query, (s) => siteSpaceJson(view, s)))
}

/** Without `sectionId` the space joins the default section, or the site root when there are no sections. */
function addSiteSpace(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const body = ctx.body as AddSiteSpaceBody
  const sectionId = body.sectionId !== undefined ? sectionOf(tree, body.sectionId).id : tree.hasSections ? tree.defaultSectionId() : null
  if (sectionId === undefined) throw badRequest('body/sectionId: this site is organized in section groups but has no section yet; add a section first')
  if (body.pageId && body.spaceId === null) throw badRequest('body/pageId needs an existing space: a new space has no pages yet')
  const id = ctx.store.transaction(() => {
    const space = spaceForSite(ctx, site, body.spaceId, { title: body.title, template: body.template })
    return insertSiteSpace(ctx, tree, { space, sectionId, draft: body.draft, pageId: body.pageId, title: body.title })
  })
  return { status: 201, body: siteSpaceResponse(ctx, site, id), headers: { Location: `${siteLocation(site, ctx.origin)}/site-spaces/${id}` } }
}

/** Checks every field first, so a rejected PATCH writes nothing. */
function updateSiteSpace(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const siteSpace = siteSpaceOf(tree, ctx.params.siteSpaceId)
  const body = ctx.body as UpdateSiteSpaceBody
  const siblings = tree.siteSpacesIn(siteSpace.sectionId).filter((s) => s.id !== siteSpace.id)
  const data: Partial<SiteSpaceData> = {}
  const remove: Array<keyof SiteSpaceData> = []
  if (body.condition === null) remove.push('condition')
  else if (body.condition !== undefined) data.condition = body.condition
  if (body.hidden !== undefined) data.hidden = body.hidden
  if (body.draft !== undefined) data.draft = body.draft
  if (body.path !== undefined) {
    checkPathSegment(body.path, 'body/path')
    const clash = siblings.find((s) => s.path.toLowerCase() === body.path?.toLowerCase())
    if (clash) throw badRequest(`body/path ${body.path} is already the path of site space ${clash.id} in this section`)
  }
  let space = ctx.store.repo(SpacesRepository).get(siteSpace.spaceId)
  if (body.spaceId !== undefined && body.spaceId !== siteSpace.spaceId) {
    space = spaceForSite(ctx, site, body.spaceId, {})
    if (siblings.some((s) => s.spaceId === body.spaceId)) throw badRequest(`space ${body.spaceId} is already in this section`)
    // The custom home page belonged to the old space.
    if (body.pageId === undefined) remove.push('pageId')
  }
  if (body.pageId === null) remove.push('pageId')
  else if (body.pageId !== undefined && space) {
    checkPageInSpace(ctx, space, body.pageId)
    data.pageId = body.pageId
  }
  ctx.store.repo(SiteStructureRepository).updateSiteSpace(siteSpace, { spaceId: body.spaceId, path: body.path, data }, remove)
  return ok(siteSpaceResponse(ctx, site, siteSpace.id))
}

/** 205 deleted, or 204: the site space did not exist. */
function deleteSiteSpace(ctx: RequestContext) {
  const { tree } = loadSite(ctx, 'admin')
  const siteSpace = tree.siteSpacesById.get(ctx.params.siteSpaceId)
  if (!siteSpace) return deleted(false)
  ctx.store.transaction(() => {
    const structure = ctx.store.repo(SiteStructureRepository)
    structure.deleteSiteSpace(siteSpace.id)
    structure.placeSiteSpaces(
      siteSpace.sectionId,
      tree
        .siteSpacesIn(siteSpace.sectionId)
        .filter((s) => s.id !== siteSpace.id)
        .map((s) => s.id),
    )
  })
  return deleted(true)
}

/**
 * Moves a site space next to another one, into that one's section; without a position, to the end of
 * its own section.
 */
function moveSiteSpace(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const siteSpace = siteSpaceOf(tree, ctx.params.siteSpaceId)
  const position = (ctx.body as { position?: { before?: Pointer; after?: Pointer } } | undefined)?.position
  const before = position?.before?.siteSpace
  const after = position?.after?.siteSpace
  for (const ref of [before, after]) {
    if (ref !== undefined && (ref === siteSpace.id || !tree.siteSpacesById.has(ref))) throw badRequest(`Invalid position: ${ref} is not another site space of this site`)
  }
  const reference = before ?? after
  const target = reference ? (tree.siteSpacesById.get(reference) as SiteSpaceRecord).sectionId : siteSpace.sectionId
  const siblings = tree.siteSpacesIn(target).filter((s) => s.id !== siteSpace.id)
  if (target !== siteSpace.sectionId && siblings.some((s) => s.spaceId === siteSpace.spaceId)) {
    throw badRequest(`Invalid position: space ${siteSpace.spaceId} is already in section ${target}`)
  }
  let index: number
  try {
    index = insertionIndex(
      siblings.map((s) => s.id),
      { before, after },
    )
  } catch (error) {
    if (error instanceof InvalidPositionError) throw badRequest(`Invalid position: ${error.message}`)
    throw error
  }
  ctx.store.transaction(() => {
    const structure = ctx.store.repo(SiteStructureRepository)
    if (target !== siteSpace.sectionId) {
      structure.placeSiteSpaces(
        siteSpace.sectionId,
        tree
          .siteSpacesIn(siteSpace.sectionId)
          .filter((s) => s.id !== siteSpace.id)
          .map((s) => s.id),
      )
      const path = uniqueSlug(
        siteSpace.path,
        siblings.map((s) => s.path),
      )
      if (path !== siteSpace.path) structure.updateSiteSpace(siteSpace, { path })
    }
    structure.placeSiteSpaces(
      target,
      insertAt(
        siblings.map((s) => s.id),
        index,
        siteSpace.id,
      ),
    )
  })
  return ok(siteSpaceResponse(ctx, site, siteSpace.id))
}

export const siteSpaceRoutes: Route[] = [
  { operationId: 'listSiteSpaces', handler: listSiteSpaces },
  { operationId: 'addSpaceToSite', handler: addSiteSpace },
  { operationId: 'updateSiteSpaceById', handler: updateSiteSpace },
  { operationId: 'deleteSiteSpaceById', handler: deleteSiteSpace },
  { operationId: 'moveSiteSpace', handler: moveSiteSpace },
]

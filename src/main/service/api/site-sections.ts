import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest } from '../http/errors'
import { paginate } from '../http/pagination'
import { newId } from '../store/ids'
import { SiteStructureRepository, type LocalizedStrings, type SectionData, type SiteSectionRecord } from '../store/site-structure'
import { groupOf, loadSite, reload, sectionOf, siteSpaceOf, validShareKey } from './site-access'
import { siteSectionGroupRoutes } from './site-section-groups'
import {
  appendToContainer,
  boundedTitle,
  freeSectionPath,
  freshTree,
  insertSiteSpace,
  moveStructureItem,
  spaceForSite,
  wrapRootSiteSpaces,
} from './site-structure-edits'
import { siteLocation } from './serializers/site'
import { sectionJson } from './serializers/site-structure'
import { deleted } from './serializers/deleted'

interface AddSectionBody {
  spaceId: string | null
  template?: unknown
  title?: string | null
  icon?: string | null
  draft?: boolean
  pageId?: string
  siteSectionGroupId?: string
}

interface UpdateSectionBody {
  title?: string
  localizedTitle?: LocalizedStrings
  path?: string
  defaultSiteSpace?: string
  condition?: string | null
  icon?: string | null
  draft?: boolean
  description?: string | null
  localizedDescription?: LocalizedStrings
  siteSectionGroupId?: string | null
}

interface Pointer {
  type: 'site-section'
  siteSection: string
}

/** Paths are one URL segment below the site. */
export function checkPathSegment(path: string, where: string) {
  if (/[/?#\s]/.test(path)) throw badRequest(`${where} must be one URL path segment (no "/", "?", "#" or spaces)`)
}

function listSections(ctx: RequestContext) {
  const { site } = loadSite(ctx, 'read')
  const view = reload(ctx, site, { shareKey: validShareKey(ctx, site, ctx.query.shareKey) })
  return ok(paginate(view.tree.orderedSections(), ctx.query, (s) => sectionJson(view, s)))
}

function addSection(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const body = ctx.body as AddSectionBody
  const groupId = body.siteSectionGroupId === undefined ? null : groupOf(tree, body.siteSectionGroupId).id
  if (body.pageId !== undefined && body.spaceId === null) throw badRequest('body/pageId needs an existing space: a new space has no pages yet')
  const id = ctx.store.transaction(() => {
    const space = spaceForSite(ctx, site, body.spaceId, { title: body.title, template: body.template })
    wrapRootSiteSpaces(ctx, tree)
    const before = freshTree(ctx, site)
    const title = body.title ?? boundedTitle(space.title, 'Untitled section')
    const siblings = before.items(groupId)
    const section: SiteSectionRecord = {
      id: newId(),
      siteId: site.id,
      groupId,
      position: siblings.length,
      title,
      path: freeSectionPath(before, title),
      data: { ...(body.icon ? { icon: body.icon } : {}), ...(body.draft ? { draft: true } : {}) },
    }
    const structure = ctx.store.repo(SiteStructureRepository)
    structure.insertSection(section)
    structure.placeItems(groupId, [...siblings, { kind: 'section', id: section.id }])
    insertSiteSpace(ctx, freshTree(ctx, site), { space, sectionId: section.id, pageId: body.pageId })
    return section.id
  })
  const view = reload(ctx, site)
  return {
    status: 201,
    body: sectionJson(view, view.tree.sectionsById.get(id) as SiteSectionRecord),
    headers: { Location: `${siteLocation(site, ctx.origin)}/sections/${id}` },
  }
}

/** Checks every field first, so a rejected PATCH writes nothing. */
function updateSection(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const section = sectionOf(tree, ctx.params.siteSectionId)
  const body = ctx.body as UpdateSectionBody
  const data: Partial<SectionData> = {}
  const remove: Array<keyof SectionData> = []
  const nullable = <K extends 'condition' | 'icon' | 'description'>(key: K) => {
    const value = body[key]
    if (value === null) remove.push(key)
    else if (value !== undefined) data[key] = value
  }
  nullable('condition')
  nullable('icon')
  nullable('description')
  if (body.draft !== undefined) data.draft = body.draft
  if (body.localizedTitle !== undefined) data.localizedTitle = body.localizedTitle
  if (body.localizedDescription !== undefined) data.localizedDescription = body.localizedDescription
  if (body.path !== undefined) {
    checkPathSegment(body.path, 'body/path')
    const clash = [...tree.sectionsById.values()].find((s) => s.id !== section.id && s.path.toLowerCase() === body.path?.toLowerCase())
    if (clash) throw badRequest(`body/path ${body.path} is already the path of section ${clash.id}`)
  }
  if (body.defaultSiteSpace !== undefined) {
    const siteSpace = siteSpaceOf(tree, body.defaultSiteSpace)
    if (siteSpace.sectionId !== section.id) throw badRequest(`body/defaultSiteSpace ${siteSpace.id} is not in section ${section.id}`)
    data.defaultSiteSpaceId = siteSpace.id
  }
  let target: string | null | undefined
  if (body.siteSectionGroupId !== undefined) target = body.siteSectionGroupId === null ? null : groupOf(tree, body.siteSectionGroupId).id

  ctx.store.transaction(() => {
    ctx.store.repo(SiteStructureRepository).updateSection(section, { title: body.title, path: body.path, data }, remove)
    if (target !== undefined && target !== section.groupId) {
      const item = { kind: 'section' as const, id: section.id }
      const current = freshTree(ctx, site)
      ctx.store.repo(SiteStructureRepository).placeItems(
        section.groupId,
        current.items(section.groupId).filter((i) => i.id !== section.id),
      )
      appendToContainer(ctx, freshTree(ctx, site), target, item)
    }
  })
  const view = reload(ctx, site)
  return ok(sectionJson(view, view.tree.sectionsById.get(section.id) as SiteSectionRecord))
}

/** 205 deleted (with its site spaces), or 204: the section did not exist. */
function deleteSection(ctx: RequestContext) {
  const { tree } = loadSite(ctx, 'admin')
  const section = tree.sectionsById.get(ctx.params.siteSectionId)
  if (!section) return deleted(false)
  ctx.store.transaction(() => {
    const structure = ctx.store.repo(SiteStructureRepository)
    structure.deleteSection(section.id)
    structure.placeItems(
      section.groupId,
      tree.items(section.groupId).filter((i) => i.id !== section.id),
    )
  })
  return deleted(true)
}

function moveSection(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const section = sectionOf(tree, ctx.params.siteSectionId)
  const position = (ctx.body as { position?: { before?: Pointer; after?: Pointer } } | undefined)?.position
  const ref = (p: Pointer | undefined) => (p ? { kind: 'section' as const, id: p.siteSection } : undefined)
  moveStructureItem(ctx, tree, { kind: 'section', id: section.id }, { before: ref(position?.before), after: ref(position?.after) })
  const view = reload(ctx, site)
  return ok(sectionJson(view, view.tree.sectionsById.get(section.id) as SiteSectionRecord))
}

export const siteSectionRoutes: Route[] = [
  { operationId: 'listSiteSections', handler: listSections },
  { operationId: 'addSectionToSite', handler: addSection },
  { operationId: 'updateSiteSectionById', handler: updateSection },
  { operationId: 'deleteSiteSectionById', handler: deleteSection },
  { operationId: 'moveSiteSection', handler: moveSection },
  ...siteSectionGroupRoutes,
]

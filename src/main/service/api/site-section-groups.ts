import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { newId } from '../store/ids'
import { SiteStructureRepository, type LocalizedStrings, type SectionGroupData, type SectionGroupRecord, type StructureItem } from '../store/site-structure'
import type { SiteTree } from '../store/site-tree'
import type { Site } from '../store/sites'
import { groupOf, loadSite, reload, sectionOf } from './site-access'
import { appendToContainer, detachFromContainer, freshTree, moveStructureItem, wrapRootSiteSpaces } from './site-structure-edits'
import { siteLocation } from './serializers/site'
import { sectionGroupJson } from './serializers/site-structure'
import { deleted } from './serializers/deleted'

interface CreateGroupBody {
  title: string
  icon?: string | null
  sections?: string[]
  parent?: string
  draft?: boolean
}

interface UpdateGroupBody {
  title?: string
  localizedTitle?: LocalizedStrings
  icon?: string | null
  draft?: boolean
  parentSectionGroupId?: string | null
}

interface GroupPointer {
  type: 'site-section' | 'site-section-group'
  id: string
}

function groupResponse(ctx: RequestContext, site: Site, groupId: string) {
  const view = reload(ctx, site)
  return sectionGroupJson(view, view.tree.groupsById.get(groupId) as SectionGroupRecord)
}

function groupLocation(ctx: RequestContext, site: Site, groupId: string): string {
  return `${siteLocation(site, ctx.origin)}/section-groups/${groupId}`
}

/** Moves an item to the end of another container; the tree is re-read between the two writes. */
function reparent(ctx: RequestContext, site: Site, tree: SiteTree, item: StructureItem, container: string | null) {
  detachFromContainer(ctx, tree, item)
  appendToContainer(ctx, freshTree(ctx, site), container, item)
}

function createGroup(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const body = ctx.body as CreateGroupBody
  const parent = body.parent === undefined ? null : groupOf(tree, body.parent).id
  const sectionIds = body.sections ?? []
  for (const id of sectionIds) sectionOf(tree, id)
  const duplicate = sectionIds.find((id, i) => sectionIds.indexOf(id) !== i)
  if (duplicate) throw badRequest(`body/sections lists section ${duplicate} twice`)
  const id = newId()
  ctx.store.transaction(() => {
    wrapRootSiteSpaces(ctx, tree)
    const siblings = freshTree(ctx, site).items(parent)
    ctx.store.repo(SiteStructureRepository).insertGroup({
      id,
      siteId: site.id,
      parentId: parent,
      position: siblings.length,
      title: body.title,
      data: { ...(body.icon ? { icon: body.icon } : {}), ...(body.draft ? { draft: true } : {}) },
    })
    ctx.store.repo(SiteStructureRepository).placeItems(parent, [...siblings, { kind: 'group', id }])
    for (const sectionId of sectionIds) reparent(ctx, site, freshTree(ctx, site), { kind: 'section', id: sectionId }, id)
  })
  return { status: 201, body: groupResponse(ctx, site, id), headers: { Location: groupLocation(ctx, site, id) } }
}

function updateGroup(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const group = groupOf(tree, ctx.params.siteSectionGroupId)
  const body = ctx.body as UpdateGroupBody
  const data: Partial<SectionGroupData> = {}
  const remove: Array<keyof SectionGroupData> = []
  if (body.icon === null) remove.push('icon')
  else if (body.icon !== undefined) data.icon = body.icon
  if (body.draft !== undefined) data.draft = body.draft
  if (body.localizedTitle !== undefined) data.localizedTitle = body.localizedTitle
  let parent: string | null | undefined
  if (body.parentSectionGroupId !== undefined) {
    parent = body.parentSectionGroupId === null ? null : groupOf(tree, body.parentSectionGroupId).id
    if (parent !== null && tree.isWithin(parent, group.id)) throw badRequest('body/parentSectionGroupId: a section group cannot be nested inside itself')
  }
  ctx.store.transaction(() => {
    ctx.store.repo(SiteStructureRepository).updateGroup(group, { title: body.title, data }, remove)
    if (parent !== undefined && parent !== group.parentId) reparent(ctx, site, tree, { kind: 'group', id: group.id }, parent)
  })
  return ok(groupResponse(ctx, site, group.id))
}

/** Deleting a group keeps its content: its children take its place in its container. 204: it did not exist. */
function deleteGroup(ctx: RequestContext) {
  const { tree } = loadSite(ctx, 'admin')
  const group = tree.groupsById.get(ctx.params.siteSectionGroupId)
  if (!group) return deleted(false)
  const replaced = tree.items(group.parentId).flatMap((item) => (item.id === group.id ? tree.items(group.id) : [item]))
  ctx.store.transaction(() => {
    const structure = ctx.store.repo(SiteStructureRepository)
    structure.placeItems(group.parentId, replaced)
    structure.deleteGroup(group.id)
  })
  return deleted(true)
}

function moveGroup(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const group = groupOf(tree, ctx.params.siteSectionGroupId)
  const position = (ctx.body as { position?: { before?: GroupPointer; after?: GroupPointer } } | undefined)?.position
  const ref = (p: GroupPointer | undefined): StructureItem | undefined => (p ? { kind: p.type === 'site-section' ? 'section' : 'group', id: p.id } : undefined)
  moveStructureItem(ctx, tree, { kind: 'group', id: group.id }, { before: ref(position?.before), after: ref(position?.after) })
  return ok(groupResponse(ctx, site, group.id))
}

/** Adds a section to the end of a group (a section already there stays where it is). */
function addSectionToGroup(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const group = groupOf(tree, ctx.params.siteSectionGroupId)
  const section = sectionOf(tree, (ctx.body as { sectionId: string }).sectionId)
  if (section.groupId !== group.id) ctx.store.transaction(() => reparent(ctx, site, tree, { kind: 'section', id: section.id }, group.id))
  return { status: 201, body: groupResponse(ctx, site, group.id), headers: { Location: groupLocation(ctx, site, group.id) } }
}

/** Takes a section out of a group: it lands right after the group, in the group's container. */
function removeSectionFromGroup(ctx: RequestContext) {
  const { site, tree } = loadSite(ctx, 'admin')
  const group = groupOf(tree, ctx.params.siteSectionGroupId)
  const section = tree.sectionsById.get(ctx.params.siteSectionId)
  if (!section || section.groupId !== group.id) throw notFound(`No site section ${ctx.params.siteSectionId} in section group ${group.id}`)
  const item: StructureItem = { kind: 'section', id: section.id }
  ctx.store.transaction(() => {
    detachFromContainer(ctx, tree, item)
    const after = freshTree(ctx, site)
    const siblings = after.items(group.parentId)
    const index = siblings.findIndex((i) => i.id === group.id) + 1
    ctx.store.repo(SiteStructureRepository).placeItems(group.parentId, [...siblings.slice(0, index), item, ...siblings.slice(index)])
  })
  return ok(groupResponse(ctx, site, group.id))
}

export const siteSectionGroupRoutes: Route[] = [
  {
    operationId: 'listSiteSectionGroups',
    handler: (ctx) => {
      const { view } = loadSite(ctx, 'read')
      return ok(paginate(view.tree.orderedGroups(), ctx.query, (g) => sectionGroupJson(view, g)))
    },
  },
  { operationId: 'addSectionGroupToSite', handler: createGroup },
  { operationId: 'updateSiteSectionGroupById', handler: updateGroup },
  { operationId: 'deleteSiteSectionGroupById', handler: deleteGroup },
  { operationId: 'moveSiteSectionGroup', handler: moveGroup },
  { operationId: 'addSiteSectionToSectionGroup', handler: addSectionToGroup },
  { operationId: 'removeSiteSectionFromSectionGroup', handler: removeSectionFromGroup },
]

import { slugify, uniqueSlug } from '../../content/gitsync/slug'
import type { TreePage } from '../../content/types'
import type { RequestContext } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { RevisionsRepository, createSpaceRevision } from '../store/revisions'
import { newId } from '../store/ids'
import { SiteStructureRepository, type SiteSectionRecord, type StructureItem } from '../store/site-structure'
import { InvalidPositionError, insertAt, insertionIndex, type SiteTree } from '../store/site-tree'
import { SitesRepository, type Site } from '../store/sites'
import { SpacesRepository, type Space } from '../store/spaces'

/** Site and section titles follow the spec (`SiteTitle`, `SiteSectionTitle`): 2 to 128 characters. */
export function boundedTitle(candidate: string, fallback: string): string {
  const clipped = Array.from(candidate.trim()).slice(0, 128).join('')
  return clipped.length >= 2 ? clipped : fallback
}

/**
 * The space a site operation names: an existing live space of the site's organization, or (null) a
 * new empty space. Templates are applied by the content API, not here.
 */
export function spaceForSite(ctx: RequestContext, site: Site, spaceId: string | null | undefined, options: { title?: string | null; template?: unknown }): Space {
  if (options.template !== undefined) {
    throw badRequest('body/template is not applied by this operation: add the space, then apply the template with POST /spaces/{spaceId}/content/template')
  }
  const spaces = ctx.store.repo(SpacesRepository)
  if (spaceId === null || spaceId === undefined) {
    const space = spaces.create({ orgId: site.orgId, title: options.title ?? 'Untitled' })
    createSpaceRevision(ctx.store, space.id, { pages: [], files: [] }, undefined, [], { createdBy: ctx.user.id, message: 'Created for a site' })
    return spaces.get(space.id) as Space
  }
  const space = spaces.get(spaceId)
  if (!space || space.orgId !== site.orgId || space.deletedAt !== null) throw notFound(`No space ${spaceId} in organization ${site.orgId}`)
  return space
}

function findPage(pages: TreePage[], id: string): boolean {
  return pages.some((p) => p.id === id || findPage(p.pages, id))
}

/** A custom home page must be a page of the space's current content. */
export function checkPageInSpace(ctx: RequestContext, space: Space, pageId: string) {
  const revision = space.revisionId ? ctx.store.repo(RevisionsRepository).get(space.revisionId) : undefined
  if (!revision || !findPage(revision.tree.pages, pageId)) throw badRequest(`body/pageId ${pageId} is not a page of space ${space.id}`)
}

/** Adds the space to a section (or the site root) at the end; a space appears at most once per section. */
export function insertSiteSpace(
  ctx: RequestContext,
  tree: SiteTree,
  input: { space: Space; sectionId: string | null; draft?: boolean; pageId?: string | null; title?: string },
): string {
  const siblings = tree.siteSpacesIn(input.sectionId)
  if (siblings.some((s) => s.spaceId === input.space.id)) {
    throw badRequest(`space ${input.space.id} is already in ${input.sectionId ? `section ${input.sectionId}` : 'this site'}`)
  }
  if (input.pageId) checkPageInSpace(ctx, input.space, input.pageId)
  const id = newId()
  ctx.store.repo(SiteStructureRepository).insertSiteSpace({
    id,
    siteId: tree.site.id,
    sectionId: input.sectionId,
    spaceId: input.space.id,
    position: siblings.length === 0 ? 0 : siblings[siblings.length - 1].position + 1,
    path: uniqueSlug(slugify(input.space.title), siblings.map((s) => s.path)),
    data: { ...(input.draft ? { draft: true } : {}), ...(input.pageId ? { pageId: input.pageId } : {}) },
    customization: input.title !== undefined ? { title: input.title } : null,
  })
  return id
}

/** A path free among the site's sections (sections share the URL space below the site). */
export function freeSectionPath(tree: SiteTree, title: string): string {
  return uniqueSlug(slugify(title), [...tree.sectionsById.values()].map((s) => s.path))
}

/**
 * A site's first section or group: site spaces already at the root move into a section of their own
 * (named after the default one's space), which becomes the default, so nothing published disappears.
 */
export function wrapRootSiteSpaces(ctx: RequestContext, tree: SiteTree): void {
  const roots = tree.siteSpacesIn(null)
  if (tree.hasSections || roots.length === 0) return
  const defaultId = tree.defaultSiteSpaceId(null) as string
  const space = ctx.store.repo(SpacesRepository).get(roots.find((s) => s.id === defaultId)?.spaceId ?? roots[0].spaceId)
  const title = boundedTitle(space?.title ?? '', tree.site.title)
  const section: SiteSectionRecord = {
    id: newId(),
    siteId: tree.site.id,
    groupId: null,
    position: 0,
    title,
    path: freeSectionPath(tree, title),
    data: { defaultSiteSpaceId: defaultId },
  }
  const repo = ctx.store.repo(SiteStructureRepository)
  repo.insertSection(section)
  repo.placeSiteSpaces(
    section.id,
    roots.map((s) => s.id),
  )
  ctx.store.repo(SitesRepository).update(tree.site.id, {}, ['defaultSiteSpaceId'])
}

/** Re-reads the structure after writes inside one operation. */
export function freshTree(ctx: RequestContext, site: Site): SiteTree {
  return ctx.store.repo(SiteStructureRepository).tree(ctx.store.repo(SitesRepository).getInOrg(site.orgId, site.id) ?? site)
}

/** Appends a section or group at the end of a container (`null`: the site root). */
export function appendToContainer(ctx: RequestContext, tree: SiteTree, container: string | null, item: StructureItem) {
  const items = tree.items(container).filter((i) => i.id !== item.id)
  ctx.store.repo(SiteStructureRepository).placeItems(container, [...items, item])
}

/** Takes an item out of its container, closing the gap. */
export function detachFromContainer(ctx: RequestContext, tree: SiteTree, item: StructureItem) {
  const container = tree.containerOf(item)
  ctx.store.repo(SiteStructureRepository).placeItems(
    container,
    tree.items(container).filter((i) => i.id !== item.id),
  )
}

/** A position relative to sections or groups, by kind and id. */
export interface StructurePosition {
  before?: StructureItem
  after?: StructureItem
}

function exists(tree: SiteTree, item: StructureItem): boolean {
  return item.kind === 'section' ? tree.sectionsById.has(item.id) : tree.groupsById.has(item.id)
}

/**
 * Moves a section or group next to a reference item of the structure (into the reference's
 * container), or to the end of the site root when no position is given.
 */
export function moveStructureItem(ctx: RequestContext, tree: SiteTree, item: StructureItem, position: StructurePosition) {
  const reference = position.before ?? position.after
  for (const ref of [position.before, position.after]) {
    if (ref && (!exists(tree, ref) || ref.id === item.id)) throw badRequest(`Invalid position: ${ref.id} is not another ${ref.kind === 'section' ? 'section' : 'section group'} of this site`)
  }
  const target = reference ? tree.containerOf(reference) : null
  if (item.kind === 'group' && target !== null && tree.isWithin(target, item.id)) {
    throw badRequest('Invalid position: a section group cannot move inside itself')
  }
  const siblings = tree.items(target).filter((i) => i.id !== item.id)
  let index: number
  try {
    index = insertionIndex(
      siblings.map((i) => i.id),
      { before: position.before?.id, after: position.after?.id },
    )
  } catch (error) {
    if (error instanceof InvalidPositionError) throw badRequest(`Invalid position: ${error.message}`)
    throw error
  }
  ctx.store.transaction(() => {
    detachFromContainer(ctx, tree, item)
    ctx.store.repo(SiteStructureRepository).placeItems(target, insertAt(siblings, index, item))
  })
}

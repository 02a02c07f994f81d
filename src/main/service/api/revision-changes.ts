import type { TreeFile, TreePage, TreeReusableContent } from '../../content'
import { ok, type RequestContext, type Route } from '../http/context'
import { ChangeRequestsRepository } from '../store/change-requests'
import { RevisionsRepository, type Revision } from '../store/revisions'
import { requireRevision, requireSpace } from './content-access'
import { changeRequestJson } from './serializers/change-request'
import { RevisionView } from './serializers/revision'

/**
 * `getRevisionSemanticChanges` (issue 29): what a revision changed against its first parent (main's
 * previous head; a merge's second parent is the change request's head), the spec's semantic changes.
 * Pages are told apart by id: created, deleted, moved (another parent or another place among its
 * siblings), edited (title, slug, body, metadata, link target); files, reusable contents and tags
 * created, edited, deleted. Each page and file changes once at most, in tree order; `limit` of them are given, `more` counts the rest.
 * Both profiles answer the same: nothing here carries page content.
 */

type Change = Record<string, unknown> & { type: string }

interface PlacedPage {
  page: TreePage
  parentId?: string
  index: number
}

function pagesById(pages: readonly TreePage[]): Map<string, PlacedPage> {
  const out = new Map<string, PlacedPage>()
  const visit = (list: readonly TreePage[], parentId: string | undefined) =>
    list.forEach((page, index) => {
      out.set(page.id, { page, parentId, index })
      visit(page.pages, page.id)
    })
  visit(pages, undefined)
  return out
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null)
const stringChange = (before: string | undefined, after: string | undefined) => ({ ...(before !== undefined ? { before } : {}), ...(after !== undefined ? { after } : {}) })

/** The spec's per-type attributes that changed (`minProperties: 1`): undefined when nothing did. */
function pageAttributes(before: TreePage, after: TreePage): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  if (before.title !== after.title) out.title = stringChange(before.title, after.title)
  if (after.type === 'link') {
    if (before.href !== after.href) out.target = {}
  } else if (before.slug !== after.slug) out.slug = stringChange(before.slug, after.slug)
  if ((before.metadata.emoji ?? '') !== (after.metadata.emoji ?? '')) out.emoji = stringChange(before.metadata.emoji, after.metadata.emoji)
  if (after.type === 'document') {
    // The body's blob ids stand for the documents: the spec leaves what `document` holds open.
    if (before.bodyOid !== after.bodyOid || !same(before.shape, after.shape)) out.document = stringChange(before.bodyOid, after.bodyOid)
    const { emoji: _b, ...metaBefore } = before.metadata
    const { emoji: _a, ...metaAfter } = after.metadata
    if (!same(metaBefore, metaAfter) && out.document === undefined) out.description = stringChange(before.metadata.description, after.metadata.description)
  }
  if (before.linkTitle !== after.linkTitle && Object.keys(out).length === 0) out.title = stringChange(before.title, after.title)
  return Object.keys(out).length > 0 ? out : undefined
}

function fileAttributes(before: TreeFile, after: TreeFile, url: (f: TreeFile) => string): Record<string, unknown> | undefined {
  const out: Record<string, unknown> = {}
  if (before.name !== after.name) out.name = stringChange(before.name, after.name)
  if (before.contentType !== after.contentType) out.contentType = stringChange(before.contentType, after.contentType)
  if (before.size !== after.size) out.size = { before: before.size, after: after.size }
  if (before.blobOid !== after.blobOid) out.downloadURL = stringChange(url(before), url(after))
  return Object.keys(out).length > 0 ? out : undefined
}

/**
 * Pages that kept their parent but not their order among the siblings that kept it too: a page
 * inserted or deleted beside them does not move them.
 */
function reorderedPages(before: Map<string, PlacedPage>, after: Map<string, PlacedPage>): Set<string> {
  const siblings = (map: Map<string, PlacedPage>, other: Map<string, PlacedPage>) => {
    const out = new Map<string, Array<{ id: string; index: number }>>()
    for (const [id, placed] of map) {
      if (other.get(id)?.parentId !== placed.parentId || !other.has(id)) continue
      const key = placed.parentId ?? ''
      out.set(key, [...(out.get(key) ?? []), { id, index: placed.index }])
    }
    for (const list of out.values()) list.sort((a, b) => a.index - b.index)
    return out
  }
  const was = siblings(before, after)
  const now = siblings(after, before)
  const out = new Set<string>()
  for (const [parent, list] of now) {
    const old = was.get(parent) ?? []
    list.forEach((entry, i) => {
      if (old[i]?.id !== entry.id) out.add(entry.id)
    })
  }
  return out
}

/** Every change of `revision` against `parent` (undefined: a first revision, all of whose content is new). */
export function semanticChanges(revision: Revision, parent: Revision | undefined, views: { before?: RevisionView; after: RevisionView }): Change[] {
  const after = pagesById(revision.tree.pages)
  const before = parent ? pagesById(parent.tree.pages) : new Map<string, PlacedPage>()
  const pageRef = (view: RevisionView, page: TreePage) => {
    const path = page.type === 'link' ? undefined : view.apiPaths.get(page.id)
    return { id: page.id, type: page.type, title: page.title || 'Untitled', ...(path !== undefined ? { path } : {}) }
  }
  const beforeView = views.before ?? views.after
  const reordered = reorderedPages(before, after)
  const changes: Change[] = []
  for (const [id, now] of after) {
    const was = before.get(id)
    const page = pageRef(views.after, now.page)
    if (!was) {
      changes.push({ type: 'page_created', page })
      continue
    }
    const attributes = was.page.type === now.page.type ? pageAttributes(was.page, now.page) : { title: stringChange(was.page.title, now.page.title) }
    if (was.parentId !== now.parentId || reordered.has(id)) {
      const parentRef = (view: RevisionView, map: Map<string, PlacedPage>, parentId: string | undefined) => {
        const p = parentId === undefined ? undefined : map.get(parentId)
        return p ? pageRef(view, p.page) : undefined
      }
      const b = parentRef(beforeView, before, was.parentId)
      const a = parentRef(views.after, after, now.parentId)
      changes.push({ type: 'page_moved', page, parent: { ...(b ? { before: b } : {}), ...(a ? { after: a } : {}) } })
      if (attributes) changes.push({ type: 'page_edited', page, attributes })
    } else if (attributes) changes.push({ type: 'page_edited', page, attributes })
  }
  for (const [id, was] of before) if (!after.has(id)) changes.push({ type: 'page_deleted', page: pageRef(beforeView, was.page) })

  const fileRef = (view: RevisionView, file: TreeFile) => {
    const json = view.fileJson(file)
    return { id: json.id, name: json.name, contentType: json.contentType, downloadURL: json.downloadURL }
  }
  const oldFiles = new Map((parent?.tree.files ?? []).map((f) => [f.id, f]))
  const newIds = new Set(revision.tree.files.map((f) => f.id))
  for (const file of revision.tree.files) {
    const was = oldFiles.get(file.id)
    if (!was) changes.push({ type: 'file_created', file: fileRef(views.after, file) })
    else {
      const attributes = fileAttributes(was, file, (f) => String(views.after.fileJson(f).downloadURL))
      if (attributes) changes.push({ type: 'file_edited', file: fileRef(views.after, file), attributes })
    }
  }
  for (const file of parent?.tree.files ?? []) if (!newIds.has(file.id)) changes.push({ type: 'file_deleted', file: fileRef(beforeView, file) })

  // Reusable contents (`.gitbook/includes/`) and tags (`.gitbook/tags.yaml`): a client's files too.
  const contentRef = (c: TreeReusableContent) => ({ id: c.id, title: c.title })
  const oldContents = new Map((parent?.tree.reusableContents ?? []).map((c) => [c.id, c]))
  const newContents = new Set((revision.tree.reusableContents ?? []).map((c) => c.id))
  for (const content of revision.tree.reusableContents ?? []) {
    const was = oldContents.get(content.id)
    if (!was) changes.push({ type: 'reusable_content_created', reusableContent: contentRef(content) })
    else if (was.blobOid !== content.blobOid || was.title !== content.title || was.slug !== content.slug) {
      const attributes = { ...(was.title !== content.title || was.slug !== content.slug ? { title: stringChange(was.title, content.title) } : {}), ...(was.blobOid !== content.blobOid ? { document: stringChange(was.blobOid, content.blobOid) } : {}) }
      changes.push({ type: 'reusable_content_edited', reusableContent: contentRef(content), attributes })
    }
  }
  for (const content of parent?.tree.reusableContents ?? []) if (!newContents.has(content.id)) changes.push({ type: 'reusable_content_deleted', reusableContent: contentRef(content) })
  const oldTags = new Map((parent?.tree.tags ?? []).map((tag) => [tag.slug, tag]))
  const newTags = new Set((revision.tree.tags ?? []).map((tag) => tag.slug))
  for (const tag of revision.tree.tags ?? []) {
    const was = oldTags.get(tag.slug)
    if (!was) changes.push({ type: 'tag_created', tag: { slug: tag.slug, label: tag.label } })
    // Any of its fields (color, emoji, icon: tags.yaml holds them all) is an edit; the spec names the label's.
    else if (!same(was, tag)) changes.push({ type: 'tag_edited', tag: { slug: tag.slug, label: tag.label }, attributes: { label: stringChange(was.label, tag.label) } })
  }
  for (const tag of parent?.tree.tags ?? []) if (!newTags.has(tag.slug)) changes.push({ type: 'tag_deleted', tag: { slug: tag.slug, label: tag.label } })
  return changes
}

/** Spec default: 10. */
const DEFAULT_LIMIT = 10

function getRevisionSemanticChanges(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  const revision = requireRevision(ctx, space)
  const parentId = revision.parents[0]
  const parent = parentId === undefined ? undefined : ctx.store.repo(RevisionsRepository).getInSpace(space.id, parentId)
  const view = (r: Revision) => new RevisionView(ctx.store, r, { origin: ctx.origin, metadata: true, fileOrigin: ctx.content.fileOrigin, treeMarkdown: false })
  const changes = semanticChanges(revision, parent, { before: parent && view(parent), after: view(revision) })
  const asked = typeof ctx.query.limit === 'number' && Number.isFinite(ctx.query.limit) ? Math.floor(ctx.query.limit) : DEFAULT_LIMIT
  const limit = Math.max(0, asked)
  const merged = revision.type === 'merge' ? ctx.store.repo(ChangeRequestsRepository).byMergedRevision(revision.id) : undefined
  return ok({
    ...(merged ? { mergedFrom: changeRequestJson(ctx.store, merged, ctx.origin) } : {}),
    changes: changes.slice(0, limit),
    ...(changes.length > limit ? { more: changes.length - limit } : {}),
  })
}

export const revisionChangesRoutes: Route[] = [{ operationId: 'getRevisionSemanticChanges', handler: getRevisionSemanticChanges }]

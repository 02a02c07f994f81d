import { diffTrees, findPage, mergeTrees, type RevisionTree, type TreeFile, type TreePage } from '../../content'
import { ok, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict } from '../http/errors'
import { ChangeRequestsRepository } from '../store/change-requests'
import { createSpaceRevision, RevisionsRepository } from '../store/revisions'
import { changeRequestRevision, currentRevision, requireChangeRequest, requireEditable, requireSpace } from './content-access'
import { mergeRuleFailures } from './merge-rules'
import { RevisionView } from './serializers/revision'

/**
 * Merge: the change request's content goes into the space as a new space revision whose parents are
 * [space head, change request head]. The merge is three-way from the space revision the change request
 * is based on; a page both changed merges field by field and its body block by block. When both changed
 * the same block (or field) differently, nothing is merged and the answer is `conflicts`: someone settles
 * those blocks in the change request (an update from main refuses until then, naming the pages) and merges
 * again, so a merge never silently overwrites work done on the main content.
 */
function mergeChangeRequest(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'merge')
  const cr = requireChangeRequest(ctx, space)
  requireEditable(cr, 'merging')
  const failures = mergeRuleFailures(ctx.store, space, cr, ctx.user.id)
  if (failures.length > 0) throw badRequest(`Change request #${cr.number} cannot be merged: ${failures.join('; ')}`)

  const head = changeRequestRevision(ctx, cr)
  const main = space.revisionId ? currentRevision(ctx, space) : undefined
  let tree: RevisionTree = head.tree
  let blobs: Map<string, Uint8Array> | undefined
  if (main && main.id !== cr.revisionMergedAncestor) {
    const base = ctx.store.repo(RevisionsRepository).get(cr.revisionMergedAncestor)
    const merged = mergeTrees(base?.tree ?? { pages: [], files: [] }, main.tree, head.tree, { readBody: storedBody(ctx) })
    if (merged.conflicts.length > 0) return ok({ revision: main.id, result: 'conflicts' })
    tree = merged.tree
    blobs = merged.blobs
  }
  const revision = ctx.store.transaction(() => {
    const created = createSpaceRevision(ctx.store, space.id, tree, blobs, main ? [main.id, head.id] : [head.id], {
      type: 'merge',
      createdBy: ctx.user.id,
      message: `Merge change request #${cr.number}${cr.subject ? `: ${cr.subject}` : ''}`,
    })
    ctx.store.repo(ChangeRequestsRepository).markMerged(cr.id, created.id, ctx.user.id)
    return created
  })
  return ok({ revision: revision.id, result: 'merge' })
}

/**
 * Update: brings the space's current content into the change request as a new change request revision
 * (parents [change request head, space head]); the merge base moves to the space head. Where both sides
 * changed the same block or field of a page (or the same file), nothing is updated: the answer is a 409
 * naming those pages, and the change request stays as it was. Keeping either side there would drop the
 * other's text without anyone choosing (keeping the change request's removed what main had merged, once
 * the change request was merged); GitBook too makes a person pick "Keep primary" or "Keep changed" for
 * each conflict before the update is done. Quire's client turns the 409 into its conflicted copies.
 */
function updateChangeRequest(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'edit')
  const cr = requireChangeRequest(ctx, space)
  requireEditable(cr, 'updating it')
  const main = currentRevision(ctx, space)
  const head = changeRequestRevision(ctx, cr)
  if (main.id === cr.revisionMergedAncestor) return ok({ revision: head.id, result: 'update' })

  const base = ctx.store.repo(RevisionsRepository).get(cr.revisionMergedAncestor)
  const merged = mergeTrees(base?.tree ?? { pages: [], files: [] }, main.tree, head.tree, { readBody: storedBody(ctx) })
  if (merged.conflicts.length > 0) {
    const names = merged.conflicts.map((id) => conflictName(head.tree, main.tree, id))
    throw conflict(
      `Change request #${cr.number} cannot be updated from main: main and the change request changed the same places of ${names.join(', ')}. ` +
        'Nothing was changed; settle these in the change request (keep main\'s version or the change request\'s), then update again.',
    )
  }
  const revision = ctx.store.transaction(() => {
    const created = ctx.store.repo(RevisionsRepository).create({
      spaceId: space.id,
      parents: [head.id, main.id],
      tree: merged.tree,
      blobs: merged.blobs,
      type: 'update',
      createdBy: ctx.user.id,
      message: `Update change request #${cr.number} from the main content`,
    })
    ctx.store.repo(ChangeRequestsRepository).setRevision(cr.id, created.id, main.id)
    return created
  })
  return ok({ revision: revision.id, result: 'update' })
}

/** A conflicting page as a person finds it ("Title" (slug)), or a file by its name. */
function conflictName(head: RevisionTree, main: RevisionTree, id: string): string {
  const page = findPage(head, id) ?? findPage(main, id)
  if (page) return `page "${page.title || 'Untitled'}" (${page.slug || id})`
  const file = head.files.find((f) => f.id === id) ?? main.files.find((f) => f.id === id)
  return file ? `file ${file.name}` : id
}

/** Page bodies from the store, so that pages both sides edited merge block by block. */
function storedBody(ctx: RequestContext): (oid: string) => string | undefined {
  const revisions = ctx.store.repo(RevisionsRepository)
  return (oid) => revisions.blob(oid)?.toString('utf8')
}

const MAX_CHANGES_LIMIT = 1000

/**
 * getChangeRequestChanges: what the change request changes relative to its base, as semantic changes.
 * Edited pages are left out: the spec's `page_edited.attributes` is a `oneOf` of three schemas that
 * every non-empty object satisfies at once, so no `page_edited` entry can validate. Created, moved and
 * deleted pages and file changes are listed.
 */
function getChangeRequestChanges(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  const cr = requireChangeRequest(ctx, space)
  const limit = ctx.query.limit === undefined ? 10 : Number(ctx.query.limit)
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGES_LIMIT) throw badRequest(`query/limit must be an integer from 1 to ${MAX_CHANGES_LIMIT}`)

  const options = { origin: ctx.origin, metadata: true }
  const baseRevision = ctx.store.repo(RevisionsRepository).get(cr.revisionMergedAncestor)
  if (!baseRevision) throw new Error(`change request ${cr.id} is based on a missing revision ${cr.revisionMergedAncestor}`)
  const before = new RevisionView(ctx.store, baseRevision, options)
  const after = new RevisionView(ctx.store, changeRequestRevision(ctx, cr), options)
  const diff = diffTrees(before.tree, after.tree)

  const pageRef = (view: RevisionView, page: TreePage) => ({ id: page.id, type: page.type, title: page.title || 'Untitled', path: view.apiPaths.get(page.id) ?? page.slug })
  const fileRef = (view: RevisionView, file: TreeFile) => {
    const json = view.fileJson(file)
    return { id: file.id, name: file.name, contentType: file.contentType, downloadURL: json.downloadURL }
  }
  const parentOf = (view: RevisionView, id: string) => {
    const path = view.apiPaths.get(id) ?? ''
    const parentPath = path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : undefined
    const parent = parentPath === undefined ? undefined : view.pageByPath(parentPath)
    return parent && pageRef(view, parent)
  }

  const changes: unknown[] = []
  for (const id of diff.added) {
    const page = after.findPage(id)
    if (page) changes.push({ type: 'page_created', page: pageRef(after, page) })
  }
  for (const { id, changes: kinds } of diff.changed) {
    const page = after.findPage(id)
    if (!page || !(kinds.includes('parent') || kinds.includes('position'))) continue
    const from = parentOf(before, id)
    const to = parentOf(after, id)
    changes.push({ type: 'page_moved', page: pageRef(after, page), parent: { ...(from ? { before: from } : {}), ...(to ? { after: to } : {}) } })
  }
  for (const id of diff.removed) {
    const page = before.findPage(id)
    if (page) changes.push({ type: 'page_deleted', page: pageRef(before, page) })
  }
  for (const id of diff.files.added) {
    const file = after.findFile(id)
    if (file) changes.push({ type: 'file_created', file: fileRef(after, file) })
  }
  for (const id of diff.files.changed) {
    const old = before.findFile(id)
    const file = after.findFile(id)
    if (old && file) changes.push({ type: 'file_edited', file: fileRef(after, file), attributes: fileAttributes(before, old, after, file) })
  }
  for (const id of diff.files.removed) {
    const file = before.findFile(id)
    if (file) changes.push({ type: 'file_deleted', file: fileRef(before, file) })
  }
  const more = changes.length - limit
  return ok({ changes: changes.slice(0, limit), ...(more > 0 ? { more } : {}) })
}

const change = <T>(before: T, after: T) => ({ before, after })

function fileAttributes(beforeView: RevisionView, old: TreeFile, afterView: RevisionView, file: TreeFile): Record<string, unknown> {
  const attributes: Record<string, unknown> = {}
  if (old.name !== file.name) attributes.name = change(old.name, file.name)
  if (old.contentType !== file.contentType) attributes.contentType = change(old.contentType, file.contentType)
  if (old.size !== file.size) attributes.size = change(old.size, file.size)
  if (old.blobOid !== file.blobOid || Object.keys(attributes).length === 0) {
    attributes.downloadURL = change(beforeView.fileJson(old).downloadURL, afterView.fileJson(file).downloadURL)
  }
  if (old.dimensions && file.dimensions && JSON.stringify(old.dimensions) !== JSON.stringify(file.dimensions)) {
    attributes.dimensions = change(old.dimensions, file.dimensions)
  }
  return attributes
}

export const changeRequestMergeRoutes: Route[] = [
  { operationId: 'mergeChangeRequest', handler: mergeChangeRequest },
  { operationId: 'updateChangeRequest', handler: updateChangeRequest },
  { operationId: 'getChangeRequestChanges', handler: getChangeRequestChanges },
]

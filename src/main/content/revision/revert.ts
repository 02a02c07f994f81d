/**
 * revert_page: put a page back the way it is in the base revision (`env.base`,
 * which the caller resolves from the change's `revision` or the change
 * request's base).
 *
 * - Added since the base: removed, with its subpages.
 * - Deleted since the base: restored under its base parent (or at the root if
 *   that parent is gone too) at its base index, with those of its base
 *   subpages that are not elsewhere in the tree now.
 * - Present in both: title, metadata, body (with its file's shape) and type reset to the base; its
 *   position and subpages stay (a revert undoes edits, not later moves). The
 *   base slug comes back unless a sibling now uses it.
 *
 * Restored bodies keep their base blob ids: those blobs are already stored.
 */
import { ContentError } from '../errors'
import { uniqueSlug } from '../gitsync/slug'
import type { RevertPageChange, TreePage } from '../types'
import { childrenOf, type Batch } from './batch'
import { flattenPages, indexPages, locatePage, locateWritablePage } from './tree'

export function revertPage(batch: Batch, change: RevertPageChange, index: number): void {
  if (change.block !== undefined) throw new ContentError('revert_page with block is not supported: revert the whole page', index)
  const base = batch.env.base
  if (!base) throw new ContentError('revert_page needs the base revision, which the caller did not provide', index)
  if (typeof change.page !== 'string' || change.page === '') throw new ContentError('page must be a page id', index)

  const id = batch.pageRefs.get(change.page) ?? change.page
  const current = locateWritablePage(batch.tree, id)
  const original = locatePage(base, id)
  if (!current && !original) throw new ContentError(`page: no page '${change.page}' in the revision or its base`, index)

  if (current && !original) {
    current.siblings.splice(current.index, 1)
    for (const page of flattenPages([current.page])) {
      batch.touched.add(page.id)
      batch.bodies.delete(page.id)
    }
  } else if (!current && original) {
    const restored = withoutPagesIn(structuredClone(original.page), batch)
    const parent = original.parent && locateWritablePage(batch.tree, original.parent.id)?.page
    const siblings = childrenOf(batch, parent)
    restored.slug = uniqueSlug(restored.slug, siblings.map((page) => page.slug))
    siblings.splice(Math.min(original.index, siblings.length), 0, restored)
    for (const page of flattenPages([restored])) batch.touched.add(page.id)
  } else if (current && original) {
    const page = current.page
    const before = original.page
    page.type = before.type
    page.title = before.title
    page.metadata = structuredClone(before.metadata)
    if (before.bodyOid === undefined) delete page.bodyOid
    else page.bodyOid = before.bodyOid
    if (before.href === undefined) delete page.href
    else page.href = before.href
    if (before.shape === undefined) delete page.shape
    else page.shape = { ...before.shape }
    if (!current.siblings.some((sibling) => sibling !== page && sibling.slug.toLowerCase() === before.slug.toLowerCase())) {
      page.slug = before.slug
    }
    page.updatedAt = batch.env.now
    batch.bodies.delete(page.id)
    batch.touched.add(page.id)
  }
}

/** `page` minus the subpages that exist in the batch's tree already (ids stay unique). */
function withoutPagesIn(page: TreePage, batch: Batch): TreePage {
  const present = indexPages(batch.tree)
  const prune = (pages: TreePage[]): TreePage[] =>
    pages.filter((child) => !present.has(child.id)).map((child) => ({ ...child, pages: prune(child.pages) }))
  return { ...page, pages: prune(page.pages) }
}

/**
 * insert_page, update_page and delete_page on a batch's working tree.
 *
 * Precedence follows the published spec: values read from the markdown
 * (front matter, leading `# H1`) win over the change's own `title` and
 * metadata fields, "matching Git Sync". Front matter, when present, is the
 * page's complete metadata (a page file is the whole truth about its page);
 * markdown without front matter leaves the metadata alone.
 */
import { ContentError } from '../errors'
import { slugify, uniqueSlug } from '../gitsync/slug'
import { normalizeMetadata } from '../markdown/front-matter'
import { keptShape } from '../markdown/page-file'
import type { DeletePageChange, InsertPageChange, PageFileShape, TreePage, UpdatePageChange } from '../types'
import { checkAt, childrenOf, freshId, requirePage, type Batch } from './batch'
import { applyMetadataFields, DEFAULT_TITLE, explicitSlug, readDocument, titleField } from './page-fields'
import { containsPage, findPage, flattenPages, type PageLocation } from './tree'

export function insertPage(batch: Batch, change: InsertPageChange, index: number): void {
  const parent = change.into === undefined ? undefined : requirePage(batch, change.into, 'into', index).page
  if (parent?.type === 'link') throw new ContentError(`into: page '${parent.id}' is a link and cannot hold pages`, index)
  const siblings = childrenOf(batch, parent)
  const at = checkAt(change.at, siblings.length, index) ?? siblings.length
  if (change.document === undefined) throw new ContentError('insert_page needs a document (use {} for an empty page)', index)

  const document = readDocument(change.document, index)
  const explicitTitle = titleField(change.title, index)
  const title = document.title ?? explicitTitle ?? DEFAULT_TITLE
  const slug =
    change.slug === undefined
      ? uniqueSlug(slugify(title), siblings.map((page) => page.slug))
      : explicitSlug(change.slug, siblings, undefined, index)
  const page: TreePage = {
    id: freshId(batch, (id) => findPage(batch.tree, id) !== undefined, index),
    type: 'document',
    title,
    slug,
    metadata: normalizeMetadata({ ...applyMetadataFields({}, change, index), ...document.metadata }),
    createdAt: batch.env.now,
    updatedAt: batch.env.now,
    pages: [],
  }
  setShape(page, keptShape(document, page))
  siblings.splice(at, 0, page)
  batch.bodies.set(page.id, document.body)
  if (change.ref !== undefined) batch.pageRefs.set(change.ref, page.id)
  batch.touched.add(page.id)
}

export function updatePage(batch: Batch, change: UpdatePageChange, index: number): void {
  const location = requirePage(batch, change.page, 'page', index)
  const { page } = location
  const document = change.document === undefined ? undefined : readDocument(change.document, index)
  const explicitTitle = titleField(change.title, index)
  if (document && page.type !== 'document') {
    throw new ContentError(`page '${page.id}' is a ${page.type} and has no document`, index)
  }

  // Place the page first so that the slug is checked against its final siblings.
  const siblings = movePage(batch, location, change, index)
  page.title = document?.title ?? explicitTitle ?? page.title
  const metadata = document?.hasFrontMatter ? {} : page.metadata
  page.metadata = normalizeMetadata({ ...applyMetadataFields(metadata, change, index), ...document?.metadata })
  if (change.slug !== undefined) page.slug = explicitSlug(change.slug, siblings, page, index)
  if (document) {
    setShape(page, keptShape(document, page))
    batch.bodies.set(page.id, document.body)
  }
  page.updatedAt = batch.env.now
  batch.touched.add(page.id)
}

/** A page file written otherwise than Git Sync writes it keeps its form (see PageFileShape). */
function setShape(page: TreePage, shape: PageFileShape | undefined): void {
  if (shape) page.shape = shape
  else delete page.shape
}

/**
 * Applies `into` / `at` and returns the page's siblings afterwards.
 * `into` absent: same parent, `at` reorders. `into` given (null = root): the
 * page moves there, at `at` or at the end; it keeps its slug unless a new
 * sibling has it, in which case it gets a `-2`-style suffix.
 */
function movePage(batch: Batch, location: PageLocation, change: UpdatePageChange, index: number): TreePage[] {
  const { page, siblings } = location
  if (change.into === undefined) {
    const at = checkAt(change.at, siblings.length - 1, index)
    if (at !== undefined) {
      siblings.splice(location.index, 1)
      siblings.splice(at, 0, page)
    }
    return siblings
  }

  const parent = change.into === null ? undefined : requirePage(batch, change.into, 'into', index).page
  if (parent && containsPage(page, parent.id)) {
    throw new ContentError(`into: cannot move page '${page.id}' into itself or one of its subpages`, index)
  }
  if (parent?.type === 'link') throw new ContentError(`into: page '${parent.id}' is a link and cannot hold pages`, index)
  if (parent === location.parent && change.at === undefined) return siblings

  siblings.splice(location.index, 1)
  const target = childrenOf(batch, parent)
  const at = checkAt(change.at, target.length, index) ?? target.length
  if (target !== siblings) page.slug = uniqueSlug(page.slug, target.map((sibling) => sibling.slug))
  target.splice(at, 0, page)
  return target
}

/** Removes a page with all its subpages. */
export function deletePage(batch: Batch, change: DeletePageChange, index: number): void {
  const location = requirePage(batch, change.page, 'page', index)
  location.siblings.splice(location.index, 1)
  for (const page of flattenPages([location.page])) {
    batch.touched.add(page.id)
    batch.bodies.delete(page.id)
  }
}

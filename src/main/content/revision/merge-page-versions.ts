/**
 * Three-way merge of one page both sides edited: field by field (title, slug,
 * type, link target, each metadata key) and the body block by block
 * (mergePageBodies). A field or block both changed differently is a conflict;
 * the branch's version of it is kept.
 */
import { gitBlobOid, toBytes } from '../markdown/blob-oid'
import { normalizeMetadata } from '../markdown/front-matter'
import { normalizeBody } from '../markdown/page-file'
import { mergePageBodies } from '../merge/merge-page'
import type { PageMetadata, TreePage } from '../types'
import { sameValue } from './compare'

/** Reads a stored page body by its blob id (undefined when it is not available). */
export type BodyReader = (oid: string) => string | undefined

export interface PageVersionsMerge {
  page: TreePage
  conflict: boolean
  /** The merged body, when it is new text (to be stored under its id). */
  blob?: { oid: string; bytes: Uint8Array }
}

export function mergePageVersions(original: TreePage, main: TreePage, branch: TreePage, readBody: BodyReader | undefined): PageVersionsMerge {
  const conflicts = new Set<string>()
  const pick =
    (field: string): Pick =>
    (base, ours, theirs) => {
      if (sameValue(ours, base) || sameValue(ours, theirs)) return theirs
      if (sameValue(theirs, base)) return ours
      conflicts.add(field)
      return theirs
    }
  const page: TreePage = {
    ...branch,
    type: pick('type')(original.type, main.type, branch.type),
    title: pick('title')(original.title, main.title, branch.title),
    slug: pick('slug')(original.slug, main.slug, branch.slug),
    metadata: mergeMetadata(original.metadata, main.metadata, branch.metadata, pick),
    updatedAt: main.updatedAt > branch.updatedAt ? main.updatedAt : branch.updatedAt,
  }
  setOptional(page, 'href', pick('href')(original.href, main.href, branch.href))
  setOptional(page, 'bodyOid', pick('body')(original.bodyOid, main.bodyOid, branch.bodyOid))
  // How the file is written around its body is no reason for a conflict: the side that changed it wins.
  setOptional(page, 'shape', pickQuietly(original.shape, main.shape, branch.shape))
  setOptional(page, 'linkTitle', pickQuietly(original.linkTitle, main.linkTitle, branch.linkTitle))

  let blob: PageVersionsMerge['blob']
  const bodies = conflicts.has('body') && readBody ? [original.bodyOid, main.bodyOid, branch.bodyOid].map((oid) => (oid === undefined ? undefined : readBody(oid))) : []
  const [base, ours, theirs] = bodies
  if (base !== undefined && ours !== undefined && theirs !== undefined) {
    // Both changed the body: block by block, a conflict only where blocks meet (the branch's version kept there).
    const merged = mergePageBodies(base, ours, theirs, { keep: 'branch' })
    if (merged.conflicts.length === 0) conflicts.delete('body')
    const bytes = toBytes(normalizeBody(merged.text))
    page.bodyOid = gitBlobOid(bytes)
    if (page.bodyOid !== branch.bodyOid && page.bodyOid !== main.bodyOid) blob = { oid: page.bodyOid, bytes }
  }
  return { page, conflict: conflicts.size > 0, ...(blob ? { blob } : {}) }
}

type Pick = <T>(base: T, ours: T, theirs: T) => T

/** Like a field pick, but both sides' changes never conflict: the branch's is kept. */
const pickQuietly: Pick = (base, ours, theirs) => (sameValue(theirs, base) ? ours : theirs)

/** Metadata key by key (layout, meta links and variables are one value each). */
function mergeMetadata(original: PageMetadata, main: PageMetadata, branch: PageMetadata, pick: (field: string) => Pick): PageMetadata {
  const [base, ours, theirs] = [normalizeMetadata(original), normalizeMetadata(main), normalizeMetadata(branch)]
  const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs), ...Object.keys(base)])] as Array<keyof PageMetadata>
  const merged: Record<string, unknown> = {}
  for (const key of keys) {
    const value = pick(`metadata.${key}`)(base[key], ours[key], theirs[key])
    if (value !== undefined) merged[key] = structuredClone(value)
  }
  return merged as PageMetadata
}

function setOptional<K extends 'href' | 'bodyOid' | 'shape' | 'linkTitle'>(page: TreePage, key: K, value: TreePage[K]): void {
  if (value === undefined) delete page[key]
  else page[key] = value
}

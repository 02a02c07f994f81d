/**
 * Reading the page-level inputs of insert_page / update_page: the document,
 * the metadata fields, the title and an explicit slug. Each check names the
 * offending field; the caller's change index is added by ContentError.
 */
import { ContentError } from '../errors'
import { MAX_SLUG_LENGTH } from '../gitsync/slug'
import { documentToMarkdown } from '../markdown/document/from-document'
import { normalizeMetadata } from '../markdown/front-matter'
import { normalizeBody, splitPageMarkdown, type PageFileParts } from '../markdown/page-file'
import type { JSONDocument, PageMetadata, PageUpdateFields, TreePage } from '../types'

export const DEFAULT_TITLE = 'Untitled'

/**
 * The page content of a change's `document`: markdown is read as a Git Sync
 * page file (front matter + `# H1` + body); a JSON document is converted to
 * markdown first; `{}` is an empty page.
 */
export function readDocument(input: unknown, index: number): PageFileParts {
  if (typeof input !== 'object' || input === null) throw new ContentError('document must be an object ({markdown} or {document})', index)
  if ('document' in input) return { metadata: {}, body: jsonDocumentBody(input.document, index), hasFrontMatter: false }
  if (!('markdown' in input)) {
    if (Object.keys(input).length === 0) return { metadata: {}, body: '', hasFrontMatter: false }
    throw new ContentError(`document must have a markdown or document field, got ${Object.keys(input).join(', ')}`, index)
  }
  if (typeof input.markdown !== 'string') throw new ContentError('document.markdown must be a string', index)
  try {
    return splitPageMarkdown(input.markdown)
  } catch (error) {
    if (error instanceof ContentError) throw new ContentError(`document.markdown: ${error.message}`, index)
    throw error
  }
}

/** A JSON document is a body only: unlike markdown, its first heading stays a heading rather than becoming the title. */
function jsonDocumentBody(document: unknown, index: number): string {
  try {
    return normalizeBody(documentToMarkdown(document as JSONDocument))
  } catch {
    throw new ContentError('document.document is not a valid JSON document', index)
  }
}

/** The change's `title`, validated; undefined when absent. */
export function titleField(title: unknown, index: number): string | undefined {
  if (title === undefined) return undefined
  if (typeof title !== 'string' || title.trim() === '') throw new ContentError('title must be a non-empty string', index)
  return title.trim()
}

const TEXT_FIELDS = ['description', 'icon', 'emoji', 'condition'] as const
const FLAG_FIELDS = ['hidden', 'noIndex', 'noRobotsIndex'] as const

/**
 * Applies the change's metadata fields to `metadata`. An empty string removes
 * a text field (the API's "set to an empty string to remove it"); `false`
 * flags are dropped as they are the default, so they leave no front matter.
 */
export function applyMetadataFields(metadata: PageMetadata, fields: PageUpdateFields, index: number): PageMetadata {
  const out: PageMetadata = { ...metadata }
  for (const key of TEXT_FIELDS) {
    const value: unknown = fields[key]
    if (value === undefined) continue
    if (typeof value !== 'string') throw new ContentError(`${key} must be a string`, index)
    if (value === '') delete out[key]
    else out[key] = value
  }
  for (const key of FLAG_FIELDS) {
    const value: unknown = fields[key]
    if (value === undefined) continue
    if (typeof value !== 'boolean') throw new ContentError(`${key} must be a boolean`, index)
    if (value) out[key] = true
    else delete out[key]
  }
  return normalizeMetadata(out)
}

/**
 * An explicit slug: one path segment of at most 100 characters, not used by
 * another page among `siblings` (the API rejects collisions rather than
 * renaming, since the caller asked for this exact slug).
 */
export function explicitSlug(slug: unknown, siblings: TreePage[], self: TreePage | undefined, index: number): string {
  if (typeof slug !== 'string') throw new ContentError('slug must be a string', index)
  if (Array.from(slug).length > MAX_SLUG_LENGTH) throw new ContentError(`slug is longer than ${MAX_SLUG_LENGTH} characters`, index)
  if (/[\s/\\?#]/.test(slug) || slug === '.' || slug === '..') throw new ContentError(`slug '${slug}' is not a single path segment`, index)
  const clash = siblings.find((page) => page !== self && page.slug.toLowerCase() === slug.toLowerCase())
  if (clash) throw new ContentError(`slug '${slug}' is already used by page '${clash.id}' in the same parent`, index)
  return slug
}

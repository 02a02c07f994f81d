/**
 * Shared data model of the content module.
 *
 * A revision is modelled the way Git Sync sees it: a tree of pages whose bodies
 * are markdown text stored content-addressed (by git blob id), plus a flat list
 * of uploaded files. The local service persists these trees; the sync engine
 * compares them. Both import only this file for the shapes, so the names here
 * are a contract: fields may be added, never renamed.
 */
import type { JSONDocument } from '@gitbook/api'

export type { JSONDocument }

/**
 * Page layout options, in the API's shape (`RevisionPageLayoutOptions`).
 * Every field is optional here because Git Sync front matter only carries the
 * keys a writer set; the API fills the rest with defaults when it renders a page.
 */
export interface PageLayout {
  width?: 'default' | 'wide'
  cover?: boolean
  coverSize?: 'hero' | 'full' | 'background'
  coverMask?: 'none' | 'radial'
  title?: boolean
  description?: boolean
  tableOfContents?: boolean
  outline?: boolean
  pagination?: boolean
  metadata?: boolean
  tags?: boolean
  actions?: boolean
  anchors?: boolean
}

/** A meta link target: another page of the space or an external URL (spec `RevisionPageMetaLinkTarget`). */
export type PageMetaLinkTarget = { kind: 'page'; page: string; space?: string } | { kind: 'url'; url: string }

export interface PageMetaLinks {
  canonical?: PageMetaLinkTarget
  alternates?: PageMetaLinkTarget[]
}

/**
 * Everything about a page except its title, slug and body.
 * These are exactly the values Git Sync front matter can carry, so a page file
 * round-trips through `parsePageMarkdown` / `serializePageMarkdown` losslessly.
 */
export interface PageMetadata {
  description?: string
  /** Icon name (e.g. `gear`), at most 50 characters. */
  icon?: string
  /** Unicode emoji. Git Sync has no documented key for it; we write `emoji:`. */
  emoji?: string
  /** Cover image as written in front matter: a relative asset path or an absolute URL. */
  cover?: string
  /** Vertical offset of the cover image (API `cover.yPos`). */
  coverY?: number
  /** Height of the cover image in pixels (API `cover.height`, 10..700). */
  coverHeight?: number
  hidden?: boolean
  noIndex?: boolean
  noRobotsIndex?: boolean
  layout?: PageLayout
  metaLinks?: PageMetaLinks
  /** Adaptive-content condition (API `condition`); written as `if:` in front matter. */
  condition?: string
  /** Page variables (API `variables`); written as `vars:` in front matter. */
  variables?: Record<string, string>
}

export type PageType = 'document' | 'group' | 'link'

/**
 * How a page file read from markdown was written around its title, metadata and body, kept when
 * it is not the form Git Sync writes, so the page reads back byte for byte: `head` is everything
 * before the body as written (byte order mark, front matter with keys Quire does not model and its
 * own folding, blank lines, the H1 line with its escapes and trailing space, or no H1 at all),
 * `tail` the whitespace after the body (blank lines, CRLF). The title and metadata stay the truth:
 * where they no longer read the same as the head, rendering rewrites only the lines that differ.
 */
export interface PageFileShape {
  head: string
  tail: string
}

export interface TreePage {
  id: string
  type: PageType
  title: string
  slug: string
  metadata: PageMetadata
  /** Git blob id of the page body (markdown after the title). Documents only. */
  bodyOid?: string
  /** The page file's own form around the body, when it differs from Git Sync's. Documents only. */
  shape?: PageFileShape
  /** Target of a link page. Link pages only. */
  href?: string
  /** Title in the table of contents when it is not `title` (spec `linkTitle`; SUMMARY.md's `[Title](path "Link title")`). */
  linkTitle?: string
  createdAt: string
  updatedAt: string
  pages: TreePage[]
}

export interface TreeFile {
  id: string
  name: string
  contentType: string
  size: number
  dimensions?: { width: number; height: number }
  /** Git blob id of the file bytes. */
  blobOid: string
  createdAt: string
}

/** A tag pages can carry (spec `RevisionTag`), as `.gitbook/tags.yaml` lists it. */
export interface TreeTag {
  slug: string
  label: string
  /** Spec `DocumentTextColor`: `default`, a palette name or a `$` token. */
  color: string
  emoji?: string
  icon?: string
}

/**
 * Reusable content (spec `RevisionReusableContent`) as Git Sync keeps it: the file
 * `.gitbook/includes/<slug>.md`, `title:` front matter then the markdown pages include with
 * `{% include ".gitbook/includes/<slug>.md" %}`. The whole file is one blob, so its oid is the file's.
 */
export interface TreeReusableContent {
  id: string
  title: string
  /** The file's name under `.gitbook/includes/` without `.md` (Git Sync's names may be cut short: `need-help-join-the-soda-co...`). */
  slug: string
  /** Git blob id of the whole file (front matter and body), as it was read. */
  blobOid: string
}

export interface RevisionTree {
  pages: TreePage[]
  files: TreeFile[]
  /** The space's tags; absent when it has none. Only a Git import sets them (the content API has no operation on tags). */
  tags?: TreeTag[]
  /** The space's reusable contents; absent when it has none. Only a Git import sets them (no content change writes them). */
  reusableContents?: TreeReusableContent[]
}

/* ------------------------------------------------------------------------ */
/* Content changes: the body of `POST .../change-requests/{id}/content`.     */
/* Mirrors the spec's `ChangeRequestContentChange` union.                    */
/* ------------------------------------------------------------------------ */

/** The spec's `Document`: markdown, a JSON document, or empty (`{}`). */
export type PageDocumentInput = { markdown: string } | { document: JSONDocument } | Record<string, never>

/** Metadata fields accepted by insert_page / update_page (spec `RevisionPageUpdate`). */
export interface PageUpdateFields {
  title?: string
  slug?: string
  /** Empty string removes the emoji. */
  emoji?: string
  /** Empty string removes the icon. */
  icon?: string
  description?: string
  hidden?: boolean
  noIndex?: boolean
  noRobotsIndex?: boolean
  /** Empty string removes the condition. */
  condition?: string
}

export interface InsertPageChange extends PageUpdateFields {
  operation: 'insert_page'
  document: PageDocumentInput
  /** Parent page id (or the `ref` of a page inserted earlier in the batch). Absent = root. */
  into?: string
  /** Zero-based index among the new siblings. Absent = append. */
  at?: number
  /** Batch-local name: usable as a page id by later changes and as `./<ref>.md` in links. */
  ref?: string
}

export interface UpdatePageChange extends PageUpdateFields {
  operation: 'update_page'
  page: string
  document?: PageDocumentInput
  /** New parent id; `null` = root; absent = parent unchanged. */
  into?: string | null
  at?: number
}

export interface DeletePageChange {
  operation: 'delete_page'
  page: string
}

export interface RevertPageChange {
  operation: 'revert_page'
  page: string
  /** Revision to revert to; the caller resolves it into `env.base`. */
  revision?: string
  /** Block-level revert; not supported by this implementation (rejected). */
  block?: string[]
}

/** One file of an insert_files change. Exactly one of `url` / `base64` is set. */
export type InsertFileInput = {
  ref?: string
  name: string
  contentType?: string
} & ({ base64: string; url?: undefined } | { url: string; base64?: undefined })

export interface InsertFilesChange {
  operation: 'insert_files'
  files: InsertFileInput[]
}

export type ContentChange =
  | InsertPageChange
  | UpdatePageChange
  | DeletePageChange
  | RevertPageChange
  | InsertFilesChange

export type ContentChangeOperation = ContentChange['operation']

/* ------------------------------------------------------------------------ */
/* applyContentChanges contract.                                            */
/* ------------------------------------------------------------------------ */

export interface ApplyEnv {
  /** Fresh unique id for a new page or file. */
  newId(): string
  /** ISO timestamp stamped on created/updated pages and files. */
  now: string
  /** Tree that `revert_page` restores from (the change request's base revision). */
  base?: RevisionTree
}

/**
 * Net effect of a batch on one page (spec `ChangeRequestContentUpdateChange`:
 * `created_page` / `updated_page` / `deleted_page`). A page created and deleted
 * in the same batch is not listed; created then updated is `created`.
 */
export interface ChangedPage {
  id: string
  title: string
  operation: 'created' | 'updated' | 'deleted'
  /** The insert_page `ref`, echoed for created pages. */
  ref?: string
}

export interface ApplyResult {
  tree: RevisionTree
  /** New blobs (page bodies as UTF-8, file bytes) keyed by `gitBlobOid`. */
  blobs: Map<string, Uint8Array>
  /** One entry per affected page, in the order pages were first touched. */
  changedPages: ChangedPage[]
  insertedFiles: TreeFile[]
}

import { randomUUID } from 'node:crypto'
import { gitBlobOid, markdownToDocument, resolveRelativePath, rewriteLinks, serializePageMarkdown, type ContentRef, type JSONDocument, type PageLayout, type PageMetadata, type TreeFile, type TreePage, type TreeReusableContent } from '../../../content'
import { includePath, parseIncludeFile } from '../../../content/gitsync/include-file'
import { gitBlobOidInTurns } from '../../../content/markdown/blob-oid-in-turns'
import { giveBackTurn } from '../../../content/markdown/turn-clock'
import { documentJsonInRounds } from '../../../content/markdown/document/deferred-refs'
import { ApiError } from '../../http/errors'
import { JsonPieces } from '../../http/json-pieces'
import { convertDocumentOffThread, LinkParseError } from '../../link-workers/pool'
import type { ServiceStore } from '../../store/service-store'
import { RevisionsRepository, type Revision } from '../../store/revisions'
import { signedDownloadUrl } from '../downloads'
import { pageFiles, type PageFile } from './page-files'
import { indexOfRevision } from './revision-index'
import { appUrl } from '../urls'

/**
 * How a page's content is rendered. Every document page in a response carries one of them: the spec's
 * `RevisionPageDocument` requires `markdown` or `document`.
 */
export type PageFormat = 'markdown' | 'document'

/** `format.markdown.refs`: links as Git Sync writes them (relative paths) or as `/pages/<id>`, `/files/<id>`. */
export type MarkdownRefs = 'relative' | 'stable'

export interface ContentViewOptions {
  origin: string
  /** Query `metadata=false` omits the mutable Git Sync metadata (`git`). */
  metadata: boolean
  /** Where file download URLs point (the hosted profile's file host); the API's origin when absent or ''. */
  fileOrigin?: string
  /** Whether revision trees carry each page's markdown (default: yes; the hosted profile's carry none). */
  treeMarkdown?: boolean
}

/**
 * How much of a page's content its JSON carries: its markdown or document (`format`), or none, as the
 * spec's `Document` "Empty" form: a reference a client reads one by one (a page answer's subpages; the
 * hosted profile's trees).
 */
type PageContent = PageFormat | 'reference'

const DEFAULT_LAYOUT: Required<PageLayout> = {
  width: 'default',
  cover: true,
  coverSize: 'hero',
  coverMask: 'none',
  title: true,
  description: true,
  tableOfContents: true,
  outline: true,
  pagination: true,
  metadata: true,
  tags: true,
  actions: true,
  anchors: true,
}

const safeDecode = (value: string) => {
  try {
    return decodeURI(value)
  } catch {
    return value
  }
}

/**
 * A body at least this long is converted to its document in a worker (issue 16): remark costs 1.5-2 s of
 * CPU per MB, so 128 KB holds the event loop for about a quarter of a second; below, a worker's round
 * trip costs more than it saves.
 */
export const DOCUMENT_OFF_THREAD_CHARS = 128 * 1024

const isAbsoluteUrl = (value: string) => /^[a-z][a-z0-9+.-]*:/i.test(value)

/** Paths by page or file id, looked up one at a time. */
export interface PathsById {
  get(id: string): string | undefined
}

/** A large body's document as UTF-8 JSON, converted in a worker; markdown remark cannot parse is a 422. */
async function documentJsonOffThread(body: string, resolveTarget: (target: string) => ContentRef | undefined): Promise<Buffer> {
  try {
    return await documentJsonInRounds(body, resolveTarget, convertDocumentOffThread)
  } catch (error) {
    if (error instanceof LinkParseError) throw new ApiError(422, `the page's markdown ${error.message.replace(/^markdown /, '')}`)
    throw error
  }
}

/**
 * One revision as the API shows it. Paths are computed once per revision, page files once per page of a
 * revision (kept across requests, page-files.ts), so reading a tree or a page twice serializes nothing.
 */
export class RevisionView {
  /** Documents converted off the thread, by page id: `pageJson` puts this marker in their place. */
  private readonly documentMarkers = new Map<string, string>()
  /** Page files of large pages made over several turns for the answer being made, by page id. */
  private readonly filesAhead = new Map<string, PageFile>()

  constructor(
    private readonly store: ServiceStore,
    readonly revision: Revision,
    private readonly options: ContentViewOptions,
  ) {}

  get tree() {
    return this.revision.tree
  }

  /** Page id -> Git Sync file path, file id -> asset path. */
  get gitPaths(): PathsById {
    const index = indexOfRevision(this.revision)
    return { get: (id) => index.gitPath(id) }
  }

  /** Page id -> API `path`: the slugs from the root, groups included. */
  get apiPaths(): PathsById {
    const index = indexOfRevision(this.revision)
    return { get: (id) => index.apiPath(id) }
  }

  /** The page file exactly as Git Sync writes it: front matter, `# Title`, body. Documents only. */
  markdown(page: TreePage): string {
    return this.pageFile(page).markdown
  }

  /** The page file and its git oid, made once per page of a revision (page-files.ts). */
  private pageFile(page: TreePage): PageFile {
    return pageFiles.get(this.revision.id, page, () => {
      const ahead = this.filesAhead.get(page.id)
      if (ahead) return ahead
      const markdown = serializePageMarkdown({ title: page.title, metadata: page.metadata, body: this.body(page), shape: page.shape })
      return { markdown, oid: gitBlobOid(markdown) }
    })
  }

  /**
   * A large page's file made ahead of `pageJson`, its oid hashed over several turns (a 5 MB file took
   * 15-25 ms in one), unless it is kept already. What `pageFile` would make.
   */
  private async pageFileAhead(page: TreePage, body: string): Promise<void> {
    if (pageFiles.has(this.revision.id, page)) return
    await giveBackTurn() // the page's body was read in this turn, and sent to the worker
    const markdown = serializePageMarkdown({ title: page.title, metadata: page.metadata, body, shape: page.shape })
    this.filesAhead.set(page.id, { markdown, oid: await gitBlobOidInTurns(markdown) })
  }

  private body(page: TreePage): string {
    if (!page.bodyOid) return ''
    const bytes = this.store.repo(RevisionsRepository).blob(page.bodyOid)
    if (!bytes) throw new Error(`revision ${this.revision.id} references a missing blob ${page.bodyOid}`)
    return bytes.toString('utf8')
  }

  /**
   * The first page in tree order whose API path is `path`. Only pages whose path leads to it are
   * visited: a page's subpages' paths all start with its own (but below an empty one).
   */
  pageByPath(path: string): TreePage | undefined {
    const target = path.replace(/^\/+|\/+$/g, '')
    const visit = (pages: readonly TreePage[], prefix: string): TreePage | undefined => {
      for (const page of pages) {
        const own = prefix === '' ? page.slug : `${prefix}/${page.slug}`
        if (own === target) return page
        const found = own === '' || target.startsWith(`${own}/`) ? visit(page.pages, own) : undefined
        if (found) return found
      }
      return undefined
    }
    return visit(this.revision.tree.pages, '')
  }

  findPage(id: string): TreePage | undefined {
    return indexOfRevision(this.revision).page(id)
  }

  findFile(id: string): TreeFile | undefined {
    return indexOfRevision(this.revision).file(id)
  }

  findReusableContent(id: string): TreeReusableContent | undefined {
    return this.revision.tree.reusableContents?.find((content) => content.id === id)
  }

  /**
   * The spec's `RevisionReusableContent`: `git` is its Git Sync file (the whole file is stored, so the oid
   * is the file's); `document` names its body's document, which is that blob.
   */
  reusableContentJson(content: TreeReusableContent) {
    return {
      id: content.id,
      title: content.title,
      ...(this.options.metadata ? { git: { oid: content.blobOid, path: includePath(content.slug) } } : {}),
      document: content.blobOid,
    }
  }

  /**
   * The body of a reusable content (its file after the front matter) as the spec's JSON document; a large
   * one converted in a worker, as UTF-8 JSON.
   */
  async reusableContentDocument(content: TreeReusableContent): Promise<JSONDocument | JsonPieces> {
    const bytes = this.store.repo(RevisionsRepository).blob(content.blobOid)
    if (!bytes) throw new Error(`revision ${this.revision.id} references a missing blob ${content.blobOid}`)
    const gitPath = includePath(content.slug)
    const body = parseIncludeFile(bytes.toString('utf8')).body
    const resolveTarget = (target: string) => this.resolveTarget(gitPath, target)
    if (body.length < DOCUMENT_OFF_THREAD_CHARS) return markdownToDocument(body, { resolveTarget })
    return new JsonPieces([await documentJsonOffThread(body, resolveTarget)])
  }

  /**
   * `pageJson`, with the documents of large pages (the page's and its subpages') converted in workers
   * first, off the event loop: then the answer is JSON in pieces, those documents between the rest's as the
   * workers encoded them (never joined: see JsonPieces). Without any, the object `pageJson` gives.
   */
  async pageAnswer(page: TreePage, format: PageFormat, refs: MarkdownRefs = 'relative'): Promise<Record<string, unknown> | JsonPieces> {
    const large = format === 'document' ? this.largeDocumentPages(page) : []
    if (large.length === 0) return this.pageJson(page, format, refs)
    const nonce = randomUUID()
    const converted = await Promise.all(
      large.map(async ({ page: each, body }) => {
        const gitPath = this.gitPaths.get(each.id) ?? ''
        // The page's file (its `git.oid`) is made meanwhile, on this thread but a slice per turn.
        const [json] = await Promise.all([documentJsonOffThread(body, (target) => this.resolveTarget(gitPath, target)), this.pageFileAhead(each, body)])
        return { marker: `\u0000quire-document:${nonce}:${each.id}`, json }
      }),
    )
    for (const [i, { page: each }] of large.entries()) this.documentMarkers.set(each.id, converted[i].marker)
    let text: string
    try {
      text = JSON.stringify(this.pageJson(page, format, refs))
    } finally {
      this.documentMarkers.clear()
      this.filesAhead.clear()
    }
    // Each marker is a JSON string of its own in `text` (its NUL escaped by JSON.stringify, so no title or
    // body can spell it, and the nonce is new per answer): replaced whole, quotes included.
    const pieces: Buffer[] = []
    let from = 0
    for (const { marker, json } of converted) {
      const quoted = JSON.stringify(marker)
      const at = text.indexOf(quoted, from)
      if (at === -1) throw new Error('a converted document has no place in its page')
      pieces.push(Buffer.from(text.slice(from, at)), json)
      from = at + quoted.length
    }
    pieces.push(Buffer.from(text.slice(from)))
    return new JsonPieces(pieces)
  }

  /** The page itself when it is a document whose body is large (its subpages are references: no body). */
  private largeDocumentPages(page: TreePage): Array<{ page: TreePage; body: string }> {
    if (page.type !== 'document') return []
    const body = this.body(page)
    return body.length >= DOCUMENT_OFF_THREAD_CHARS ? [{ page, body }] : []
  }

  /** The revision's tree: every page with its markdown (friendly profile), or as references (hosted). */
  pagesJson() {
    const content: PageContent = this.options.treeMarkdown === false ? 'reference' : 'markdown'
    return this.revision.tree.pages.map((page) => this.pageJson(page, content, 'relative', content))
  }

  filesJson() {
    return this.revision.tree.files.map((file) => this.fileJson(file))
  }

  /**
   * A page's JSON with its content as `format` asks; its subpages' as `children` (default: references, as
   * a page's answer gives them; a tree gives the same to every level).
   */
  pageJson(page: TreePage, format: PageContent, refs: MarkdownRefs = 'relative', childContent: PageContent = 'reference'): Record<string, unknown> {
    const base = {
      id: page.id,
      title: page.title || 'Untitled',
      ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
      ...(page.metadata.emoji ? { emoji: page.metadata.emoji } : {}),
      ...(page.metadata.icon ? { icon: page.metadata.icon } : {}),
      createdAt: page.createdAt,
      updatedAt: page.updatedAt,
      ...(page.metadata.condition ? { condition: page.metadata.condition } : {}),
    }
    const children = () => page.pages.map((child) => this.pageJson(child, childContent, refs, childContent))
    if (page.type === 'link') {
      return {
        ...base,
        kind: 'link',
        type: 'link',
        target: { kind: 'url', url: page.href ?? '' },
        href: page.href ?? '',
        hidden: page.metadata.hidden ?? false,
      }
    }
    const path = this.apiPaths.get(page.id) ?? page.slug
    if (page.type === 'group') {
      return {
        ...base,
        kind: 'group',
        type: 'group',
        slug: page.slug,
        path,
        hidden: page.metadata.hidden ?? false,
        noIndex: page.metadata.noIndex ?? false,
        noRobotsIndex: page.metadata.noRobotsIndex ?? false,
        pages: children(),
      }
    }
    const metadata = page.metadata
    const gitPath = this.gitPaths.get(page.id) ?? ''
    const file = this.pageFile(page)
    const cover = this.coverJson(metadata, gitPath)
    return {
      ...base,
      kind: 'sheet',
      type: 'document',
      ...(format === 'document' ? { document: this.document(page, gitPath) } : {}),
      ...(format === 'markdown' ? { markdown: refs === 'stable' ? this.stableMarkdown(page, gitPath) : file.markdown } : {}),
      urls: { app: appUrl(this.options.origin, `/spaces/${this.revision.spaceId}/page/${page.id}`) },
      slug: page.slug,
      path,
      ...(metadata.description !== undefined ? { description: metadata.description } : {}),
      pages: children(),
      ...(this.options.metadata ? { git: { oid: file.oid, path: gitPath } } : {}),
      layout: { ...DEFAULT_LAYOUT, cover: cover !== undefined, ...metadata.layout },
      ...(cover ? { cover } : {}),
      variables: metadata.variables ?? {},
      hidden: metadata.hidden ?? false,
      noIndex: metadata.noIndex ?? false,
      noRobotsIndex: metadata.noRobotsIndex ?? false,
      ...(metadata.metaLinks ? { metaLinks: metadata.metaLinks } : {}),
      tags: [],
    }
  }

  /** The page file with links to pages and files of the revision written as `/pages/<id>` and `/files/<id>`. */
  private stableMarkdown(page: TreePage, gitPath: string): string {
    const body = rewriteLinks(this.body(page), (link) => {
      const ref = this.resolveTarget(gitPath, link.target)
      if (ref?.kind === 'page') return `/pages/${ref.page}`
      if (ref?.kind === 'anchor' && ref.page) return `/pages/${ref.page}#${ref.anchor}`
      if (ref?.kind === 'file') return `/files/${ref.file}`
      return undefined
    })
    return serializePageMarkdown({ title: page.title, metadata: page.metadata, body, shape: page.shape })
  }

  /** The body as the spec's JSON document; relative links become page, file and anchor references. */
  private document(page: TreePage, gitPath: string): JSONDocument {
    const marker = this.documentMarkers.get(page.id)
    if (marker !== undefined) return marker as unknown as JSONDocument
    return markdownToDocument(this.body(page), { resolveTarget: (target) => this.resolveTarget(gitPath, target) })
  }

  private resolveTarget(gitPath: string, target: string): ContentRef | undefined {
    const byId = /^\/(pages|files)\/([^/#?]+)(?:#(.*))?$/.exec(target)
    if (byId) {
      const [, kind, id, anchor] = byId
      if (kind === 'files') return this.findFile(id) ? { kind: 'file', file: id } : undefined
      if (!this.findPage(id)) return undefined
      return anchor ? { kind: 'anchor', page: id, anchor } : { kind: 'page', page: id }
    }
    if (isAbsoluteUrl(target) || target.startsWith('#') || target.startsWith('/')) return undefined
    const hash = target.indexOf('#')
    const filePart = safeDecode((hash >= 0 ? target.slice(0, hash) : target).replace(/^<|>$/g, ''))
    const anchor = hash >= 0 ? target.slice(hash + 1) : ''
    const resolved = resolveRelativePath(gitPath, filePart)
    if (resolved === undefined) return undefined
    const id = indexOfRevision(this.revision).idAtGitPath(resolved)
    if (id === undefined) return undefined
    if (this.findFile(id)) return { kind: 'file', file: id }
    return anchor ? { kind: 'anchor', page: id, anchor } : { kind: 'page', page: id }
  }

  /** Front matter `cover` is a path relative to the page file (or a URL); the API refers to the file. */
  private coverJson(metadata: PageMetadata, gitPath: string) {
    if (!metadata.cover) return undefined
    let ref: { kind: 'file'; file: string } | { kind: 'url'; url: string } | undefined
    if (isAbsoluteUrl(metadata.cover)) {
      ref = { kind: 'url', url: metadata.cover }
    } else {
      const target = resolveRelativePath(gitPath, safeDecode(metadata.cover.replace(/^<|>$/g, '')))
      const id = target === undefined ? undefined : indexOfRevision(this.revision).idAtGitPath(target)
      if (id !== undefined && this.findFile(id)) ref = { kind: 'file', file: id }
    }
    if (!ref) return undefined
    return {
      ref,
      yPos: metadata.coverY ?? 0,
      ...(metadata.coverHeight !== undefined ? { height: metadata.coverHeight } : {}),
    }
  }

  fileJson(file: TreeFile) {
    return {
      id: file.id,
      name: file.name,
      contentType: file.contentType,
      downloadURL: signedDownloadUrl(this.options.fileOrigin || this.options.origin, { oid: file.blobOid, name: file.name, contentType: file.contentType }),
      size: file.size,
      ...(file.dimensions ? { dimensions: file.dimensions } : {}),
      ...(this.options.metadata ? { git: { oid: file.blobOid, path: this.gitPaths.get(file.id) ?? '' } } : {}),
    }
  }

  /** The spec's `Revision`; a merge revision names the change request it merged (`mergedFrom`). */
  revisionJson(mergedFrom?: unknown) {
    const r = this.revision
    return {
      object: 'revision' as const,
      id: r.id,
      parents: r.parents,
      pages: this.pagesJson(),
      files: this.filesJson(),
      reusableContents: (r.tree.reusableContents ?? []).map((content) => this.reusableContentJson(content)),
      tags: (r.tree.tags ?? []).map((tag) => ({ ...tag })),
      variables: {},
      createdAt: r.createdAt,
      urls: { app: appUrl(this.options.origin, `/spaces/${r.spaceId}/revisions/${r.id}`) },
      ...(r.type === 'merge' && mergedFrom ? { type: 'merge' as const, mergedFrom } : { type: r.type === 'merge' ? ('edits' as const) : r.type }),
    }
  }
}

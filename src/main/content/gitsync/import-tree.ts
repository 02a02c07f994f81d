/**
 * A Git Sync tree read into a revision tree, as Git Sync's import reads it: SUMMARY.md decides which
 * files are pages, their order, nesting, `## Group`s and link entries; each page file gives its title
 * (the H1, or SUMMARY's entry text where it has none), metadata and body, kept byte for byte through its
 * shape; every file under `.gitbook/assets/` becomes a file of the revision.
 *
 * Slugs come from the paths, so the tree renders back at the same paths (`computeGitPaths`): a page's
 * slug is its file's stem (`guide/install.md` -> `install`), a folder page's the folder name
 * (`guide/README.md` -> `guide`), a group's the id of its heading's anchor, or its title's slug.
 *
 * What a revision cannot carry is left out and listed in `notes`, each with its reason.
 */
import yaml from 'js-yaml'
import { ContentError } from '../errors'
import { gitBlobOid } from '../markdown/blob-oid'
import { normalizeMetadata } from '../markdown/front-matter'
import { keptShape, splitPageMarkdown } from '../markdown/page-file'
import { contentTypeFromName, imageDimensions } from '../revision/file-bytes'
import type { RevisionTree, TreeFile, TreePage, TreeReusableContent, TreeTag } from '../types'
import type { GitSyncConfig } from './config'
import { includeSlug, INCLUDES_FOLDER, parseIncludeFile } from './include-file'
import { ASSETS_FOLDER, computeGitPaths } from './paths'
import { resolveRelativePath } from './relative-path'
import { slugify, uniqueSlug, MAX_SLUG_LENGTH } from './slug'
import { TAGS_FILE } from './tags-yaml'
import { parseSummary, type SummaryEntry } from './summary'

export interface GitSyncImport {
  tree: RevisionTree
  /** Page bodies (UTF-8) and file bytes, keyed by git blob id. */
  blobs: Map<string, Uint8Array>
  /** What the tree holds that the revision does not, each with its reason. */
  notes: string[]
  pageCount: number
}

export interface GitSyncImportEnv {
  newId(): string
  now: string
}

const DEFAULT_TITLE = 'Untitled'
/** The spec's `DocumentTextColor`. */
const TAG_COLORS: ReadonlySet<string> = new Set(['default', 'green', 'blue', 'red', 'orange', 'yellow', 'purple', 'pink', 'violet', 'cyan', '$primary', '$info', '$success', '$warning', '$danger', '$tint'])
const utf8 = new TextDecoder()
const encoder = new TextEncoder()

/**
 * `files`: every file of the docs folder (the `.gitbook.yaml` root applied), by `/`-separated path.
 * A tree without its SUMMARY.md is refused: nothing says which files are pages.
 */
export function revisionFromGitSync(files: ReadonlyMap<string, Uint8Array>, config: Pick<GitSyncConfig, 'readme' | 'summary'>, env: GitSyncImportEnv): GitSyncImport {
  const summaryBytes = files.get(config.summary)
  if (!summaryBytes) throw new ContentError(`the tree has no ${config.summary}: Git Sync needs it to know the pages and their order`)
  const reader = new TreeReader(files, config, env)
  const pages = reader.read(parseSummary(utf8.decode(summaryBytes)))
  const readme = reader.readmeNotListed()
  if (readme) pages.unshift(readme)
  const assets = reader.assets()
  const tags = reader.tags()
  const reusableContents = reader.includes()
  reader.noteUnlisted()
  const tree: RevisionTree = { pages, files: assets, ...(tags.length > 0 ? { tags } : {}), ...(reusableContents.length > 0 ? { reusableContents } : {}) }
  return { tree, blobs: reader.blobs, notes: reader.notes, pageCount: reader.listed.size }
}

class TreeReader {
  readonly blobs = new Map<string, Uint8Array>()
  readonly notes: string[] = []
  /** Page files placed, by path. */
  readonly listed = new Set<string>()
  /** Include files kept as reusable contents, by path. */
  private readonly includePaths = new Set<string>()

  constructor(
    private readonly files: ReadonlyMap<string, Uint8Array>,
    private readonly config: Pick<GitSyncConfig, 'readme' | 'summary'>,
    private readonly env: GitSyncImportEnv,
  ) {}

  read(entries: SummaryEntry[]): TreePage[] {
    const root: TreePage[] = []
    for (const entry of entries) {
      if (entry.kind === 'group') root.push(this.group(entry, root))
      else this.place(entry, root, true, '')
    }
    return root
  }

  private group(entry: SummaryEntry, siblings: TreePage[]): TreePage {
    const group = this.newPage('group', entry.title || DEFAULT_TITLE, uniqueSlug(entry.slug ?? slugify(entry.title), siblings.map((p) => p.slug)))
    // A group's pages are written in the folder of its slug (computeGitPaths).
    const folder = `${group.slug}/`
    for (const child of entry.children) {
      if (child.kind !== 'group') {
        this.place(child, group.pages, false, folder)
        continue
      }
      this.notes.push(`${this.config.summary}: group "${child.title}" inside group "${entry.title}": groups are top-level only, its pages are listed in its place`)
      for (const grandchild of child.children) this.place(grandchild, group.pages, false, folder)
    }
    return group
  }

  /**
   * Adds to `siblings` the page an entry becomes, or, for an entry that cannot be a page, its subpages.
   * `folder`: where Git Sync writes the pages of `siblings` (`''` at the root, `guide/` under a page).
   */
  private place(entry: SummaryEntry, siblings: TreePage[], atRoot: boolean, folder: string): void {
    const placeChildren = (into: TreePage[], childFolder = folder) => {
      for (const child of entry.children) this.place(child, into, false, childFolder)
    }
    if (entry.kind === 'link' || entry.kind === 'group' || (entry.path !== undefined && entry.path.includes('#'))) {
      // A URL, or a section of a page (`page.md#anchor`): a link page to it, as written.
      const href = entry.kind === 'link' ? (entry.href ?? '') : (entry.path ?? '')
      siblings.push({ ...this.newPage('link', entry.title || href, ''), href })
      if (entry.children.length > 0) this.notes.push(`${this.config.summary}: "${entry.title}" links to ${href} and cannot hold pages: its subpages are listed after it`)
      placeChildren(siblings)
      return
    }
    const path = entry.path === undefined ? undefined : resolveRelativePath(this.config.summary, entry.path)
    const bytes = path === undefined ? undefined : this.files.get(path)
    if (path === undefined || bytes === undefined || !/\.md$/i.test(path) || this.listed.has(path)) {
      const why =
        entry.path === undefined
          ? 'has no link'
          : path === undefined
            ? `points outside the tree (${entry.path})`
            : this.listed.has(path)
              ? `lists ${path} a second time`
              : bytes === undefined
                ? `names ${path}, which is not in the tree`
                : `names ${path}, which is not a markdown page`
      this.notes.push(`${this.config.summary}: "${entry.title}" ${why}: not imported${entry.children.length > 0 ? ', its subpages are listed in its place' : ''}`)
      placeChildren(siblings)
      return
    }
    this.listed.add(path)
    const page = this.documentPage(path, bytes, entry.title, siblings, atRoot && path === this.config.readme, this.childrenFolder(entry, folder))
    if (entry.title !== '' && page.title !== entry.title) {
      this.notes.push(`${this.config.summary}: "${entry.title}" names ${path}, whose H1 is "${page.title}": the page takes its H1 as title, and SUMMARY.md will list it so`)
    }
    if (entry.linkTitle) page.linkTitle = entry.linkTitle
    siblings.push(page)
    placeChildren(page.pages, `${folder}${page.slug}/`)
  }

  /**
   * The name of the folder the subpages of `entry` live in, when they all live directly in one folder
   * inside `folder` (where the page itself is placed): Git Sync writes a page's subpages in the folder of
   * its slug, so that name, case included, is the page's slug. A page file does not always tell it: the
   * home page is `README.md` whatever its slug (`getting-started/readme/child.md` under a `README.md`
   * listed in the group `getting-started`), and a `readme.md` with subpages is no folder's README.
   */
  private childrenFolder(entry: SummaryEntry, folder: string): string | undefined {
    const folders = new Set<string>()
    for (const child of entry.children) {
      if (child.kind !== 'page' || child.path === undefined || child.path.includes('#')) continue
      const path = resolveRelativePath(this.config.summary, child.path)
      if (path === undefined || !this.files.has(path) || !/\.md$/i.test(path)) continue
      folders.add(path.slice(0, path.lastIndexOf('/') + 1))
    }
    if (folders.size !== 1) return undefined
    const [only] = folders
    const name = only.slice(folder.length, -1)
    return only.startsWith(folder) && name !== '' && !name.includes('/') ? name : undefined
  }

  private documentPage(path: string, bytes: Uint8Array, summaryTitle: string, siblings: TreePage[], home: boolean, childrenFolder?: string): TreePage {
    const parts = splitPageMarkdown(utf8.decode(bytes))
    const title = parts.title ?? (summaryTitle || DEFAULT_TITLE)
    const metadata = normalizeMetadata(parts.metadata)
    const wanted = childrenFolder !== undefined && validSlug(childrenFolder) ? childrenFolder : home ? slugify(title) : slugOfPath(path)
    const slug = uniqueSlug(validSlug(wanted) ? wanted : slugify(wanted), siblings.map((p) => p.slug))
    if (slug !== wanted && !home) this.notes.push(`${path}: slug "${wanted}" ${validSlug(wanted) ? 'is taken by a sibling' : 'is not a valid slug'}: the page is "${slug}"`)
    const page = this.newPage('document', title, slug)
    page.metadata = metadata
    const shape = keptShape(parts, { title, metadata })
    if (shape) page.shape = shape
    const body = encoder.encode(parts.body)
    page.bodyOid = gitBlobOid(body)
    this.blobs.set(page.bodyOid, body)
    return page
  }

  /** The readme is the space's first page even when SUMMARY.md does not list it. */
  readmeNotListed(): TreePage | undefined {
    const bytes = this.files.get(this.config.readme)
    if (!bytes || this.listed.has(this.config.readme)) return undefined
    this.listed.add(this.config.readme)
    return this.documentPage(this.config.readme, bytes, DEFAULT_TITLE, [], true)
  }

  /** Every file under `.gitbook/assets/`, linked or not, in path order. */
  assets(): TreeFile[] {
    const prefix = `${ASSETS_FOLDER}/`
    const paths = [...this.files.keys()].filter((p) => p.startsWith(prefix)).sort()
    return paths.map((path) => {
      const bytes = this.files.get(path) as Uint8Array
      const name = path.slice(prefix.length)
      if (name.includes('/')) this.notes.push(`${path}: files live directly under ${ASSETS_FOLDER}/: imported as "${name.replace(/\//g, '-')}"`)
      const blobOid = gitBlobOid(bytes)
      this.blobs.set(blobOid, bytes)
      const dimensions = imageDimensions(bytes)
      return {
        id: this.env.newId(),
        name: name.replace(/\//g, '-'),
        contentType: contentTypeFromName(name),
        size: bytes.byteLength,
        ...(dimensions ? { dimensions } : {}),
        blobOid,
        createdAt: this.env.now,
      }
    })
  }

  /** `.gitbook/tags.yaml`: the space's tags, in order (`tag`, `label`, `emoji` or `icon`, `color`). */
  tags(): TreeTag[] {
    const bytes = this.files.get(TAGS_FILE)
    if (!bytes) return []
    this.listed.add(TAGS_FILE)
    let items: unknown
    try {
      items = yaml.load(utf8.decode(bytes))
    } catch (error) {
      this.notes.push(`${TAGS_FILE}: not valid YAML (${(error as Error).message.split('\n')[0]}): no tags imported`)
      return []
    }
    if (!Array.isArray(items)) {
      if (items !== undefined && items !== null) this.notes.push(`${TAGS_FILE}: not a list of tags: no tags imported`)
      return []
    }
    const tags: TreeTag[] = []
    for (const item of items as Array<Record<string, unknown>>) {
      const { tag, label, emoji, icon, color } = item ?? {}
      if (typeof tag !== 'string' || tag === '' || (label !== undefined && typeof label !== 'string')) {
        this.notes.push(`${TAGS_FILE}: ${JSON.stringify(item)} is not a tag (tag:, label:): left out`)
        continue
      }
      const known = typeof color === 'string' && TAG_COLORS.has(color)
      if (color !== undefined && !known) this.notes.push(`${TAGS_FILE}: tag "${tag}" has color ${JSON.stringify(color)}, not one of the spec's: imported as default`)
      tags.push({
        slug: tag,
        label: typeof label === 'string' ? label : tag,
        color: known ? (color as string) : 'default',
        ...(typeof emoji === 'string' && emoji !== '' ? { emoji } : typeof icon === 'string' && icon !== '' ? { icon } : {}),
      })
    }
    return tags
  }

  /**
   * `.gitbook/includes/<slug>.md`: the space's reusable contents, by path. The whole file is kept as one
   * blob (its oid is the file's, so it is exported as it came); its title is its front matter's `title:`,
   * else its slug. A file in a subfolder or not `.md` is not reusable content (noted, not imported).
   */
  includes(): TreeReusableContent[] {
    const contents: TreeReusableContent[] = []
    for (const [path, bytes] of [...this.files].filter(([p]) => p.startsWith(INCLUDES_FOLDER)).sort(([a], [b]) => (a < b ? -1 : 1))) {
      const slug = includeSlug(path)
      this.includePaths.add(path)
      if (slug === undefined) {
        this.notes.push(`${path}: not imported: reusable content is a .md file directly in ${INCLUDES_FOLDER}`)
        continue
      }
      const { title } = parseIncludeFile(utf8.decode(bytes))
      if (title === undefined) this.notes.push(`${path}: no title: front matter: imported with its file name as title`)
      const blobOid = gitBlobOid(bytes)
      this.blobs.set(blobOid, bytes)
      contents.push({ id: this.env.newId(), title: title ?? slug, slug, blobOid })
    }
    return contents
  }

  /** Markdown files SUMMARY.md does not list are not pages (Git Sync's reading); other files are not content. */
  noteUnlisted(): void {
    for (const path of [...this.files.keys()].sort()) {
      if (path.startsWith(`${ASSETS_FOLDER}/`) || this.listed.has(path) || this.includePaths.has(path) || path === this.config.summary) continue
      if (path.startsWith('.gitbook/')) this.notes.push(`${path}: not imported: the service keeps no ${path.split('/')[1]} of a space`)
      else if (/\.md$/i.test(path)) this.notes.push(`${path}: not listed in ${this.config.summary}: not a page`)
    }
  }

  private newPage(type: TreePage['type'], title: string, slug: string): TreePage {
    return { id: this.env.newId(), type, title, slug, metadata: {}, createdAt: this.env.now, updatedAt: this.env.now, pages: [] }
  }
}

/** `guide/install.md` -> `install`; `guide/README.md` -> `guide`. */
function slugOfPath(path: string): string {
  const segments = path.split('/')
  const name = segments[segments.length - 1]
  if (/^readme\.md$/i.test(name) && segments.length > 1) return segments[segments.length - 2]
  return name.replace(/\.md$/i, '')
}

/** What `explicitSlug` accepts: one path segment of at most 100 characters. */
function validSlug(slug: string): boolean {
  return slug !== '' && Array.from(slug).length <= MAX_SLUG_LENGTH && !/[\s/\\?#]/.test(slug) && slug !== '.' && slug !== '..'
}

/**
 * Gives the imported tree's pages and files the ids (and creation times) of the previous revision's
 * pages and files at the same Git Sync path (groups: of the same slug; links: to the same target), as Git Sync keeps a page's
 * identity from one import to the next: comments, links by id and change requests stay attached.
 * Changes `tree` in place.
 */
export function keepIdentities(tree: RevisionTree, previous: RevisionTree): void {
  const before = new Map<string, { id: string; createdAt: string }>()
  const previousPaths = computeGitPaths(previous)
  const remember = (pages: TreePage[]) => {
    for (const page of pages) {
      const key = identityKey(page, previousPaths)
      if (key && !before.has(key)) before.set(key, page)
      remember(page.pages)
    }
  }
  remember(previous.pages)
  for (const file of previous.files) {
    const path = previousPaths.get(file.id)
    if (path) before.set(path, file)
  }
  const paths = computeGitPaths(tree)
  const used = new Set<string>()
  const adopt = (item: { id: string; createdAt: string }, key: string | undefined) => {
    const old = key === undefined ? undefined : before.get(key)
    if (!old || used.has(old.id)) return
    used.add(old.id)
    item.id = old.id
    item.createdAt = old.createdAt
  }
  const walk = (pages: TreePage[]) => {
    for (const page of pages) {
      adopt(page, identityKey(page, paths))
      walk(page.pages)
    }
  }
  // Paths are worked out before any id changes: they are keyed by the new tree's own ids.
  const files = tree.files.map((file) => [file, paths.get(file.id)] as const)
  walk(tree.pages)
  for (const [file, path] of files) adopt(file, path)
  // Reusable contents are known by their file: the same slug keeps its id (pages include them by path).
  const contentIds = new Map((previous.reusableContents ?? []).map((content) => [content.slug, content.id]))
  for (const content of tree.reusableContents ?? []) content.id = contentIds.get(content.slug) ?? content.id
}

/** What identifies a page from one import to the next: its file's path, a group's slug, a link's target. */
function identityKey(page: TreePage, paths: Map<string, string>): string | undefined {
  if (page.type === 'group') return `group:${page.slug}`
  if (page.type === 'link') return `link:${page.href ?? ''}`
  return paths.get(page.id)
}

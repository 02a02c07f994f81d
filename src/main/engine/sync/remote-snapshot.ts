import type { Revision, RevisionFile, RevisionPage } from '@gitbook/api'
import { ASSETS_FOLDER, gitBlobOid, renderSummary, SUMMARY_FILE, type TreePage } from '../../content'
import { SUMMARY_ENTRY_ID, type RemoteFileRow, type RemotePageRow } from '../cache/cache-repository'
import { ASSETS_PREFIX, ContentNameRegistry, contentKind } from '../workspace/content-names'
import { INCLUDE_ENTRY_PREFIX, includeServerPath } from './include-files'
import type { RemoteEntry, RemoteSnapshot } from './plan-types'
import { tagsEntry } from './tags-file'

/**
 * Turns a revision as the service gives it into the files a space folder should hold. Every path from
 * the server is remade safe here (segments sanitized, `..` neutralized, hidden and editors' names made
 * visible, case and Unicode clashes given ` (2)` suffixes per folder, pages and files kept to what a
 * space folder may receive), so the planner and executor only ever see confined content paths.
 * SUMMARY.md is rendered from the tree with those same local paths.
 */
export function buildRemoteSnapshot(revision: PlacedRevision, options: LayoutOptions = {}): RemoteSnapshot {
  return withSummary(placeRemoteTree(revision, options))
}

/** What a revision gives the folder: its pages, files and (where the service has any) tags and reusable contents. */
export type PlacedRevision = Pick<Revision, 'id' | 'pages' | 'files'> & { tags?: Revision['tags']; reusableContents?: Revision['reusableContents'] }

export interface LayoutOptions {
  /**
   * Whether the space folder's disk takes names differing only by case for one file (`foldsCase`;
   * default true). Where it does not, file names under `.gitbook/` are kept as they are, case-only
   * clashes included (`Image.png` beside `image.png`, as Git Sync writes them), so page links name the
   * right file. Page files never differ only by case (the service gives none that do).
   */
  foldCase?: boolean
}

/** The pages and files of a revision at their local paths, and what SUMMARY.md needs; no page content. */
export interface PlacedTree {
  revision: string
  entries: RemoteEntry[]
  outline: TreePage[]
  localPaths: Map<string, string>
  /** Server paths outside the allow-list of a space folder, and where they were placed instead. */
  replaced: Array<{ from: string; to: string }>
}

/**
 * First half of `buildRemoteSnapshot`. Its result holds nothing of the revision's page markdown, so a
 * caller can let the response go before the summary is rendered (a large space's response is tens of
 * megabytes once parsed).
 */
export function placeRemoteTree(revision: PlacedRevision, options: LayoutOptions = {}): PlacedTree {
  const layout = new LocalLayout(options.foldCase ?? true)
  const entries: RemoteEntry[] = []
  const localPaths = new Map<string, string>()

  const pages: Array<{ entry: RemoteEntry; serverPath: string }> = []
  walkPages(revision.pages, (page) => {
    const git = gitOf(page)
    if (!git) return
    const path = layout.place(git.path, 'page', `page:${page.id}`)
    localPaths.set(page.id, path)
    const entry: RemoteEntry = { id: page.id, kind: 'page', path, oid: git.oid }
    pages.push({ entry, serverPath: git.path })
    entries.push(entry)
  })
  /** Files the folder names otherwise than the server (a case-only clash on a disk that folds case). */
  const renamedFiles = new Map<string, string>()
  /** Local paths of pages and files by id: where an include's references lead. */
  const targets = new Map(localPaths)
  for (const file of revision.files) {
    const git = file.git ?? { path: `${ASSETS_FOLDER}/${file.name}`, oid: '' }
    const path = layout.place(git.path, 'file', `file:${file.id}`)
    if (file.git && path !== git.path) renamedFiles.set(git.path, path)
    targets.set(file.id, path)
    entries.push({ id: file.id, kind: 'file', path, oid: git.oid, url: file.downloadURL })
  }
  // `.gitbook/includes/`: reusable contents at their Git Sync path, written from their documents (include-files.ts).
  for (const content of revision.reusableContents ?? []) {
    if (!content.git) continue
    const path = layout.place(includeServerPath(content.git.path), 'file', `include:${content.id}`)
    entries.push({ id: `${INCLUDE_ENTRY_PREFIX}${content.id}`, kind: 'file', path, oid: content.git.oid, include: { contentId: content.id, title: content.title, targets } })
  }
  // Which pages link to them is known only from their text: each page is written through the map.
  if (renamedFiles.size > 0) for (const { entry, serverPath } of pages) entry.links = { page: serverPath, files: renamedFiles }
  // `.gitbook/tags.yaml`, Git Sync's list of the space's tags, where the service has any.
  const tags = tagsEntry(revision.tags)
  if (tags) entries.push(tags)
  return { revision: revision.id, entries, outline: revision.pages.map(treePage), localPaths, replaced: layout.replaced }
}

/** Second half of `buildRemoteSnapshot`: SUMMARY.md rendered from the tree with the local paths. */
export function withSummary(placed: PlacedTree): RemoteSnapshot {
  const summary = renderSummary({ pages: placed.outline, files: [] }, placed.localPaths)
  const entry: RemoteEntry = { id: SUMMARY_ENTRY_ID, kind: 'summary', path: SUMMARY_FILE, oid: gitBlobOid(summary), content: summary }
  return { revision: placed.revision, entries: [...placed.entries, entry] }
}

/** Bytes of page markdown a pass keeps from the tree: past that, pages are fetched one by one. */
const TREE_TEXT_BUDGET = 16 * 1024 * 1024

/**
 * The budget, or `QUIRE_TREE_BUDGET_BYTES` where set (issue 26): 0 makes a pass read every page one by one
 * as against the hosted service, whose trees carry no markdown; a large one keeps a big space's whole tree.
 */
export function treeTextBudget(env: NodeJS.ProcessEnv = process.env): number {
  const given = env.QUIRE_TREE_BUDGET_BYTES?.trim()
  if (given === undefined || given === '') return TREE_TEXT_BUDGET
  if (!/^\d+$/.test(given) || !Number.isSafeInteger(Number(given))) throw new Error(`QUIRE_TREE_BUDGET_BYTES must be a number of bytes (0 or more), got "${given}"`)
  return Number(given)
}

/**
 * The markdown the tree carries for the pages a pass will write (`wanted`: their oid differs from what
 * the journal last wrote), kept only when it hashes to the page's `git.oid`: then it is the very file a
 * page GET would give, and that GET is saved. At most `budget` characters are kept, so a first mirror of
 * a large space holds a bounded part of the response (in bytes) while the rest downloads page by page.
 */
export function pageTextsFromTree(revision: Pick<Revision, 'pages'>, wanted: (id: string, oid: string) => boolean, budget = treeTextBudget()): Map<string, Uint8Array> {
  const texts = new Map<string, Uint8Array>()
  let kept = 0
  walkPages(revision.pages, (page) => {
    const git = gitOf(page)
    const markdown = 'markdown' in page ? page.markdown : undefined
    if (!git || typeof markdown !== 'string' || !wanted(page.id, git.oid) || kept + markdown.length > budget) return
    const bytes = utf8.encode(markdown)
    if (kept + bytes.byteLength > budget || gitBlobOid(bytes) !== git.oid) return
    texts.set(page.id, bytes)
    kept += bytes.byteLength
  })
  return texts
}

const utf8 = new TextEncoder()

/** The remote tree as the cache keeps it (titles, order, git paths), for status and link reports. */
export function remoteRows(revision: Pick<Revision, 'pages' | 'files'>): { pages: RemotePageRow[]; files: RemoteFileRow[] } {
  const pages: RemotePageRow[] = []
  const visit = (list: readonly RevisionPage[], parentId: string | undefined) => {
    list.forEach((page, position) => {
      const git = gitOf(page)
      pages.push({
        id: page.id,
        parentId,
        position,
        kind: page.type,
        title: page.title,
        slug: 'slug' in page ? page.slug : undefined,
        gitPath: git?.path,
        gitOid: git?.oid,
      })
      visit(childrenOf(page), page.id)
    })
  }
  visit(revision.pages, undefined)
  const files = revision.files.map(
    (f: RevisionFile): RemoteFileRow => ({
      id: f.id,
      name: f.name,
      contentType: f.contentType,
      size: f.size,
      downloadUrl: f.downloadURL,
      gitPath: f.git?.path,
      gitOid: f.git?.oid,
    }),
  )
  return { pages, files }
}

function gitOf(page: RevisionPage): { path: string; oid: string } | undefined {
  return 'git' in page && page.git ? page.git : undefined
}

function childrenOf(page: RevisionPage): readonly RevisionPage[] {
  return 'pages' in page && Array.isArray(page.pages) ? page.pages : []
}

function walkPages(pages: readonly RevisionPage[], visit: (page: RevisionPage) => void) {
  for (const page of pages) {
    visit(page)
    walkPages(childrenOf(page), visit)
  }
}

function treePage(page: RevisionPage): TreePage {
  return {
    id: page.id,
    type: page.type === 'group' ? 'group' : page.type === 'link' ? 'link' : 'document',
    title: page.title,
    slug: 'slug' in page ? page.slug : '',
    metadata: {},
    ...(page.type === 'link' ? { href: page.href ?? '' } : {}),
    ...(page.linkTitle ? { linkTitle: page.linkTitle } : {}),
    createdAt: '',
    updatedAt: '',
    pages: childrenOf(page).map(treePage),
  }
}

/**
 * Hands out unique relative paths that are workspace content (`content-names.ts`), one name registry
 * per folder. The server says where a page or file goes, but only inside the allow-list: pages are
 * `.md` files outside `.gitbook/`, files live under `.gitbook/assets/` (or `.gitbook/includes/`), and
 * no segment is hidden or an editor's file. A path outside it is re-placed (each segment made a
 * visible name, `.md` added to a page, a file moved under `.gitbook/assets/`), never written as given:
 * a service cannot write `.git/hooks/…` or any other dotfile, and sync down never creates a name sync
 * up would not read (a page it could not see would be taken for deleted).
 */
class LocalLayout {
  private readonly registries = new Map<string, ContentNameRegistry>()
  private readonly folders = new Map<string, string>()
  readonly replaced: Array<{ from: string; to: string }> = []

  constructor(private readonly foldCase: boolean) {
    const root = this.registry('')
    root.reserve(SUMMARY_FILE, 'entry:summary')
    // Never written, and a page must not take its place either.
    root.reserve('.gitbook.yaml', 'reserved')
    root.reserve('.gitbook', 'reserved')
  }

  place(rawPath: string, kind: 'page' | 'file', owner: string): string {
    let segments = rawPath
      .normalize('NFC')
      .replace(/\\/g, '/')
      .split('/')
      .filter((s) => s !== '' && s !== '.')
    if (segments.length === 0) segments.push(`untitled-${owner.replace(/[^A-Za-z0-9_-]/g, '_')}${kind === 'page' ? '.md' : ''}`)
    const inGitbook = segments.length >= 3 && segments[0] === '.gitbook' && (segments[1] === 'assets' || segments[1] === 'includes')
    let base = ''
    if (kind === 'file') {
      // Files only ever go under .gitbook/: the rest of the server's path is dropped, not re-created.
      if (!inGitbook) segments = [segments[segments.length - 1]]
      else [base, segments] = [`.gitbook/${segments[1]}/`, segments.slice(2)]
      if (base === '') base = ASSETS_PREFIX
    } else {
      const last = segments.length - 1
      if (!/\.md$/i.test(segments[last])) segments[last] = `${segments[last]}.md`
    }
    let folder = base
    let rawFolder = base
    for (const segment of segments.slice(0, -1)) {
      rawFolder = `${rawFolder}/${segment}`
      let safe = this.folders.get(rawFolder)
      if (safe === undefined) {
        safe = `${folder}${this.registry(folder).claim(segment, `dir:${rawFolder}`)}/`
        this.folders.set(rawFolder, safe)
      }
      folder = safe
    }
    const placed = folder + this.registry(folder).claim(segments[segments.length - 1], owner)
    if (placed !== rawPath && contentKind(rawPath) === undefined) this.replaced.push({ from: rawPath, to: placed })
    return placed
  }

  private registry(folder: string): ContentNameRegistry {
    let registry = this.registries.get(folder)
    // Only files keep case-only clashes (Git Sync's assets): page files stay distinct whatever the case,
    // so a folder of pages is safe on every OS even where this disk would hold both.
    if (!registry) this.registries.set(folder, (registry = new ContentNameRegistry(folder.startsWith('.gitbook/') ? this.foldCase : true)))
    return registry
  }
}

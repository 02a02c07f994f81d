/**
 * What the API reads of a revision's tree by id or path: each page's and file's Git Sync path, each
 * page's API path, the page or file of an id, the id at a Git path.
 *
 * A revision written by a small edit shares with its parent every page the edit did not touch (the same
 * frozen objects, content/revision/tree.ts `shareUnchanged`), so its index is derived from the parent's
 * (when that is cached) by walking only the arrays of pages that are not the parent's own, and storing
 * only the entries that differ (layered-map.ts): the first read after a write costs what the write
 * changed, not the space. Anything this cannot derive exactly (a new home page, files other than
 * appended, a duplicate id, a tree not frozen) is built in full, as is the first revision read.
 *
 * Every index made is kept by the frozen tree it indexes, and a write derives its revision's index at
 * once from its parent's when that is kept (`indexWrittenTree`): several writes in a row with no read
 * between them keep the index at hand, so the read after them costs no more than the read after one.
 */
import { assetPath, findHomePage, FolderNames, pathSegment, README_FILE, SUMMARY_FILE, computeGitPaths } from '../../../content/gitsync/paths'
import { isDeeplyFrozen } from '../../../content/revision/tree'
import type { RevisionTree, TreeFile, TreePage } from '../../../content/types'
import { RevisionCache } from '../../content-index/revision-cache'
import type { Revision } from '../../store/revisions'
import { LayeredMap } from './layered-map'

export interface RevisionIndex {
  readonly tree: RevisionTree
  /** Git Sync path of a document page or file. */
  gitPath(id: string): string | undefined
  /** API `path` of a page: its slugs from the root, groups included. */
  apiPath(id: string): string | undefined
  page(id: string): TreePage | undefined
  file(id: string): TreeFile | undefined
  /** The page or file at a Git Sync path. */
  idAtGitPath(path: string): string | undefined
}

interface PageEntry {
  kind: 'page'
  page: TreePage
  gitPath: string | undefined
  apiPath: string
  /** Id of the page whose `pages` hold it; undefined at the root. */
  parent: string | undefined
  /** Folder its subpages are placed in, and whether that folder's README.md is the page's own. */
  folder: string | undefined
  readme: boolean
}

interface FileEntry {
  kind: 'file'
  file: TreeFile
  gitPath: string
}

type Entry = PageEntry | FileEntry

/** Where one page goes in its folder, the same steps as `computeGitPaths`. */
function placePage(page: TreePage, folder: string, names: FolderNames, home: TreePage | undefined): Pick<PageEntry, 'gitPath' | 'folder' | 'readme'> {
  const segment = pathSegment(page.slug)
  if (page === home) {
    return { gitPath: README_FILE, folder: page.pages.length > 0 ? `${folder}${names.claimFolder(segment)}/` : undefined, readme: false }
  }
  if (page.type === 'document' && page.pages.length === 0) return { gitPath: folder + names.claimFile(`${segment}.md`), folder: undefined, readme: false }
  if (page.type === 'document') {
    const own = `${folder}${names.claimFolder(segment)}/`
    return { gitPath: `${own}${README_FILE}`, folder: own, readme: true }
  }
  // Groups (and link pages) have no file; their folder is claimed even when empty.
  return { gitPath: undefined, folder: `${folder}${names.claimFolder(segment)}/`, readme: false }
}

function rootNames(): FolderNames {
  const names = new FolderNames(true)
  names.claimFile(SUMMARY_FILE)
  names.claimFolder('.gitbook')
  return names
}

const apiPathOf = (prefix: string, page: TreePage) => (prefix === '' ? page.slug : `${prefix}/${page.slug}`)

/** An index over entries keyed by id: what a tree without duplicate ids gets, and what can be derived from. */
class EntryIndex implements RevisionIndex {
  constructor(
    readonly tree: RevisionTree,
    readonly home: TreePage | undefined,
    readonly entries: LayeredMap<string, Entry>,
    readonly ids: LayeredMap<string, string>,
  ) {}

  gitPath(id: string) {
    return this.entries.get(id)?.gitPath
  }

  apiPath(id: string) {
    const entry = this.entries.get(id)
    return entry?.kind === 'page' ? entry.apiPath : undefined
  }

  page(id: string) {
    const entry = this.entries.get(id)
    return entry?.kind === 'page' ? entry.page : undefined
  }

  file(id: string) {
    const entry = this.entries.get(id)
    return entry?.kind === 'file' ? entry.file : undefined
  }

  idAtGitPath(path: string) {
    return this.ids.get(path)
  }
}

/**
 * A tree with an id used twice: the maps as they always were (the first page of an id, the last path),
 * which nothing is derived from.
 */
class PlainIndex implements RevisionIndex {
  private readonly gitPaths: Map<string, string>
  private readonly ids = new Map<string, string>()
  private readonly apiPaths = new Map<string, string>()
  private readonly pages = new Map<string, TreePage>()
  private readonly files = new Map<string, TreeFile>()

  constructor(readonly tree: RevisionTree) {
    this.gitPaths = computeGitPaths(tree)
    for (const [id, path] of this.gitPaths) if (!this.ids.has(path)) this.ids.set(path, id)
    const walk = (list: readonly TreePage[], prefix: string) => {
      for (const page of list) {
        const path = apiPathOf(prefix, page)
        this.apiPaths.set(page.id, path)
        if (!this.pages.has(page.id)) this.pages.set(page.id, page)
        walk(page.pages, path)
      }
    }
    walk(tree.pages, '')
    for (const file of tree.files) if (!this.files.has(file.id)) this.files.set(file.id, file)
  }

  gitPath(id: string) {
    return this.gitPaths.get(id)
  }

  apiPath(id: string) {
    return this.apiPaths.get(id)
  }

  page(id: string) {
    return this.pages.get(id)
  }

  file(id: string) {
    return this.files.get(id)
  }

  idAtGitPath(path: string) {
    return this.ids.get(path)
  }
}

/**
 * Indexes made so far, by the tree they index. Trees are immutable and each stored revision's is one shared
 * object (store/revisions.ts), so an entry never goes stale, and goes when nothing holds its tree any more.
 */
const indexesByTree = new WeakMap<RevisionTree, RevisionIndex>()

/** Indexes built in full since the service started: what a read after writes must not add to (tests count it). */
let fullBuilds = 0

export function revisionIndexesBuiltInFull(): number {
  return fullBuilds
}

function kept(tree: RevisionTree, index: RevisionIndex): RevisionIndex {
  // Only a frozen tree is the same content the next time it is seen.
  if (isDeeplyFrozen(tree)) indexesByTree.set(tree, index)
  return index
}

/** The index of `tree`: the one already made for this very tree (by a read, or by the write that made it), else built in full. */
export function revisionIndexOf(tree: RevisionTree): RevisionIndex {
  return indexesByTree.get(tree) ?? kept(tree, buildRevisionIndexInFull(tree))
}

/** Recent revisions' indexes by id: a revision read next derives its own from its parent's (one kept here). */
const recentIndexes = new RevisionCache<RevisionIndex>(64)

/**
 * The index of a stored revision (store/revisions.ts hands out one frozen object per revision, so what is
 * derived from its tree is kept beside it: without this every page read walked the whole space): the one
 * kept for its tree (by an earlier read, or by the write that stored it), else derived from a recent
 * parent's, which costs what the write changed, else built in full.
 */
export function indexOfRevision(revision: Pick<Revision, 'id' | 'parents' | 'tree'>): RevisionIndex {
  const index = indexesByTree.get(revision.tree) ?? derivedFromParent(revision) ?? revisionIndexOf(revision.tree)
  if (recentIndexes.peek(revision.id) !== index) recentIndexes.get(revision.id, () => index)
  return index
}

function derivedFromParent(revision: Pick<Revision, 'parents' | 'tree'>): RevisionIndex | undefined {
  for (const parentId of revision.parents) {
    const parent = recentIndexes.peek(parentId)
    const derived = parent && deriveRevisionIndex(parent, revision.tree)
    if (derived) return derived
  }
  return undefined
}

/**
 * A write stored `tree` as a child of `parent`: its index is derived now, from the parent's, if that is
 * kept (at the cost of what the write changed), so that a read of it, or the next write, finds it. A
 * parent never indexed is left so, as is a tree the parent's cannot be derived into: the first read
 * builds it once, and the writes after it derive. Whether `tree`'s index is now kept.
 */
export function indexWrittenTree(parent: RevisionTree, tree: RevisionTree): boolean {
  if (indexesByTree.has(tree)) return true
  const parentIndex = indexesByTree.get(parent)
  return parentIndex !== undefined && deriveRevisionIndex(parentIndex, tree) !== undefined && indexesByTree.has(tree)
}

/** The index of `tree`, built in full: what every other way to an index must equal. */
export function buildRevisionIndexInFull(tree: RevisionTree): RevisionIndex {
  fullBuilds++
  const entries = new Map<string, Entry>()
  const ids = new Map<string, string>()
  const home = findHomePage(tree.pages)
  let duplicate = false
  const place = (pages: readonly TreePage[], folder: string, names: FolderNames, prefix: string, parent: string | undefined): void => {
    for (const page of pages) {
      const placed = placePage(page, folder, names, home)
      const apiPath = apiPathOf(prefix, page)
      if (entries.has(page.id)) duplicate = true
      entries.set(page.id, { kind: 'page', page, apiPath, parent, ...placed })
      if (placed.gitPath !== undefined) ids.set(placed.gitPath, page.id)
      if (placed.folder !== undefined) place(page.pages, placed.folder, new FolderNames(placed.readme), apiPath, page.id)
    }
  }
  place(tree.pages, '', rootNames(), '', undefined)
  for (const file of tree.files) {
    const gitPath = assetPath(file.name, (path) => ids.has(path))
    if (entries.has(file.id)) duplicate = true
    entries.set(file.id, { kind: 'file', file, gitPath })
    ids.set(gitPath, file.id)
  }
  if (duplicate) return new PlainIndex(tree)
  return new EntryIndex(tree, home, LayeredMap.of(entries), LayeredMap.of(ids))
}

/** Thrown inside a derivation that cannot be exact; the caller builds in full. */
class NotDerivable extends Error {}

/**
 * The index of `tree` derived from `parent`'s by what differs between their trees, or undefined when it
 * cannot be derived exactly (the caller then builds it in full). Equal to `buildRevisionIndexInFull(tree)`.
 * `parent` may be any revision's whose frozen parts `tree` shares (its parent's, an ancestor's several
 * writes back): what differs is what is walked.
 */
export function deriveRevisionIndex(parent: RevisionIndex, tree: RevisionTree): RevisionIndex | undefined {
  const known = indexesByTree.get(tree)
  if (known) return known
  if (!(parent instanceof EntryIndex) || !isDeeplyFrozen(parent.tree) || !isDeeplyFrozen(tree)) return undefined
  if (tree === parent.tree) return parent
  const home = findHomePage(tree.pages)
  // The home page is placed apart (README.md, its subpages beside it): a new one is rare, and built in full.
  if (home?.id !== parent.home?.id) return undefined
  try {
    return kept(tree, new Derivation(parent, tree, home).index())
  } catch (error) {
    if (error instanceof NotDerivable) return undefined
    throw error
  }
}

class Derivation {
  private readonly entries = new Map<string, Entry | undefined>()
  private readonly ids = new Map<string, string | undefined>()
  /** Page ids written by this derivation (present in the new tree outside its unchanged subtrees). */
  private readonly written = new Set<string>()
  /** Pages of the parent whose subpages were placed again (undefined: the root), and their old subpages. */
  private readonly replaced = new Map<string | undefined, readonly TreePage[]>()

  constructor(
    private readonly parent: EntryIndex,
    private readonly tree: RevisionTree,
    private readonly home: TreePage | undefined,
  ) {}

  index(): EntryIndex {
    if (this.tree.pages !== this.parent.tree.pages) this.place(this.tree.pages, '', rootNames(), '', undefined, this.parent.tree.pages)
    this.removeGone()
    this.checkMoves()
    this.placeFiles()
    this.forgetOldPaths()
    return new EntryIndex(this.tree, this.home, this.parent.entries.with(this.entries), this.parent.ids.with(this.ids))
  }

  private old(id: string): Entry | undefined {
    return this.parent.entries.get(id)
  }

  /** Places `pages` (held by `parentId`) again, and below them whatever is not the parent's own subtree, placed alike. */
  private place(pages: readonly TreePage[], folder: string, names: FolderNames, prefix: string, parentId: string | undefined, oldPages: readonly TreePage[]): void {
    this.replaced.set(parentId, oldPages)
    for (const page of pages) {
      if (this.written.has(page.id)) throw new NotDerivable()
      this.written.add(page.id)
      const placed = placePage(page, folder, names, this.home)
      const apiPath = apiPathOf(prefix, page)
      const entry: PageEntry = { kind: 'page', page, apiPath, parent: parentId, ...placed }
      const old = this.old(page.id)
      if (old?.kind === 'file') throw new NotDerivable()
      this.entries.set(page.id, entry)
      if (entry.gitPath !== undefined) this.ids.set(entry.gitPath, page.id)
      // The same frozen page placed in the same folder under the same path: everything below it is as it was.
      const same = old !== undefined && old.page === page && old.folder === entry.folder && old.readme === entry.readme && old.apiPath === apiPath
      if (same) continue
      const oldPages = old?.page.pages ?? []
      if (entry.folder === undefined) this.replaced.set(page.id, oldPages)
      else this.place(page.pages, entry.folder, new FolderNames(entry.readme), apiPath, page.id, oldPages)
    }
  }

  /** Pages held by an array placed again that are nowhere in the new tree, with their subpages. */
  private removeGone(): void {
    const remove = (page: TreePage): void => {
      if (this.written.has(page.id)) return
      this.entries.set(page.id, undefined)
      this.replaced.set(page.id, page.pages)
      for (const child of page.pages) remove(child)
    }
    for (const oldPages of [...this.replaced.values()]) for (const page of oldPages) remove(page)
  }

  /**
   * A page written here that the parent held under a page not placed again would also still be there
   * (that subtree is shared as it was): an id used twice, built in full.
   */
  private checkMoves(): void {
    for (const id of this.written) {
      const old = this.old(id)
      if (old?.kind === 'page' && !this.replaced.has(old.parent)) throw new NotDerivable()
    }
  }

  /** Files appended after the parent's (what insert_files does) are placed; any other change is built in full. */
  private placeFiles(): void {
    const before = this.parent.tree.files
    const after = this.tree.files
    if (after === before) return
    if (after.length < before.length) throw new NotDerivable()
    for (let i = 0; i < before.length; i++) if (after[i] !== before[i]) throw new NotDerivable()
    for (let i = before.length; i < after.length; i++) {
      const file = after[i]
      const known = this.entries.has(file.id) ? this.entries.get(file.id) : this.old(file.id)
      if (known !== undefined || this.written.has(file.id)) throw new NotDerivable()
      const gitPath = assetPath(file.name, (path) => this.idAt(path) !== undefined)
      this.entries.set(file.id, { kind: 'file', file, gitPath })
      this.ids.set(gitPath, file.id)
    }
  }

  private idAt(path: string): string | undefined {
    return this.ids.has(path) ? this.ids.get(path) : this.parent.ids.get(path)
  }

  /** Git paths a page held in the parent and holds no more, unless another page took them. */
  private forgetOldPaths(): void {
    for (const [id, entry] of this.entries) {
      const old = this.old(id)
      if (old?.gitPath === undefined || old.gitPath === entry?.gitPath) continue
      if (!this.ids.has(old.gitPath) || this.ids.get(old.gitPath) === undefined) this.ids.set(old.gitPath, undefined)
    }
  }
}

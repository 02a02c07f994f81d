/**
 * Read-only helpers over a page tree. Pages are addressed by id; "siblings" is
 * the array that holds a page (its parent's `pages`, or the tree's root pages).
 */
import type { RevisionTree, TreePage } from '../types'

export type PageForest = RevisionTree | TreePage[]

export interface PageLocation {
  page: TreePage
  /** Undefined for a root page. */
  parent: TreePage | undefined
  /** The array holding the page. */
  siblings: TreePage[]
  index: number
  /** 0 for root pages. */
  depth: number
}

function rootPages(forest: PageForest): TreePage[] {
  return Array.isArray(forest) ? forest : forest.pages
}

/**
 * Visits every page in document (pre-)order. Return `false` from `visit` to
 * skip a page's subpages.
 */
export function walkPages(forest: PageForest, visit: (location: PageLocation) => boolean | void): void {
  const walk = (siblings: TreePage[], parent: TreePage | undefined, depth: number): void => {
    siblings.forEach((page, index) => {
      if (visit({ page, parent, siblings, index, depth }) !== false) walk(page.pages, page, depth + 1)
    })
  }
  walk(rootPages(forest), undefined, 0)
}

/** All pages in document order. */
export function flattenPages(forest: PageForest): TreePage[] {
  const pages: TreePage[] = []
  walkPages(forest, ({ page }) => {
    pages.push(page)
  })
  return pages
}

/**
 * Indexes from the root pages down to the first page of id `id` in document order, or undefined. Nothing
 * is allocated per page visited: a batch looks up its pages in spaces of thousands.
 */
function pathTo(forest: PageForest, id: string): number[] | undefined {
  const path: number[] = []
  const search = (pages: readonly TreePage[]): boolean => {
    for (let i = 0; i < pages.length; i++) {
      path.push(i)
      if (pages[i].id === id || search(pages[i].pages)) return true
      path.pop()
    }
    return false
  }
  return search(rootPages(forest)) ? path : undefined
}

/** The location at the end of `path`, each page on the way passed to `step` (which may put a copy in its place). */
function followPath(forest: PageForest, path: number[], step: (siblings: TreePage[], index: number) => TreePage): PageLocation {
  let siblings = rootPages(forest)
  let parent: TreePage | undefined
  for (let depth = 0; ; depth++) {
    const index = path[depth]
    const page = step(siblings, index)
    if (depth === path.length - 1) return { page, parent, siblings, index, depth }
    parent = page
    siblings = page.pages
  }
}

export function locatePage(forest: PageForest, id: string): PageLocation | undefined {
  const path = pathTo(forest, id)
  return path && followPath(forest, path, (siblings, index) => siblings[index])
}

/**
 * `locatePage` in a batch's working copy (`copyOnWriteTree`), made writable: the page and every page above
 * it that is still the stored revision's own (frozen) are replaced in their arrays by copies, each with
 * a copy of its `pages`, so that the page's fields, its subpages and its siblings can be changed.
 */
export function locateWritablePage(tree: RevisionTree, id: string): PageLocation | undefined {
  const path = pathTo(tree, id)
  return path && followPath(tree, path, (siblings, index) => (siblings[index] = writable(siblings[index])))
}

/** `page` itself when it can be written, else a copy of it and of its `pages` (sharing the subpages). */
function writable(page: TreePage): TreePage {
  return Object.isFrozen(page) || Object.isFrozen(page.pages) ? { ...page, pages: [...page.pages] } : page
}

/** The pages of the given ids (the last of an id in document order), in one walk that allocates nothing per page. */
export function findPages(forest: PageForest, ids: ReadonlySet<string>): Map<string, TreePage> {
  const found = new Map<string, TreePage>()
  if (ids.size === 0) return found
  const search = (pages: readonly TreePage[]): void => {
    for (const page of pages) {
      if (ids.has(page.id)) found.set(page.id, page)
      search(page.pages)
    }
  }
  search(rootPages(forest))
  return found
}

export function findPage(forest: PageForest, id: string): TreePage | undefined {
  return locatePage(forest, id)?.page
}

/** True when `id` is `page` itself or one of its subpages. */
export function containsPage(page: TreePage, id: string): boolean {
  return page.id === id || page.pages.some((child) => containsPage(child, id))
}

/** Map of page id -> location, for repeated lookups. */
export function indexPages(forest: PageForest): Map<string, PageLocation> {
  const index = new Map<string, PageLocation>()
  walkPages(forest, (location) => {
    index.set(location.page.id, location)
  })
  return index
}

/** Deep copy, so tree operations never mutate their input. */
export function cloneTree(tree: RevisionTree): RevisionTree {
  return structuredClone(tree)
}

/** Objects frozen all the way down (by `deepFreeze` or `frozenCopy`): safe to share between trees. */
const deeplyFrozen = new WeakSet<object>()

/** Freezes `value` and everything it holds: an accidental in-place edit of a stored tree throws instead of corrupting it. */
export function deepFreeze<T>(value: T): T {
  if (value && typeof value === 'object' && !deeplyFrozen.has(value)) {
    for (const child of Object.values(value)) deepFreeze(child)
    Object.freeze(value)
    deeplyFrozen.add(value)
  }
  return value
}

/**
 * A frozen copy of `value` that shares what is deeply frozen already, so copying a tree derived from a
 * stored one costs its changed parts. Properties set to `undefined` are left out, as JSON would.
 */
export function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object' || deeplyFrozen.has(value)) return value
  const copy: object = Array.isArray(value)
    ? value.map((item: unknown) => frozenCopy(item))
    : Object.fromEntries(Object.entries(value).flatMap(([key, item]) => (item === undefined ? [] : [[key, frozenCopy(item)]])))
  Object.freeze(copy)
  deeplyFrozen.add(copy)
  return copy as T
}

/**
 * Whether `value` was frozen all the way down by `deepFreeze` or `frozenCopy` (a stored revision's tree,
 * or any page of it): what is derived from it can be kept by its identity.
 */
export function isDeeplyFrozen(value: object): boolean {
  return deeplyFrozen.has(value)
}

/**
 * A working copy of `tree` that any page of can be written. A deeply frozen tree (a stored revision: the
 * service freezes every tree it hands out) is copied only as deep as a write reaches: the pages (their
 * fields are set in place) and every `pages` and `files` array (spliced), sharing everything below them
 * (metadata, layouts, files), which, being frozen, would throw rather than change should anything write
 * into them. Any other tree is deep-copied, as its owner may still change what it holds.
 */
export function workingCopy(tree: RevisionTree): RevisionTree {
  if (!isDeeplyFrozen(tree)) return cloneTree(tree)
  const copyPages = (pages: readonly TreePage[]): TreePage[] => pages.map((page) => ({ ...page, pages: copyPages(page.pages) }))
  return { ...tree, pages: copyPages(tree.pages), files: [...tree.files] }
}

/**
 * A batch's working copy of `tree` (content/revision/batch.ts), copied as the batch writes it. A deeply
 * frozen tree is copied here only as far as its root `pages` array; a page is copied, with the pages
 * above it, when a change looks it up to write it (`locateWritablePage`), and the `files` when a file is
 * inserted (`writableFiles`). Everything else stays the revision's own and frozen, so that a write around
 * those throws rather than changes the revision. Copying every page of an 800-page space (and comparing
 * each back in `shareUnchanged`) was most of what a small write still spent on the space (issue 16).
 * Any other tree is deep-copied, as its owner may still change what it holds.
 */
export function copyOnWriteTree(tree: RevisionTree): RevisionTree {
  if (!isDeeplyFrozen(tree)) return cloneTree(tree)
  return { ...tree, pages: [...tree.pages], files: tree.files }
}

/**
 * `after` with every page and array equal, field by field, to its counterpart in `before` (by id) put
 * back as `before`'s own object: what a batch did not change stays shared with the revision it came
 * from, so storing the new revision writes only what changed (store/revision-nodes.ts). A pointer
 * comparison per field, no serialization. A page of `after` that is frozen already (one
 * `copyOnWriteTree` never copied) is kept as it is with all below it, so only the pages a batch wrote
 * are compared.
 */
export function shareUnchanged(before: RevisionTree, after: RevisionTree): RevisionTree {
  const written = new Set<string>()
  const collect = (pages: readonly TreePage[]): void => {
    for (const page of pages) {
      if (isDeeplyFrozen(page)) continue
      written.add(page.id)
      collect(page.pages)
    }
  }
  collect(after.pages)
  const old = findPages(before, written)
  const sharePages = (pages: TreePage[], previous: readonly TreePage[] | undefined): TreePage[] => {
    const shared = pages.map((page) => {
      if (isDeeplyFrozen(page)) return page
      const was = old.get(page.id)
      const children = sharePages(page.pages, was?.pages)
      if (!was || children !== was.pages || !sameFields(page, was)) return children === page.pages ? page : { ...page, pages: children }
      return was
    })
    return previous && sameItems(shared, previous) ? (previous as TreePage[]) : shared
  }
  const pages = sharePages(after.pages, before.pages)
  const files = sameItems(after.files, before.files) ? before.files : after.files
  if (pages === before.pages && files === before.files && sameFields(after, before)) return before
  return { ...after, pages, files }
}

function sameItems<T>(a: readonly T[], b: readonly T[]): boolean {
  return a === b || (a.length === b.length && a.every((item, i) => item === b[i]))
}

/** Same own keys with identical values, `pages` and `files` aside (compared by the caller). */
function sameFields(a: object, b: object): boolean {
  const keysA = Object.keys(a).filter((key) => key !== 'pages' && key !== 'files')
  const keysB = Object.keys(b).filter((key) => key !== 'pages' && key !== 'files')
  return keysA.length === keysB.length && keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key])
}

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

export function locatePage(forest: PageForest, id: string): PageLocation | undefined {
  let found: PageLocation | undefined
  walkPages(forest, (location) => {
    if (found) return false
    if (location.page.id === id) found = location
  })
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
 * A batch's working copy of `tree`. A deeply frozen tree (a stored revision: the service freezes every
 * tree it hands out) is copied only as deep as a batch writes: the pages (their fields are set in place) and
 * every `pages` and `files` array (spliced), sharing everything below them (metadata, layouts, files),
 * which, being frozen, would throw rather than change should anything write into them. A deep copy of
 * an 800-page space with 8,000 files was a fifth of a small write's time (issue 16). Any other tree is
 * deep-copied, as its owner may still change what it holds.
 */
export function workingCopy(tree: RevisionTree): RevisionTree {
  if (!isDeeplyFrozen(tree)) return cloneTree(tree)
  const copyPages = (pages: readonly TreePage[]): TreePage[] => pages.map((page) => ({ ...page, pages: copyPages(page.pages) }))
  return { ...tree, pages: copyPages(tree.pages), files: [...tree.files] }
}

/**
 * `after` with every page and array equal, field by field, to its counterpart in `before` (by id) put
 * back as `before`'s own object: what a batch did not change stays shared with the revision it came
 * from, so storing the new revision writes only what changed (store/revision-nodes.ts). A pointer
 * comparison per field, no serialization.
 */
export function shareUnchanged(before: RevisionTree, after: RevisionTree): RevisionTree {
  const old = new Map<string, TreePage>()
  walkPages(before, ({ page }) => {
    old.set(page.id, page)
  })
  const sharePages = (pages: TreePage[], previous: readonly TreePage[] | undefined): TreePage[] => {
    const shared = pages.map((page) => {
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
  return a.length === b.length && a.every((item, i) => item === b[i])
}

/** Same own keys with identical values, `pages` and `files` aside (compared by the caller). */
function sameFields(a: object, b: object): boolean {
  const keysA = Object.keys(a).filter((key) => key !== 'pages' && key !== 'files')
  const keysB = Object.keys(b).filter((key) => key !== 'pages' && key !== 'files')
  return keysA.length === keysB.length && keysA.every((key) => Object.prototype.hasOwnProperty.call(b, key) && (a as Record<string, unknown>)[key] === (b as Record<string, unknown>)[key])
}

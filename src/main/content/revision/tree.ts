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

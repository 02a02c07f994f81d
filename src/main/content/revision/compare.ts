/**
 * Comparing versions of the same page or file across two trees. Shared by
 * diffTrees (what changed) and mergeTrees (which side to take).
 */
import { normalizeMetadata } from '../markdown/front-matter'
import type { TreeFile, TreePage } from '../types'
import { walkPages, type PageForest } from './tree'

export type PageChangeKind = 'type' | 'title' | 'slug' | 'body' | 'metadata' | 'href' | 'parent' | 'position'

/** What differs between two versions of a page, children and timestamps aside. */
export function pageContentChanges(a: TreePage, b: TreePage): PageChangeKind[] {
  const changes: PageChangeKind[] = []
  if (a.type !== b.type) changes.push('type')
  // The table of contents' title (linkTitle) is a title too.
  if (a.title !== b.title || a.linkTitle !== b.linkTitle) changes.push('title')
  if (a.slug !== b.slug) changes.push('slug')
  // The file's own form around the body (blank lines, front matter as written) is part of the document.
  if (a.bodyOid !== b.bodyOid || !sameValue(a.shape, b.shape)) changes.push('body')
  if (!sameValue(normalizeMetadata(a.metadata), normalizeMetadata(b.metadata))) changes.push('metadata')
  if (a.href !== b.href) changes.push('href')
  return changes
}

/** Same page content (as pageContentChanges sees it) and same timestamps. */
export function samePageVersion(a: TreePage, b: TreePage): boolean {
  return pageContentChanges(a, b).length === 0 && a.createdAt === b.createdAt && a.updatedAt === b.updatedAt
}

export function sameFile(a: TreeFile, b: TreeFile): boolean {
  return sameValue({ ...a }, { ...b })
}

/** Deep equality of JSON-like values, ignoring key order and undefined-valued keys. */
export function sameValue(a: unknown, b: unknown): boolean {
  return canonicalJson(a) === canonicalJson(b)
}

function canonicalJson(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) => {
    if (typeof v !== 'object' || v === null || Array.isArray(v)) return v
    return Object.fromEntries(Object.entries(v).sort(([x], [y]) => (x < y ? -1 : x > y ? 1 : 0)))
  })
}

/** Page id -> id of its parent (undefined for root pages). */
export function parentIds(forest: PageForest): Map<string, string | undefined> {
  const parents = new Map<string, string | undefined>()
  walkPages(forest, ({ page, parent }) => {
    parents.set(page.id, parent?.id)
  })
  return parents
}

/**
 * Pages of `other` that changed position among siblings they share with
 * `base` (same parent in both). The pages kept in place are a longest common
 * subsequence of the two sibling orders, so moving one page marks that page
 * only, not every sibling it jumped over.
 */
export function movedPages(base: PageForest, other: PageForest): Set<string> {
  const baseChildren = childLists(base)
  const baseParents = parentIds(base)
  const moved = new Set<string>()
  for (const [parent, children] of childLists(other)) {
    const before = baseChildren.get(parent) ?? []
    const beforeSet = new Set(before)
    const shared = children.filter((id) => beforeSet.has(id) && baseParents.get(id) === parent)
    const sharedSet = new Set(shared)
    const kept = new Set(longestCommonSubsequence(before.filter((id) => sharedSet.has(id)), shared))
    for (const id of shared) if (!kept.has(id)) moved.add(id)
  }
  return moved
}

/** Parent id (undefined = root) -> ordered child ids. */
export function childLists(forest: PageForest): Map<string | undefined, string[]> {
  const lists = new Map<string | undefined, string[]>([[undefined, []]])
  walkPages(forest, ({ page, parent }) => {
    const key = parent?.id
    if (!lists.has(key)) lists.set(key, [])
    lists.get(key)?.push(page.id)
  })
  return lists
}

function longestCommonSubsequence(a: string[], b: string[]): string[] {
  const lengths = Array.from({ length: a.length + 1 }, () => new Array<number>(b.length + 1).fill(0))
  for (let i = a.length - 1; i >= 0; i--) {
    for (let j = b.length - 1; j >= 0; j--) {
      lengths[i][j] = a[i] === b[j] ? lengths[i + 1][j + 1] + 1 : Math.max(lengths[i + 1][j], lengths[i][j + 1])
    }
  }
  const out: string[] = []
  for (let i = 0, j = 0; i < a.length && j < b.length; ) {
    if (a[i] === b[j]) {
      out.push(a[i])
      i++
      j++
    } else if (lengths[i + 1][j] >= lengths[i][j + 1]) i++
    else j++
  }
  return out
}

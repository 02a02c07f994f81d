/**
 * Page files (the markdown Git Sync writes) and their git oids, kept across requests: a page of a
 * revision always reads the same (revisions are immutable), and serializing it means reading its blob,
 * writing front matter and title, and hashing the result. Without this every read of a space's tree
 * redid that for every page, and every read of a page for each page below it (a page's answer carries
 * its children). Bounded by the characters kept; the least recently read go first.
 */
import { isDeeplyFrozen } from '../../../content/revision/tree'
import type { TreePage } from '../../../content/types'

export interface PageFile {
  markdown: string
  oid: string
}

/** Characters of page markdown kept (about twice that in bytes at most). */
const BUDGET_CHARS = 32 * 1024 * 1024

export class PageFileCache {
  private readonly files = new Map<string | number, PageFile>()
  private kept = 0

  constructor(private readonly budget = BUDGET_CHARS) {}

  /**
   * The page file of `page` in `revisionId`, made by `make` the first time. A page of a stored revision
   * is frozen, and a revision written by an edit shares every page the edit did not touch with its
   * parent: such a page is kept by its identity, so a new revision's untouched pages are not made again.
   */
  get(revisionId: string, page: TreePage, make: () => PageFile): PageFile {
    const key = this.key(revisionId, page)
    const known = this.files.get(key)
    if (known) {
      // Most recently read last.
      this.files.delete(key)
      this.files.set(key, known)
      return known
    }
    const file = make()
    if (file.markdown.length > this.budget) return file
    this.files.set(key, file)
    this.kept += file.markdown.length
    for (const [oldest, old] of this.files) {
      if (this.kept <= this.budget) break
      this.files.delete(oldest)
      this.kept -= old.markdown.length
    }
    return file
  }

  /** Whether the page file of `page` in `revisionId` is kept (its recency untouched). */
  has(revisionId: string, page: TreePage): boolean {
    return this.files.has(this.key(revisionId, page))
  }

  private key(revisionId: string, page: TreePage): string | number {
    return isDeeplyFrozen(page) ? pageKey(page) : `${revisionId}\0${page.id}`
  }
}

/** A number per frozen page object, so that the cache holds no page (nor the tree below it) alive. */
const pageKeys = new WeakMap<TreePage, number>()
let lastPageKey = 0

function pageKey(page: TreePage): number {
  let key = pageKeys.get(page)
  if (key === undefined) pageKeys.set(page, (key = ++lastPageKey))
  return key
}

/** The service's one cache (a process serves one store). */
export const pageFiles = new PageFileCache()

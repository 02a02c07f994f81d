/**
 * Lookups over one revision tree that link resolution and search both need: where each page and
 * file sits in Git Sync's layout, each page's slug path and ancestors.
 */
import { computeGitPaths } from '../../content/gitsync/paths'
import type { RevisionTree, TreeFile, TreePage } from '../../content/types'

export interface PageEntry {
  page: TreePage
  /** Ancestors from the top level down to the direct parent (groups included). */
  ancestors: TreePage[]
  /** Slug path, as the API's `Page.path`: the slugs of the ancestors and the page joined by `/`. */
  path: string
  /** File Git Sync writes the page to; documents only. */
  gitPath?: string
}

export class RevisionMap {
  /** In document (pre-)order. */
  readonly pages: PageEntry[] = []
  private readonly pagesById = new Map<string, PageEntry>()
  private readonly pagesByGitPath = new Map<string, PageEntry>()
  private readonly pagesByPath = new Map<string, PageEntry>()
  private readonly filesById = new Map<string, TreeFile>()
  private readonly filesByGitPath = new Map<string, TreeFile>()
  private readonly filesByName = new Map<string, TreeFile>()

  constructor(readonly tree: RevisionTree) {
    const gitPaths = computeGitPaths(tree)
    const walk = (pages: TreePage[], ancestors: TreePage[]): void => {
      for (const page of pages) {
        const path = [...ancestors, page].map((p) => p.slug).join('/')
        const gitPath = gitPaths.get(page.id)
        const entry: PageEntry = gitPath === undefined ? { page, ancestors, path } : { page, ancestors, path, gitPath }
        this.pages.push(entry)
        this.pagesById.set(page.id, entry)
        if (gitPath !== undefined) this.pagesByGitPath.set(gitPath, entry)
        if (!this.pagesByPath.has(path)) this.pagesByPath.set(path, entry)
        walk(page.pages, [...ancestors, page])
      }
    }
    walk(tree.pages, [])
    for (const file of tree.files) {
      this.filesById.set(file.id, file)
      const gitPath = gitPaths.get(file.id)
      if (gitPath !== undefined) this.filesByGitPath.set(gitPath, file)
      // The first file of a name wins, as Git Sync gives it the unsuffixed asset name.
      if (!this.filesByName.has(file.name)) this.filesByName.set(file.name, file)
    }
  }

  page(id: string): PageEntry | undefined {
    return this.pagesById.get(id)
  }

  pageAt(gitPath: string): PageEntry | undefined {
    return this.pagesByGitPath.get(gitPath)
  }

  /** By slug path (`Page.path`); the first page wins should two share one. */
  pageByPath(path: string): PageEntry | undefined {
    return this.pagesByPath.get(path)
  }

  file(id: string): TreeFile | undefined {
    return this.filesById.get(id)
  }

  fileAt(gitPath: string): TreeFile | undefined {
    return this.filesByGitPath.get(gitPath)
  }

  fileNamed(name: string): TreeFile | undefined {
    return this.filesByName.get(name)
  }
}

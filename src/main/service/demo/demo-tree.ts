import path from 'node:path'
import { computeGitPaths } from '../../content/gitsync/paths'
import { slugify } from '../../content/gitsync/slug'
import { gitBlobOid } from '../../content/markdown/blob-oid'
import { normalizeBody } from '../../content/markdown/page-file'
import type { RevisionTree, TreeFile, TreePage } from '../../content/types'

/** What a page body may refer to while it is written: other pages and files by title or name. */
export interface BodyLinks {
  /** Relative path from this page's file to the page titled `title` (throws when there is none). */
  page(title: string): string
  /** Relative path from this page's file to an asset of the space. */
  asset(name: string): string
  /** Relative path to a page that does not exist: the demo's deliberate broken links. */
  missing(relativePath: string): string
}

export interface OutlinePage {
  title: string
  description?: string
  icon?: string
  hidden?: boolean
  body: (links: BodyLinks) => string
  children?: OutlinePage[]
}

export interface OutlineFile {
  name: string
  contentType: string
  bytes: Uint8Array
  dimensions?: { width: number; height: number }
}

export interface DemoContent {
  tree: RevisionTree
  blobs: Map<string, Uint8Array>
}

/**
 * Builds a revision tree from an outline in two passes: first the structure (ids, slugs), so Git Sync
 * paths are known, then the bodies, whose links are relative file paths exactly as Git Sync writes them.
 */
export function buildDemoContent(outline: OutlinePage[], files: OutlineFile[], env: { newId(): string; now: string }): DemoContent {
  const blobs = new Map<string, Uint8Array>()
  const byTitle = new Map<string, TreePage>()
  const bodies = new Map<TreePage, OutlinePage>()

  const treeFiles: TreeFile[] = files.map((f) => {
    const oid = gitBlobOid(f.bytes)
    blobs.set(oid, f.bytes)
    return { id: env.newId(), name: f.name, contentType: f.contentType, size: f.bytes.length, dimensions: f.dimensions, blobOid: oid, createdAt: env.now }
  })

  const toPages = (items: OutlinePage[]): TreePage[] => {
    const used = new Set<string>()
    return items.map((item) => {
      let slug = slugify(item.title)
      for (let n = 2; used.has(slug); n++) slug = `${slugify(item.title)}-${n}`
      used.add(slug)
      const metadata: TreePage['metadata'] = {}
      if (item.description) metadata.description = item.description
      if (item.icon) metadata.icon = item.icon
      if (item.hidden) metadata.hidden = true
      const page: TreePage = {
        id: env.newId(),
        type: 'document',
        title: item.title,
        slug,
        metadata,
        createdAt: env.now,
        updatedAt: env.now,
        pages: toPages(item.children ?? []),
      }
      if (byTitle.has(item.title)) throw new Error(`demo outline repeats the title "${item.title}"`)
      byTitle.set(item.title, page)
      bodies.set(page, item)
      return page
    })
  }

  const tree: RevisionTree = { pages: toPages(outline), files: treeFiles }
  const paths = computeGitPaths(tree)
  const fileByName = new Map(treeFiles.map((f) => [f.name, f]))

  for (const [page, item] of bodies) {
    const from = path.posix.dirname(paths.get(page.id)!)
    const rel = (to: string) => {
      const r = path.posix.relative(from, to)
      return r.includes(' ') ? `<${r}>` : r
    }
    const body = item.body({
      page: (title) => {
        const target = byTitle.get(title)
        if (!target) throw new Error(`demo page "${page.title}" links to unknown page "${title}"`)
        return rel(paths.get(target.id)!)
      },
      asset: (name) => {
        const file = fileByName.get(name)
        if (!file) throw new Error(`demo page "${page.title}" refers to unknown asset "${name}"`)
        return rel(paths.get(file.id)!)
      },
      missing: (relativePath) => relativePath,
    })
    const bytes = new TextEncoder().encode(normalizeBody(body))
    const oid = gitBlobOid(bytes)
    blobs.set(oid, bytes)
    page.bodyOid = oid
  }
  return { tree, blobs }
}

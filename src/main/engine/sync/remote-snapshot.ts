import type { Revision, RevisionFile, RevisionPage } from '@gitbook/api'
import { ASSETS_FOLDER, gitBlobOid, renderSummary, SUMMARY_FILE, type TreePage } from '../../content'
import { SUMMARY_ENTRY_ID, type RemoteFileRow, type RemotePageRow } from '../cache/cache-repository'
import { TEMP_MARK } from '../workspace/atomic-write'
import { FolderNameRegistry } from '../workspace/safe-names'
import type { RemoteEntry, RemoteSnapshot } from './plan-types'
import { PARK_MARK } from './planner'

/**
 * Turns a revision as the service gives it into the files a space folder should hold. Every path from
 * the server is remade safe here (segments sanitized, `..` neutralized, case and Unicode clashes given
 * ` (2)` suffixes per folder), so the planner and executor only ever see confined relative paths.
 * SUMMARY.md is rendered from the tree with those same local paths.
 */
export function buildRemoteSnapshot(revision: Pick<Revision, 'id' | 'pages' | 'files'>): RemoteSnapshot {
  return withSummary(placeRemoteTree(revision))
}

/** The pages and files of a revision at their local paths, and what SUMMARY.md needs; no page content. */
export interface PlacedTree {
  revision: string
  entries: RemoteEntry[]
  outline: TreePage[]
  localPaths: Map<string, string>
}

/**
 * First half of `buildRemoteSnapshot`. Its result holds nothing of the revision's page markdown, so a
 * caller can let the response go before the summary is rendered (a large space's response is tens of
 * megabytes once parsed).
 */
export function placeRemoteTree(revision: Pick<Revision, 'id' | 'pages' | 'files'>): PlacedTree {
  const layout = new LocalLayout()
  const entries: RemoteEntry[] = []
  const localPaths = new Map<string, string>()

  walkPages(revision.pages, (page) => {
    const git = gitOf(page)
    if (!git) return
    const path = layout.place(git.path, `page:${page.id}`)
    localPaths.set(page.id, path)
    entries.push({ id: page.id, kind: 'page', path, oid: git.oid })
  })
  for (const file of revision.files) {
    const git = file.git ?? { path: `${ASSETS_FOLDER}/${file.name}`, oid: '' }
    const path = layout.place(git.path, `file:${file.id}`)
    entries.push({ id: file.id, kind: 'file', path, oid: git.oid, url: file.downloadURL })
  }
  return { revision: revision.id, entries, outline: revision.pages.map(treePage), localPaths }
}

/** Second half of `buildRemoteSnapshot`: SUMMARY.md rendered from the tree with the local paths. */
export function withSummary(placed: PlacedTree): RemoteSnapshot {
  const summary = renderSummary({ pages: placed.outline, files: [] }, placed.localPaths)
  const entry: RemoteEntry = { id: SUMMARY_ENTRY_ID, kind: 'summary', path: SUMMARY_FILE, oid: gitBlobOid(summary), content: summary }
  return { revision: placed.revision, entries: [...placed.entries, entry] }
}

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
    createdAt: '',
    updatedAt: '',
    pages: childrenOf(page).map(treePage),
  }
}

/** Hands out safe, unique relative paths, one name registry per folder. */
class LocalLayout {
  private readonly registries = new Map<string, FolderNameRegistry>()
  private readonly folders = new Map<string, string>()

  constructor() {
    const root = this.registry('')
    root.claim(SUMMARY_FILE, 'entry:summary')
    // Never written, and a page must not take its place either.
    root.claim('.gitbook.yaml', 'reserved')
  }

  place(rawPath: string, owner: string): string {
    const segments = rawPath
      .normalize('NFC')
      .replace(/\\/g, '/')
      .split('/')
      .filter((s) => s !== '' && s !== '.')
    if (segments.length === 0) segments.push(`untitled-${owner.replace(/[^A-Za-z0-9_-]/g, '_')}.md`)
    let folder = ''
    let rawFolder = ''
    for (const segment of segments.slice(0, -1)) {
      rawFolder = `${rawFolder}/${segment}`
      let safe = this.folders.get(rawFolder)
      if (safe === undefined) {
        safe = `${folder}${this.registry(folder).claim(unmarked(segment), `dir:${rawFolder}`)}/`
        this.folders.set(rawFolder, safe)
      }
      folder = safe
    }
    return folder + this.registry(folder).claim(unmarked(segments[segments.length - 1]), owner)
  }

  private registry(folder: string): FolderNameRegistry {
    let registry = this.registries.get(folder)
    if (!registry) this.registries.set(folder, (registry = new FolderNameRegistry()))
    return registry
  }
}

/** A server name must not look like Quire's own temporary files (a pass removes or re-reads those). */
function unmarked(segment: string): string {
  return segment.startsWith(TEMP_MARK) || segment.startsWith(PARK_MARK) ? `_${segment}` : segment
}

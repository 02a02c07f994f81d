import { MAX_FILE_BYTES, README_FILE, SUMMARY_FILE } from '../../content'
import { MAX_PAGE_BYTES } from '../push/push-types'
import { contentKind } from '../workspace/content-names'
import type { GitSyncConfig } from '../../content/gitsync/config'
import type { ImportNote } from './import-notes'
import { summaryNotes, summaryPages } from './summary-structure'

/** A file of the tree to import: path relative to the tree's root, size, git blob id. */
export interface SourceFile {
  path: string
  size: number
  hash: string
}

/** One file to copy into the space folder (`to`, relative to it); `identical` when the folder already holds its bytes. */
export interface CopyStep {
  from: string
  to: string
  size: number
  hash: string
  identical: boolean
}

export interface ImportPlan {
  copies: CopyStep[]
  /** The pages SUMMARY.md lists that the tree has, at their paths in the space folder. */
  pages: string[]
  notes: ImportNote[]
}

export interface ImportPlanInput {
  config: GitSyncConfig
  /** Every regular file under the root (relative to it). */
  files: readonly SourceFile[]
  /** Names the walk did not read (symbolic links, hidden or editors' names), with why. */
  skipped?: ReadonlyArray<{ path: string; reason: string }>
  /** The text of the tree's SUMMARY file (`config.summary`). */
  summary: string
  /** Hashes of the files already in the space folder at the paths the plan copies to (a resumed import). */
  target: ReadonlyMap<string, string>
}

/**
 * What an import copies into the space folder, and what it reports, from the tree's files and its
 * SUMMARY.md (pure). SUMMARY.md decides which `.md` files are pages (Git Sync's reading: LICENSE.md is
 * not one); every file under `.gitbook/assets/` and `.gitbook/includes/` goes, linked or not; the home
 * page and table of contents named by `.gitbook.yaml` become README.md and SUMMARY.md, the names the
 * space folder uses. Everything else is left out, each with its reason.
 */
export function planImport(input: ImportPlanInput): ImportPlan {
  const { config } = input
  const notes: ImportNote[] = [...summaryNotes(input.summary, config.summary)]
  const byPath = new Map(input.files.map((f) => [f.path, f]))
  const listed = summaryPages(input.summary)
  const pageSet = new Set(listed.filter((p) => byPath.has(p)))
  for (const p of listed) if (!byPath.has(p)) notes.push({ kind: 'missing', path: p, reason: `${config.summary} lists ${p} but the tree has no such file; not imported` })

  const copies: CopyStep[] = []
  const pages: string[] = []
  const add = (file: SourceFile, to: string) => copies.push({ from: file.path, to, size: file.size, hash: file.hash, identical: input.target.get(to) === file.hash })
  const renamed = (file: string) => (file === config.readme ? README_FILE : file === config.summary ? SUMMARY_FILE : file)

  for (const file of [...input.files].sort((a, b) => order(a.path, pageSet) - order(b.path, pageSet) || (a.path < b.path ? -1 : 1))) {
    const to = renamed(file.path)
    if (to !== file.path && byPath.has(to)) {
      notes.push({ kind: 'not-content', path: to, reason: `.gitbook.yaml names ${file.path} as ${to === README_FILE ? 'the home page' : 'the table of contents'}, so ${to} is not one; not imported` })
    }
    if (to !== file.path) notes.push({ kind: 'moved', path: file.path, reason: `copied as ${to}, the space folder's name for ${to === README_FILE ? 'the home page' : 'the table of contents'} (.gitbook.yaml's structure is not kept)` })
    if (file.path === config.summary) {
      add(file, SUMMARY_FILE)
      continue
    }
    const kind = contentKind(to)
    if (kind === 'page') {
      if (!pageSet.has(file.path) && file.path !== config.readme) {
        notes.push({ kind: 'not-a-page', path: file.path, reason: `not in ${config.summary}: not a page (Git Sync reads only the files it lists); not imported` })
        continue
      }
      if (file.size > MAX_PAGE_BYTES) {
        notes.push({ kind: 'too-large', path: file.path, reason: `${file.size} bytes, over the ${MAX_PAGE_BYTES}-byte page limit; not imported` })
        continue
      }
      add(file, to)
      pages.push(to)
      continue
    }
    if (kind === 'asset' || kind === 'include') {
      if (kind === 'asset' && file.size > MAX_FILE_BYTES) notes.push({ kind: 'too-large', path: file.path, reason: `${file.size} bytes, over the service's ${MAX_FILE_BYTES}-byte upload limit; copied, not uploaded` })
      add(file, to)
      continue
    }
    if (to === CONFIG_NAME) continue // read for root and structure; nothing of the space
    notes.push({ kind: 'not-content', path: file.path, reason: notContentReason(file.path) })
  }
  for (const s of input.skipped ?? []) notes.push({ kind: 'skipped', path: s.path, reason: `${s.reason}; not imported` })
  return { copies, pages, notes }
}

const CONFIG_NAME = '.gitbook.yaml'

/** Pages first in SUMMARY.md's order, then the rest: a killed copy leaves the pages a resumed one needs least work on. */
function order(path: string, pages: ReadonlySet<string>): number {
  return pages.has(path) ? 0 : 1
}

function notContentReason(path: string): string {
  if (path.startsWith('.gitbook/')) return 'a Git Sync file the content API has no place for (only .gitbook/assets/ and .gitbook/includes/ are content); not imported'
  return 'not a page (.md) nor under .gitbook/assets/ or .gitbook/includes/: not space content; not imported'
}

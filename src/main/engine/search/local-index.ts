import fs from 'node:fs'
import path from 'node:path'
import { searchText } from '../../content/markdown/search-text'
import { MATCH_CLOSE, MATCH_OPEN, type IndexHit, type SearchIndexTable } from '../cache/search-index'
import { contentKind, folderReason } from '../workspace/content-names'
import { isSettled, statSignature } from '../workspace/stat-first'
import { ftsExpression } from './query-syntax'
import type { SearchSnippetPart } from '../../../shared/contract'

/** A space folder the index covers. */
export interface IndexedSpace {
  spaceId: string
  /** Absolute. */
  folder: string
}

/** A piece of a snippet: text of the file, a match or not (the contract's type: results cross to the renderer as they are). */
export type SnippetPart = SearchSnippetPart

/** One file found in the index: where (relative path, absolute file, 1-based line) and the line's text around the match. */
export interface LocalHit {
  spaceId: string
  path: string
  file: string
  line: number
  title: string
  snippet: SnippetPart[]
  /** bm25 (lower is better). */
  rank: number
}

/** What a refresh did. */
export interface RefreshCounts {
  read: number
  removed: number
  unchanged: number
}

/** Files larger than this are not pages a writer searches (a generated dump): left out of the index. */
const MAX_INDEXED_BYTES = 4 * 1024 * 1024
/** Characters of a snippet, around its line's first match. */
const SNIPPET_CHARS = 160

/** Whether a space folder's file at `relative` is a page the index holds (SUMMARY.md is the table of contents, every title again). */
export function isIndexedPage(relative: string): boolean {
  return relative !== 'SUMMARY.md' && !relative.startsWith('.gitbook/') && contentKind(relative) === 'page'
}

/**
 * The client cache's full-text index over the page files of the space folders, read from the files as
 * they are (the mirrored pages and the writer's unsent edits alike). A file is read again only when
 * its stat differs from the one it had when it was read (workspace/stat-first.ts's rule, racily clean
 * files included), so `refresh` before a query costs a stat a file and keeps the index true to the folder.
 */
export class LocalSearchIndex {
  constructor(private readonly table: SearchIndexTable) {}

  /** Brings a space's rows to its folder as it is now: changed files read again, gone ones removed, new ones added. */
  refresh(space: IndexedSpace): RefreshCounts {
    const counts: RefreshCounts = { read: 0, removed: 0, unchanged: 0 }
    const known = this.table.stats(space.spaceId)
    const seen = new Set<string>()
    const now = BigInt(Date.now()) * 1_000_000n
    this.table.transaction(() => {
      for (const relative of pageFiles(space.folder)) {
        seen.add(relative)
        const outcome = this.indexFile(space, relative, known.get(relative), now)
        if (outcome === 'unchanged') counts.unchanged++
        else if (outcome === 'read') counts.read++
      }
      for (const relative of known.keys()) {
        if (seen.has(relative)) continue
        this.table.remove(space.spaceId, relative)
        counts.removed++
      }
    })
    return counts
  }

  /** The files at `paths` changed (a watcher's burst, a write the session knows of): each read again or removed. */
  update(space: IndexedSpace, paths: readonly string[]): void {
    const now = BigInt(Date.now()) * 1_000_000n
    // Row by row: a burst names a few files of a space that may have 100,000.
    this.table.transaction(() => {
      for (const relative of paths) if (isIndexedPage(relative)) this.indexFile(space, relative, this.table.stat(space.spaceId, relative), now)
    })
  }

  /** The best `limit` files of `spaces` for a writer's query (EmptyQueryError when it has no word). */
  query(query: string, spaces: readonly IndexedSpace[], options: { limit?: number; prefixLast?: boolean } = {}): LocalHit[] {
    const expression = ftsExpression(query, { prefixLast: options.prefixLast })
    const folders = new Map(spaces.map((s) => [s.spaceId, s.folder]))
    return this.table.query(expression, [...folders.keys()], options.limit ?? 20).map((hit) => localHit(hit, folders.get(hit.spaceId)!))
  }

  /** Reads (or drops) one file unless its stat is the one indexed; 'unchanged', 'read' or 'removed'. */
  private indexFile(space: IndexedSpace, relative: string, indexedStat: string | undefined, now: bigint): 'unchanged' | 'read' | 'removed' {
    const full = path.join(space.folder, ...relative.split('/'))
    const stat = fs.statSync(full, { bigint: true, throwIfNoEntry: false })
    if (!stat || !stat.isFile() || stat.size > BigInt(MAX_INDEXED_BYTES)) {
      if (indexedStat !== undefined) this.table.remove(space.spaceId, relative)
      return 'removed'
    }
    const signature = statSignature(stat)
    if (indexedStat === signature) return 'unchanged'
    let source: string
    try {
      source = fs.readFileSync(full, 'utf8')
    } catch {
      // Gone between the stat and the read: the next refresh sees it gone.
      if (indexedStat !== undefined) this.table.remove(space.spaceId, relative)
      return 'removed'
    }
    const text = searchText(source)
    // A file changed within the last tick may change again with the same stat: not vouched for, read next time.
    const after = fs.statSync(full, { bigint: true, throwIfNoEntry: false })
    const vouched = after !== undefined && statSignature(after) === signature && isSettled(stat, now)
    const title = text.title ?? path.posix.basename(relative, path.posix.extname(relative))
    this.table.put(space.spaceId, relative, vouched ? signature : '', { title, headings: text.headings, body: text.body })
    return 'read'
  }
}

/** The page files of a space folder, relative with `/`, in the folders content may be in. */
function pageFiles(folder: string): string[] {
  const out: string[] = []
  const walk = (relative: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(relative === '' ? folder : path.join(folder, ...relative.split('/')), { withFileTypes: true })
    } catch {
      return // gone while walking, or not a folder: nothing to index there
    }
    for (const entry of entries) {
      const child = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        if (folderReason(child) === undefined && child !== '.gitbook') walk(child)
      } else if (entry.isFile() && isIndexedPage(child)) out.push(child)
    }
  }
  walk('')
  return out
}

/** The hit's line: the one with the most matches (the first of those), and its text around the first. */
function localHit(hit: IndexHit, folder: string): LocalHit {
  const lines = hit.marked.split('\n')
  let best = 0
  let most = -1
  lines.forEach((line, i) => {
    const count = line.split(MATCH_OPEN).length - 1
    if (count > most) {
      most = count
      best = i
    }
  })
  return {
    spaceId: hit.spaceId,
    path: hit.path,
    file: path.join(folder, ...hit.path.split('/')),
    line: best + 1,
    title: hit.title,
    snippet: snippetOf(lines[best]),
    rank: hit.rank,
  }
}

/** A marked line cut to about SNIPPET_CHARS around its first match, in parts. */
export function snippetOf(marked: string): SnippetPart[] {
  const first = Math.max(0, marked.indexOf(MATCH_OPEN))
  const start = Math.max(0, first - SNIPPET_CHARS / 3)
  let text = marked.slice(start, start + SNIPPET_CHARS)
  // A cut inside a match leaves its open mark without a close: the match is closed where the cut is.
  if (text.lastIndexOf(MATCH_OPEN) > text.lastIndexOf(MATCH_CLOSE)) text += MATCH_CLOSE
  const parts: SnippetPart[] = []
  if (start > 0) parts.push({ text: '…' })
  for (const [i, piece] of text.split(MATCH_OPEN).entries()) {
    if (i === 0) {
      if (piece) parts.push({ text: piece })
      continue
    }
    const [match, rest = ''] = piece.split(MATCH_CLOSE)
    if (match) parts.push({ text: match, match: true })
    if (rest) parts.push({ text: rest })
  }
  if (start + SNIPPET_CHARS < marked.length) parts.push({ text: '…' })
  return parts
}

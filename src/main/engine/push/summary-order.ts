import { parseSummary, type SummaryEntry } from '../../content'

/**
 * Where SUMMARY.md lists a page, as the push planner uses it to place new pages (Git Sync's reading:
 * indentation is nesting, the order of entries is the order of pages, `## Group` headings open groups,
 * a `***` separator ends the current group).
 *
 * Groups are not pages: the content API cannot create one (insert_page makes documents only), so the
 * pages of a group are top-level entries that remember their group's title. Their `before` runs across
 * groups, so a group's first page is placed after the pages listed above it, never at the top.
 */
export interface SummaryPlace {
  /** Path of the parent page's file, or '' for the top level (a group's own pages included). */
  parent: string
  /** Paths listed before this one under the same parent, in order (at the top level: across groups). */
  before: string[]
  /** Title of the `##` group it is listed in (top-level entries only). */
  group?: string
  /** The entry's link text: the page's title where its file has no H1. */
  title: string
  /** Position among all of SUMMARY.md's page entries. */
  index: number
}

/** A SUMMARY.md link target as a folder path: no `./`, URI-decoded, no angle brackets. */
export const normalizeSummaryPath = (path: string) => {
  let p = path.replace(/^\.\//, '')
  try {
    p = decodeURI(p)
  } catch {
    // keep as written
  }
  return p.replace(/^<|>$/g, '')
}

/** A top-level thematic break (`***`, `---`, `___`, spaced or not): Git Sync's end of a group. */
const SEPARATOR = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/

/** SUMMARY.md cut at its separators: each part after the first starts outside any group. */
function partsOf(text: string): string[] {
  const parts: string[] = []
  let current: string[] = []
  let fence: string | undefined
  for (const line of text.split(/\r?\n/)) {
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(line)?.[1]
    if (opener && (fence === undefined || opener.startsWith(fence))) fence = fence === undefined ? opener : undefined
    if (fence === undefined && SEPARATOR.test(line)) {
      parts.push(current.join('\n'))
      current = []
    } else current.push(line)
  }
  parts.push(current.join('\n'))
  return parts
}

/** The last SUMMARY.md read and its places: a plan after a save of a page finds the same text (one compare). */
let lastPlaces: { text: string; places: ReadonlyMap<string, SummaryPlace> } | undefined

/**
 * Paths of SUMMARY.md's page entries with their place; a SUMMARY.md that does not parse gives none.
 * Kept for the last text read: a 20,000-page SUMMARY.md is not read again for every plan.
 */
export function summaryPlaces(text: string | undefined): ReadonlyMap<string, SummaryPlace> {
  if (text === undefined) return new Map()
  if (lastPlaces?.text === text) return lastPlaces.places
  const places = readPlaces(text)
  lastPlaces = { text, places }
  return places
}

function readPlaces(text: string): Map<string, SummaryPlace> {
  const places = new Map<string, SummaryPlace>()
  let parts: SummaryEntry[][]
  try {
    parts = partsOf(text).map((part) => parseSummary(part))
  } catch {
    return places
  }
  const topLevel: string[] = []
  const visit = (list: SummaryEntry[], parent: string, before: string[], group: string | undefined) => {
    for (const entry of list) {
      if (entry.kind === 'group') {
        // Git Sync writes `## Title <a href="#id" id="id"></a>`: the anchor is no part of the title.
        visit(entry.children, parent, before, entry.title.replace(/<a\b[^>]*>\s*<\/a>/gi, '').trim())
        continue
      }
      if (entry.kind === 'page' && entry.path) {
        const path = normalizeSummaryPath(entry.path)
        if (!places.has(path)) places.set(path, { parent, before: [...before], ...(group !== undefined ? { group } : {}), title: entry.title, index: places.size })
        before.push(path)
        visit(entry.children, path, [], undefined)
      } else {
        // A link entry or one without a target: its subpages are listed at its own level.
        visit(entry.children, parent, before, group)
      }
    }
  }
  for (const entries of parts) visit(entries, '', topLevel, undefined)
  return places
}

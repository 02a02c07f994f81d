import { parseSummary, type SummaryEntry } from '../../content'
import { normalizeSummaryPath } from './summary-order'

/**
 * A SUMMARY.md read as the page tree it describes, in the handles the push planner knows pages by (ids,
 * and refs of pages this plan inserts): who is under whom, in which order, with which entry title, and
 * on which line. Groups are items of the top level like pages (`## Title` of a group main has), their
 * entries their children. Pure.
 */
export interface Outline {
  /** Handle -> parent handle ('' for the top level). */
  parent: Map<string, string>
  /** Parent handle ('' top level) -> its children in order. */
  children: Map<string, string[]>
  /** Handle -> the entry's link text. */
  title: Map<string, string>
  /** Handle -> 1-based line of its entry (when found). */
  line: Map<string, number>
}

/** A line of SUMMARY.md that shapes the tree without naming a page: a group heading, a separator, a link entry. */
export interface StructureLine {
  key: string
  line: number
  text: string
}

export const emptyOutline = (): Outline => ({ parent: new Map(), children: new Map(), title: new Map(), line: new Map() })

export function addTo(o: Outline, handle: string, parent: string, at?: number) {
  o.parent.set(handle, parent)
  const list = o.children.get(parent) ?? []
  list.splice(at ?? list.length, 0, handle)
  o.children.set(parent, list)
}

export function removeFrom(o: Outline, handle: string): number {
  const list = o.children.get(o.parent.get(handle) ?? '') ?? []
  const i = list.indexOf(handle)
  if (i >= 0) list.splice(i, 1)
  o.parent.delete(handle)
  return i
}

export function cloneOutline(o: Outline): Outline {
  return { parent: new Map(o.parent), children: new Map([...o.children].map(([k, v]) => [k, [...v]])), title: new Map(o.title), line: new Map(o.line) }
}

/** A group heading's title without the `<a id>` anchor Git Sync writes after it. */
export const groupTitle = (title: string) => title.replace(/<a\b[^>]*>\s*<\/a>/gi, '').trim()

const SEPARATOR = /^ {0,3}(?:(?:\*[ \t]*){3,}|(?:-[ \t]*){3,}|(?:_[ \t]*){3,})$/
const HEADING = /^ {0,3}#{2,6}[ \t]+(.*?)[ \t#]*$/
const ENTRY = /^\s*[*+-][ \t]+\[((?:[^\]\\]|\\.)*)\]\(\s*(<[^>]*>|[^)\s]*)/

/**
 * The lines of SUMMARY.md outside code fences: group headings (`h:<title>`), separators (`sep`), entries
 * linking a URL (`url:<href>`), and the line of each entry linking a path.
 */
export function scanLines(text: string): { structure: StructureLine[]; entryLines: Map<string, number> } {
  const structure: StructureLine[] = []
  const entryLines = new Map<string, number>()
  let fence: string | undefined
  text.split(/\r?\n/).forEach((raw, i) => {
    const line = i + 1
    const opener = /^ {0,3}(`{3,}|~{3,})/.exec(raw)?.[1]
    if (opener && (fence === undefined || opener.startsWith(fence))) {
      fence = fence === undefined ? opener : undefined
      return
    }
    if (fence !== undefined) return
    const heading = HEADING.exec(raw)
    if (heading) return structure.push({ key: `h:${groupTitle(heading[1])}`, line, text: raw.trim() })
    if (SEPARATOR.test(raw)) return structure.push({ key: 'sep', line, text: raw.trim() })
    const entry = ENTRY.exec(raw)
    if (!entry) return
    const target = entry[2]
    if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) structure.push({ key: `url:${target}`, line, text: raw.trim() })
    else if (target !== '') {
      const path = normalizeSummaryPath(target)
      if (!entryLines.has(path)) entryLines.set(path, line)
    }
  })
  return { structure, entryLines }
}

/**
 * The outline SUMMARY.md gives the pages `handleOf` knows. An entry whose path names no page is left
 * out, its subentries taking its place; a `## Group` heading `groupOf` does not know is read as if it
 * were not there (its entries stay in the group or top level above it): creating it is no edit the
 * content API can send, reported apart. Undefined when SUMMARY.md does not parse.
 */
export function outlineOf(text: string, handleOf: (path: string) => string | undefined, groupOf: (title: string) => string | undefined): Outline | undefined {
  let entries: SummaryEntry[]
  try {
    entries = parseSummary(text)
  } catch {
    return undefined
  }
  const { entryLines } = scanLines(text)
  const o = emptyOutline()
  const visit = (list: SummaryEntry[], parent: string) => {
    for (const entry of list) {
      const path = entry.kind === 'page' && entry.path ? normalizeSummaryPath(entry.path) : undefined
      const handle = path === undefined || path.includes('#') ? undefined : handleOf(path)
      if (handle === undefined || o.parent.has(handle)) {
        visit(entry.children, parent)
        continue
      }
      addTo(o, handle, parent)
      o.title.set(handle, entry.title)
      const line = entryLines.get(path!)
      if (line !== undefined) o.line.set(handle, line)
      visit(entry.children, handle)
    }
  }
  // Top-level pages after a separator are top-level pages; an unknown group keeps the container above it.
  let container = ''
  for (const entry of entries) {
    if (entry.kind !== 'group') {
      container = ''
      visit([entry], '')
      continue
    }
    const group = groupOf(groupTitle(entry.title))
    if (group !== undefined && !o.parent.has(group)) {
      addTo(o, group, '')
      o.title.set(group, groupTitle(entry.title))
      container = group
    }
    visit(entry.children, container)
  }
  return o
}

/** Items of `a` that are not matched, in order, by `b` (a longest common subsequence of keys). */
export function unmatched<T extends { key: string }>(a: readonly T[], b: readonly string[]): T[] {
  const n = a.length
  const m = b.length
  const table: number[][] = Array.from({ length: n + 1 }, () => new Array<number>(m + 1).fill(0))
  for (let i = n - 1; i >= 0; i--) for (let j = m - 1; j >= 0; j--) table[i][j] = a[i].key === b[j] ? table[i + 1][j + 1] + 1 : Math.max(table[i + 1][j], table[i][j + 1])
  const out: T[] = []
  let i = 0
  let j = 0
  while (i < n) {
    if (j < m && a[i].key === b[j]) {
      i++
      j++
    } else if (j < m && table[i][j + 1] >= table[i + 1][j]) j++
    else out.push(a[i++])
  }
  return out
}

import { parseSummary, type SummaryEntry } from '../../content'

/** Where SUMMARY.md lists a page: under which entry, and which pages it lists before it there. */
export interface SummaryPlace {
  /** Path of the parent page's file, or `group:<title>` for a `##` section, or '' for the top level. */
  parent: string
  /** Paths listed before this one under the same parent, in order. */
  before: string[]
}

const normalize = (path: string) => {
  let p = path.replace(/^\.\//, '')
  try {
    p = decodeURI(p)
  } catch {
    // keep as written
  }
  return p.replace(/^<|>$/g, '')
}

/** Paths of SUMMARY.md's page entries with their place; a SUMMARY.md that does not parse gives none. */
export function summaryPlaces(text: string | undefined): Map<string, SummaryPlace> {
  const places = new Map<string, SummaryPlace>()
  if (text === undefined) return places
  let entries: SummaryEntry[]
  try {
    entries = parseSummary(text)
  } catch {
    return places
  }
  const visit = (list: SummaryEntry[], parent: string) => {
    const before: string[] = []
    for (const entry of list) {
      if (entry.kind === 'group') {
        visit(entry.children, `group:${entry.title}`)
        continue
      }
      if (entry.kind === 'page' && entry.path) {
        const path = normalize(entry.path)
        if (!places.has(path)) places.set(path, { parent, before: [...before] })
        before.push(path)
        visit(entry.children, path)
      } else {
        visit(entry.children, parent)
      }
    }
  }
  visit(entries, '')
  return places
}

import type { PageSummary } from '../../shared/contract'
import type { RemotePageRow } from '../engine'

/**
 * The space's pages as the last pass stored them, in tree order with each page's depth: offline, the
 * comment screen's page picker shows the same tree as online (LocalFiles.listPages), not a flat list.
 * As online, groups and links are not pages to pick, and a group's pages stay at the group's depth.
 */
export function cachedPageTree(rows: RemotePageRow[], pathOf: (row: RemotePageRow) => string | undefined): PageSummary[] {
  const children = new Map<string | undefined, RemotePageRow[]>()
  const ids = new Set(rows.map((row) => row.id))
  for (const row of rows) {
    // A parent the cache no longer has (should not happen) puts the page at the top rather than losing it.
    const parent = row.parentId && ids.has(row.parentId) ? row.parentId : undefined
    const siblings = children.get(parent)
    if (siblings) siblings.push(row)
    else children.set(parent, [row])
  }
  const out: PageSummary[] = []
  const seen = new Set<string>()
  const visit = (parent: string | undefined, depth: number) => {
    const list = (children.get(parent) ?? []).sort((a, b) => a.position - b.position)
    for (const row of list) {
      if (seen.has(row.id)) continue // a cycle in a damaged cache ends here
      seen.add(row.id)
      const document = row.kind === 'document'
      if (document) {
        const path = pathOf(row)
        out.push({ id: row.id, title: row.title, ...(path ? { path } : {}), depth })
      }
      visit(row.id, document ? depth + 1 : depth)
    }
  }
  visit(undefined, 0)
  return out
}

import { parseSummary, type SummaryEntry } from '../../content'
import { parseMarkdownTree, plainText } from '../../content/markdown/syntax-tree'
import type { ImportNote } from './import-notes'

/** The pages SUMMARY.md lists, in its order: paths relative to the tree's root, anchors and URL entries left out. */
export function summaryPages(summary: string): string[] {
  const pages: string[] = []
  const visit = (entries: SummaryEntry[]) => {
    for (const entry of entries) {
      if (entry.kind === 'page' && entry.path && !entry.path.includes('#') && !pages.includes(entry.path)) pages.push(entry.path)
      visit(entry.children)
    }
  }
  visit(parseSummary(summary))
  return pages
}

/**
 * What of SUMMARY.md the content API cannot represent: `## Group` headings (their pages go to the top
 * level), `***` separators, URL entries and section (anchor) entries. Pure: one note per thing, named
 * so a reader finds it in the file.
 */
export function summaryNotes(summary: string, summaryPath: string): ImportNote[] {
  const notes: ImportNote[] = []
  const count = (entries: SummaryEntry[]): number => entries.reduce((n, e) => n + (e.kind === 'page' && e.path && !e.path.includes('#') ? 1 : 0) + count(e.children), 0)
  const visit = (entries: SummaryEntry[]) => {
    for (const entry of entries) {
      if (entry.kind === 'group') {
        const pages = count(entry.children)
        notes.push({
          kind: 'group',
          path: summaryPath,
          reason: `group "${groupTitle(entry.title)}": the content API cannot create groups; its ${pages === 1 ? 'page goes' : `${pages} pages go`} to the top level in order`,
        })
      } else if (entry.kind === 'link') {
        notes.push({ kind: 'link-entry', path: summaryPath, reason: `entry "${entry.title}" (${entry.href}): the content API cannot create link pages; not imported` })
      } else if (entry.path?.includes('#')) {
        notes.push({ kind: 'anchor-entry', path: summaryPath, reason: `entry "${entry.title}" (${entry.path}) links a section of a page, not a page; not imported` })
      } else if (!entry.path) {
        notes.push({ kind: 'missing', path: summaryPath, reason: `entry "${entry.title}" links to no file; not imported` })
      }
      visit(entry.children)
    }
  }
  visit(parseSummary(summary))
  notes.push(...separatorNotes(summary, summaryPath))
  return notes
}

/** A group heading's Git Sync anchor (`<a href="#x" id="x"></a>Title`) is no part of its title. */
function groupTitle(title: string): string {
  return title.replace(/<a\b[^>]*>\s*<\/a>/gi, '').trim()
}

/** Each `***` (thematic break) between the lists of SUMMARY.md, named by the heading or entry after it. */
function separatorNotes(summary: string, summaryPath: string): ImportNote[] {
  const notes: ImportNote[] = []
  const blocks = parseMarkdownTree(summary).children
  blocks.forEach((block, i) => {
    if (block.type !== 'thematicBreak') return
    const next = blocks[i + 1]
    const line = block.position?.start.line
    // The heading after it, or the first entry of the list after it.
    const first = next?.type === 'list' ? next.children[0]?.children[0] : next
    const after = first ? groupTitle(plainText(first).trim()) : ''
    notes.push({
      kind: 'separator',
      path: summaryPath,
      reason: `separator${line ? ` at line ${line}` : ''}${after ? ` (before "${after}")` : ''}: the content model has no separators; the pages after it follow on`,
    })
  })
  return notes
}

/** The group (`## Title`) each page of SUMMARY.md is listed under, by path. */
export function summaryGroups(summary: string): Map<string, string> {
  const groups = new Map<string, string>()
  const visit = (entries: SummaryEntry[], group: string | undefined) => {
    for (const entry of entries) {
      if (entry.kind === 'group') visit(entry.children, groupTitle(entry.title))
      else {
        if (group && entry.path && !entry.path.includes('#')) groups.set(entry.path, group)
        visit(entry.children, group)
      }
    }
  }
  visit(parseSummary(summary), undefined)
  return groups
}

/**
 * SUMMARY.md, the table of contents Git Sync writes next to the pages:
 *
 *   # Table of contents
 *
 *   * [Home](README.md)
 *   * [Guide](guide/README.md)
 *     * [Install](guide/install.md)
 *   * [Status page](https://status.example.com)
 *
 *   ## Reference
 *
 *   * [API](reference/api.md)
 *
 *   ***
 *
 *   * [Changelog](changelog.md)
 *
 * Every page is listed, hidden ones too. Top-level groups are `## Title`
 * sections; link pages are entries pointing at their URL; a `***` separator
 * ends a group, so root pages that follow one stay root pages (as Git Sync
 * writes and reads it).
 */
import type { List, ListItem, Nodes } from 'mdast'
import { escapeInlineText } from '../markdown/inline-text'
import { parseMarkdownTree, plainText, visitNodes } from '../markdown/syntax-tree'
import type { RevisionTree, TreePage } from '../types'
import { slugify } from './slug'
import { readSummaryLines } from './summary-lines'

export interface SummaryEntry {
  kind: 'page' | 'link' | 'group'
  title: string
  /** Page file path as written (pages only; absent for an entry without a link). */
  path?: string
  /** Target URL (link pages only). */
  href?: string
  /** Subpages, or a group's pages. */
  children: SummaryEntry[]
  /** A group's slug, from the `<a id>` anchor Git Sync writes after its title when the slug is not the title's. */
  slug?: string
  /** The page's title in the table of contents when it differs from its own (`[Title](path "Link title")`). */
  linkTitle?: string
}

const HEADER = '# Table of contents'
/** What Git Sync writes between a group and the root pages after it. */
const SEPARATOR = '***'

/**
 * Renders SUMMARY.md for `tree` using `paths` from `computeGitPaths`.
 * A group below the top level cannot be a `##` section; its pages are listed
 * in its place instead. Root pages that follow a group are written after a
 * `***` separator, Git Sync's end of a group.
 */
export function renderSummary(tree: RevisionTree, paths: Map<string, string>): string {
  const sections: string[][] = [[HEADER]]
  let current: string[] = []
  sections.push(current)

  const list = (pages: TreePage[], depth: number, lines: string[]): void => {
    for (const page of pages) {
      if (page.type === 'group') {
        list(page.pages, depth, lines)
        continue
      }
      const target = page.type === 'link' ? (page.href ?? '') : (paths.get(page.id) ?? '')
      const linkTitle = page.linkTitle ? ` "${page.linkTitle.replace(/["\\]/g, (c) => `\\${c}`)}"` : ''
      lines.push(`${'  '.repeat(depth)}* [${labelSource(page.title)}](${destinationSource(target)}${linkTitle})`)
      list(page.pages, depth + 1, lines)
    }
  }

  let inGroup = false
  for (const page of tree.pages) {
    if (page.type === 'group') {
      sections.push([`## ${headingSource(page.title)}${groupAnchor(page)}`])
      current = []
      sections.push(current)
      list(page.pages, 0, current)
      inGroup = true
    } else {
      if (inGroup) {
        sections.push([SEPARATOR])
        current = []
        sections.push(current)
        inGroup = false
      }
      list([page], 0, current)
    }
  }
  return `${sections
    .filter((lines) => lines.length > 0)
    .map((lines) => lines.join('\n'))
    .join('\n\n')}\n`
}

/**
 * Reads a SUMMARY.md (ours or hand-written) into its ordered entries. `#`
 * headings are the file's title; `##` and deeper headings open a group that
 * holds the following lists, until a top-level `***` (any thematic break)
 * ends it. Paths are returned as written, minus `./` and percent-encoding. Read line by line where every
 * line is one the line reader knows (what Git Sync writes), through the markdown parser otherwise.
 */
export function parseSummary(text: string): SummaryEntry[] {
  summaryReads.count++
  return readSummaryLines(text) ?? parseSummaryTree(text)
}

/** How many times SUMMARY.md was read (`parseSummary`), for the tests that an unchanged plan reads none. */
export const summaryReads = { count: 0 }

/** `parseSummary` through the full markdown parser: what the line reader (summary-lines.ts) must equal. */
export function parseSummaryTree(text: string): SummaryEntry[] {
  const entries: SummaryEntry[] = []
  let container = entries
  for (const block of parseMarkdownTree(text).children) {
    if (block.type === 'heading' && block.depth >= 2) {
      const html = block.children.filter((node) => node.type === 'html').map((node) => node.value).join('')
      const slug = /\bid="([^"]+)"/.exec(html)?.[1]
      const title = block.children.filter((node) => node.type !== 'html').map((node) => plainText(node)).join('').trim()
      const group: SummaryEntry = { kind: 'group', title, children: [], ...(slug ? { slug } : {}) }
      entries.push(group)
      container = group.children
    } else if (block.type === 'thematicBreak') {
      container = entries
    } else if (block.type === 'list') {
      container.push(...listEntries(block))
    }
  }
  return entries
}

function listEntries(list: List): SummaryEntry[] {
  return list.children.map((item) => itemEntry(item))
}

function itemEntry(item: ListItem): SummaryEntry {
  const children: SummaryEntry[] = []
  let entry: SummaryEntry | undefined
  for (const block of item.children) {
    if (block.type === 'list') children.push(...listEntries(block))
    else if (!entry) entry = entryOf(block)
  }
  return { ...(entry ?? { kind: 'page', title: '' }), children }
}

function entryOf(block: Nodes): SummaryEntry {
  let link: { url: string; title: string; linkTitle?: string } | undefined
  visitNodes(block, (node) => {
    if (!link && node.type === 'link') link = { url: node.url, title: plainText(node).trim(), ...(node.title ? { linkTitle: node.title } : {}) }
  })
  if (!link) return { kind: 'page', title: plainText(block).trim(), children: [] }
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.url) || link.url.startsWith('//')) {
    return { kind: 'link', title: link.title, href: link.url, children: [] }
  }
  return { kind: 'page', title: link.title, path: decodePath(link.url), children: [], ...(link.linkTitle ? { linkTitle: link.linkTitle } : {}) }
}

/**
 * Git Sync names a group's folder by its slug and, where that is not the slug of its title, writes the
 * slug as an anchor after the title (`## Get Started <a href="#getting-started" id="getting-started"></a>`).
 */
function groupAnchor(group: TreePage): string {
  const slug = group.slug
  if (!slug || slug === slugify(group.title) || !/^[^\s"<>]+$/.test(slug)) return ''
  return ` <a href="#${slug}" id="${slug}"></a>`
}

function decodePath(url: string): string {
  const path = url.replace(/^\.\//, '')
  try {
    return decodeURIComponent(path)
  } catch {
    return path
  }
}

function labelSource(title: string): string {
  return escapeInlineText(title, (text) => `* [${text}](x)`, (root) => {
    let label: string | undefined
    visitNodes(root, (node) => {
      if (label === undefined && node.type === 'link') label = plainText(node)
    })
    return label
  })
}

function headingSource(title: string): string {
  return escapeInlineText(title, (text) => `## ${text}`, (root) => {
    const heading = 'children' in root ? root.children[0] : undefined
    return heading?.type === 'heading' ? plainText(heading).trim() : undefined
  })
}

/** Angle brackets for targets markdown would otherwise cut short (spaces, parentheses). */
function destinationSource(target: string): string {
  return /[\s()<>]/.test(target) ? `<${target.replace(/[<>]/g, (c) => `\\${c}`)}>` : target
}

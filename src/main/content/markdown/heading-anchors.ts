/**
 * The anchors a page body offers to `page.md#anchor` links: each heading's slug (GitBook's: the heading's
 * text slugified as page slugs are, `-1`, `-2` for repeats), and every `id` / `name` an HTML tag sets
 * (Git Sync writes `## Title <a href="#old" id="old"></a>` to keep an anchor its heading no longer
 * slugs to). Search quotes sections under the same anchors (service/content-index/sections.ts).
 */
import type { Nodes } from 'mdast'
import { slugify } from '../gitsync/slug'
import { endOffset, parseMarkdownTree, startOffset, visitNodes } from './syntax-tree'

const GITBOOK_TAG = /\{%.*?%\}/gs
const HTML_TAG = /<[^>]*>/g
const HTML_ID = /\s(?:id|name)\s*=\s*(["'])(.*?)\1/gi

/** What a body offers links, and where its code is (text there is never markup to check). */
export interface BodyOutline {
  anchors: Set<string>
  /** Source ranges [start, end) of code blocks and inline code. */
  code: Array<[number, number]>
}

export function bodyOutline(body: string): BodyOutline {
  const anchors = new Set<string>()
  const code: Array<[number, number]> = []
  const tree = parseMarkdownTree(body)
  const slugs = new Set<string>()
  const gitbookSlugs = new Set<string>()
  visitNodes(tree, (node) => {
    if (node.type === 'heading') {
      const text = cleanText(textOf(node))
      anchors.add(uniqueAnchor(slugify(text), slugs))
      anchors.add(uniqueAnchor(gitbookAnchor(text), gitbookSlugs))
    } else if (node.type === 'html') {
      for (const match of node.value.matchAll(HTML_ID)) if (match[2] !== '') anchors.add(match[2])
    } else if (node.type === 'code' || node.type === 'inlineCode') {
      code.push([startOffset(node), endOffset(node)])
    }
  })
  return { anchors, code }
}

/**
 * The anchor GitBook's own pages give a heading, as links Git Sync exports show it: `.` kept, `&` read
 * as `and`, and an `id-` before one that starts with a digit (an HTML id does not):
 * `1. Create an app` -> `id-1.-create-an-app`, `Math & TeX` -> `math-and-tex`.
 */
export function gitbookAnchor(text: string): string {
  const slug = text
    .normalize('NFC')
    .toLowerCase()
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{M}\p{N}.]+/gu, '-')
    .replace(/^-+|-+$/g, '')
  return /^\p{N}/u.test(slug) ? `id-${slug}` : slug
}

/** `anchor`, or `anchor-1`, `anchor-2`... when an earlier heading of the page took it. */
export function uniqueAnchor(anchor: string, taken: Set<string>): string {
  let candidate = anchor
  for (let n = 1; taken.has(candidate); n++) candidate = `${anchor}-${n}`
  taken.add(candidate)
  return candidate
}

/** Text of a node; block containers are joined with spaces so list items and table cells do not run together. */
export function textOf(node: Nodes): string {
  switch (node.type) {
    case 'yaml':
    case 'definition':
    case 'footnoteDefinition':
      return ''
    case 'html':
      return node.value.replace(HTML_TAG, ' ')
    case 'image':
    case 'imageReference':
      return node.alt ?? ''
    case 'break':
      return ' '
    case 'root':
    case 'list':
    case 'listItem':
    case 'blockquote':
    case 'table':
    case 'tableRow':
    case 'tableCell':
      return node.children.map(textOf).join(' ')
  }
  if ('value' in node) return node.value
  if ('children' in node) return node.children.map(textOf).join('')
  return ''
}

/** Text with GitBook's `{% %}` tags left out and white space collapsed. */
export function cleanText(text: string): string {
  return text.replace(GITBOOK_TAG, ' ').replace(/\s+/g, ' ').trim()
}

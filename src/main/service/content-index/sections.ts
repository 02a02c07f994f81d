/**
 * A page body cut into sections at its headings, as plain text: what search indexes and quotes.
 * GitBook's `{% ... %}` tags and HTML tags are markup, not text, and are left out.
 */
import type { Nodes } from 'mdast'
import { slugify } from '../../content/gitsync/slug'
import { parseMarkdownTree } from '../../content/markdown/syntax-tree'

export interface PageSection {
  /** Heading anchor (`#getting-started`); undefined for the text before the first heading. */
  anchor?: string
  /** The heading's text, or the page title for the text before the first heading. */
  title: string
  text: string
}

const GITBOOK_TAG = /\{%.*?%\}/gs
const HTML_TAG = /<[^>]*>/g

export function pageSections(body: string, pageTitle: string): PageSection[] {
  const sections: PageSection[] = []
  const anchors = new Set<string>()
  let current: { anchor?: string; title: string; parts: string[] } = { title: pageTitle, parts: [] }
  const close = (): void => {
    const text = current.parts.filter((part) => part !== '').join(' ')
    // Headings count even when empty: a search may match their title alone.
    if (text !== '' || current.anchor !== undefined) sections.push({ ...(current.anchor === undefined ? {} : { anchor: current.anchor }), title: current.title, text })
  }
  for (const block of parseMarkdownTree(body).children) {
    if (block.type === 'heading') {
      close()
      const title = cleanText(textOf(block))
      current = { anchor: uniqueAnchor(slugify(title), anchors), title, parts: [] }
    } else {
      // Tags are removed block by block: a stray `{%` must not swallow the blocks after it.
      current.parts.push(cleanText(textOf(block)))
    }
  }
  close()
  return sections
}

function uniqueAnchor(anchor: string, taken: Set<string>): string {
  let candidate = anchor
  for (let n = 1; taken.has(candidate); n++) candidate = `${anchor}-${n}`
  taken.add(candidate)
  return candidate
}

/** Block containers are joined with spaces so list items and table cells do not run together. */
function textOf(node: Nodes): string {
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

function cleanText(text: string): string {
  return text.replace(GITBOOK_TAG, ' ').replace(/\s+/g, ' ').trim()
}

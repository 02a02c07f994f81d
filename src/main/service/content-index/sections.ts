/**
 * A page body cut into sections at its headings, as plain text: what search indexes and quotes.
 * GitBook's `{% ... %}` tags and HTML tags are markup, not text, and are left out.
 */
import { slugify } from '../../content/gitsync/slug'
import { cleanText, textOf, uniqueAnchor } from '../../content/markdown/heading-anchors'
import { parseMarkdownTree } from '../../content/markdown/syntax-tree'

export interface PageSection {
  /** Heading anchor (`#getting-started`); undefined for the text before the first heading. */
  anchor?: string
  /** The heading's text, or the page title for the text before the first heading. */
  title: string
  text: string
}

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

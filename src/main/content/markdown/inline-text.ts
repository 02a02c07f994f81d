/**
 * Writing plain text (a title) into markdown so that it reads back unchanged.
 */
import { parseMarkdownTree, plainText } from './syntax-tree'
import type { Nodes } from 'mdast'

/**
 * Markdown source for `text` inside the construct built by `wrap` (a heading
 * line, a link label). The text is used as-is when markdown reads it back
 * identically, which is the common case; otherwise every ASCII punctuation
 * character is backslash-escaped, which CommonMark always reads as the literal
 * character (`*x*`, `a #`, `&amp;`).
 */
export function escapeInlineText(text: string, wrap: (source: string) => string, readBack: (root: Nodes) => string | undefined): string {
  if (readBack(parseMarkdownTree(wrap(text))) === text) return text
  return text.replace(/[!-/:-@[-`{-~]/g, (char) => `\\${char}`)
}

/** Plain text of the only block of `root` when it is a heading of `depth`. */
export function headingText(root: Nodes, depth: number): string | undefined {
  if (!('children' in root) || root.children.length !== 1) return undefined
  const heading = root.children[0]
  return heading.type === 'heading' && heading.depth === depth ? plainText(heading).trim() : undefined
}

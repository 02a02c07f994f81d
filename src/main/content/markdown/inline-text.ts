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
 *
 * Most titles are plain words: those are answered without a parse (see
 * `readsBackAsIs`), since a parse per title made SUMMARY.md of a large space
 * cost a second.
 */
export function escapeInlineText(text: string, wrap: (source: string) => string, readBack: (root: Nodes) => string | undefined): string {
  if (readsBackAsIs(text)) return text
  return escapeInlineTextByParse(text, wrap, readBack)
}

/** The answer of `escapeInlineText` found by parsing, whatever the text (the fast path's oracle). */
export function escapeInlineTextByParse(text: string, wrap: (source: string) => string, readBack: (root: Nodes) => string | undefined): string {
  if (readBack(parseMarkdownTree(wrap(text))) === text) return text
  return text.replace(ASCII_PUNCTUATION, (char) => `\\${char}`)
}

const ASCII_PUNCTUATION = /[!-/:-@[-`{-~]/g
/** ASCII punctuation that starts nothing in one line of inline text: no emphasis, code, link, HTML, entity, escape, table or heading mark. */
const INERT_PUNCTUATION = /[!"'(),./:;=?@%+-]/g
/** Control characters: the parser replaces NUL and ends the line at CR/LF. */
const CONTROL = /\p{Cc}/u

/**
 * Whether `text` is its own markdown in a heading or a link label, decided
 * without parsing. Either it has no ASCII punctuation at all (then the escape
 * changes nothing, so both answers are the text), or its punctuation is all
 * inert, it has no control character, and no whitespace at either end (which
 * a heading's reading trims). Property-tested against the parse
 * (test/content/inline-text.test.ts).
 */
export function readsBackAsIs(text: string): boolean {
  if (!ASCII_PUNCTUATION_ONE.test(text)) return true
  if (CONTROL.test(text) || text.trim() !== text) return false
  return !ASCII_PUNCTUATION_ONE.test(text.replace(INERT_PUNCTUATION, ''))
}

const ASCII_PUNCTUATION_ONE = /[!-/:-@[-`{-~]/

/** Plain text of the only block of `root` when it is a heading of `depth`. */
export function headingText(root: Nodes, depth: number): string | undefined {
  if (!('children' in root) || root.children.length !== 1) return undefined
  const heading = root.children[0]
  return heading.type === 'heading' && heading.depth === depth ? plainText(heading).trim() : undefined
}

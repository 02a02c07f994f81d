/**
 * The anchors a page body offers to `page.md#anchor` links: each heading's slug (GitBook's: the heading's
 * text slugified as page slugs are, `-1`, `-2` for repeats), and every `id` / `name` an HTML tag sets
 * (Git Sync writes `## Title <a href="#old" id="old"></a>` to keep an anchor its heading no longer
 * slugs to). Search quotes sections under the same anchors (service/content-index/sections.ts).
 */
import type { Nodes } from 'mdast'
import { slugify } from '../gitsync/slug'
import { parseMarkdownTree } from './syntax-tree'

const GITBOOK_TAG = /\{%.*?%\}/gs
const HTML_TAG = /<[^>]*>/g
const HTML_ID = /\s(?:id|name)\s*=\s*(["'])(.*?)\1/gi

/** What a body offers links, and where its code is (text there is never markup to check). */
export interface BodyOutline {
  anchors: Set<string>
  /** Source ranges [start, end) of fenced code blocks and inline code. */
  code: Array<[number, number]>
}

const FENCE_OPENER = /^\s*(`{3,}|~{3,})(.*)$/
const ATX_HEADING = /^ {0,3}#{1,6}(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/
const SETEXT_UNDERLINE = /^ {0,3}(?:=+|-+)[ \t]*$/
const NOT_PARAGRAPH = /^\s*(?:[-*+>|]|\d+[.)]|#|\{%|<|$)/
const INLINE_CODE = /(`+)(?!`)([\s\S]*?[^`])\1(?!`)/g

/**
 * Read line by line, not parsed whole: remark over every page of a space took seconds, and only the
 * headings (each parsed alone, for its text), `id`s and code of a body matter here. Fences are followed
 * at any indentation (GitBook's tabs and steppers indent them), so a `# Summary` in an example is no heading.
 */
export function bodyOutline(body: string): BodyOutline {
  const anchors = new Set<string>()
  const code: Array<[number, number]> = []
  const slugs = new Set<string>()
  const gitbookSlugs = new Set<string>()
  const addHeading = (markdown: string) => {
    // Plain text is its own text; markup is parsed, as the heading it is (alone, `1. Step` would be a list).
    const plain = !/[\\`*_[\]<>&!~]/.test(markdown)
    const text = cleanText(plain ? markdown : textOf(parseMarkdownTree(`# ${markdown.replace(/\n/g, ' ')}`)))
    anchors.add(uniqueAnchor(slugify(text), slugs))
    anchors.add(uniqueAnchor(gitbookAnchor(text), gitbookSlugs))
  }
  let fence: { char: string; length: number; start: number } | undefined
  let paragraph: string | undefined
  let offset = 0
  for (const raw of body.split('\n')) {
    const start = offset
    offset += raw.length + 1
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw
    if (fence) {
      const closer = new RegExp(`^\\s*${fence.char === '`' ? '`' : '~'}{${fence.length},}[ \\t]*$`)
      if (closer.test(line)) {
        code.push([fence.start, start + line.length])
        fence = undefined
      }
      continue
    }
    const opener = FENCE_OPENER.exec(line)
    if (opener && !(opener[1][0] === '`' && opener[2].includes('`'))) {
      fence = { char: opener[1][0], length: opener[1].length, start }
      paragraph = undefined
      continue
    }
    for (const match of line.matchAll(INLINE_CODE)) code.push([start + match.index, start + match.index + match[0].length])
    for (const match of line.matchAll(HTML_ID)) if (match[2] !== '') anchors.add(match[2])
    const atx = ATX_HEADING.exec(line)
    if (atx) {
      addHeading(atx[1] ?? '')
      paragraph = undefined
    } else if (paragraph !== undefined && SETEXT_UNDERLINE.test(line)) {
      addHeading(paragraph)
      paragraph = undefined
    } else {
      paragraph = NOT_PARAGRAPH.test(line) ? undefined : (paragraph === undefined ? line : `${paragraph}\n${line}`)
    }
  }
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

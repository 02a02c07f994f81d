/**
 * A page cut into segments at top-level block boundaries, found by a line
 * scan instead of a parse, so that a merge parses only the parts of a page
 * that both sides changed.
 *
 * A cut goes before a line that starts a block at column 0 after a blank
 * line, where no construct that spans blank lines is open: a fenced code
 * block, an HTML block of the kinds a blank line does not end (`<!--`,
 * `<script>`, ...), a GitBook block `{% x %}` … `{% endx %}`, a list (a list
 * marker or an indented line continues it) or a block quote. There the parser
 * ends every open block, so the units (units.ts) of the page are the units of
 * its segments one after the other. The scan is conservative: where it cannot
 * tell (a fence or HTML block indented in a list that may or may not have
 * ended, a tab in the indentation, a lone CR), it stops cutting; where a
 * GitBook end tag may belong to a list item, it is not counted. The front
 * matter and the first block after it (the title) are never cut apart.
 */
import { TAG_LINE } from './units'

export type PageKind = 'file' | 'body'

/** Tag names of HTML blocks that a blank line ends and that may interrupt a paragraph (CommonMark's sixth kind). */
const BLOCK_TAGS = new Set(
  'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'.split(' '),
)

/** HTML blocks that run until a marker, across blank lines (CommonMark's kinds one to five), and their end markers. */
const RAW_HTML: Array<[start: RegExp, end: RegExp]> = [
  [/^<(?:script|pre|style|textarea)(?:[\s>]|$)/i, /<\/(?:script|pre|style|textarea)>/i],
  [/^<!--/, /-->/],
  [/^<\?/, /\?>/],
  [/^<![A-Za-z]/, />/],
  [/^<!\[CDATA\[/, /\]\]>/],
]

/** A line that is one complete open or closing tag (CommonMark's seventh kind of HTML block). */
const COMPLETE_TAG_LINE = /^(?:<[A-Za-z][A-Za-z0-9-]*(?:\s+[A-Za-z_:][\w.:-]*(?:\s*=\s*(?:[^\s"'=<>`]+|'[^']*'|"[^"]*"))?)*\s*\/?>|<\/[A-Za-z][A-Za-z0-9-]*\s*>)[ \t]*\r?$/
/** Leading blanks, block quote markers and list markers, before a fence. */
const CONTAINER_PREFIX = /^(?:[ \t]*(?:>|(?:[*+-]|\d{1,9}[.)])(?=[ \t]|\r?$)))*[ \t]*/
const FENCE_OPEN = /^(`{3,}|~{3,})([^\n]*)$/
const FENCE_CLOSE = /^( *)(`{3,}|~{3,})[ \t]*\r?$/
const LIST_MARKER = /^ {0,3}(?:[*+-]|\d{1,9}[.)])(?:[ \t]|\r?$)/
const QUOTE = /^ {0,3}>/
const BLANK = /^[ \t]*\r?$/

interface Fence {
  marker: string
  /**
   * top: at the top level, closed only by a closing fence. quote: in a block
   * quote, also ended by a line without `>`. item: in a list item (opened on
   * the marker's line), also ended by a line indented less than `indent`.
   * unsure: indented in what may still be a list item, or not.
   */
  place: 'top' | 'quote' | 'item' | 'unsure'
  /** Column of the opening fence. */
  indent: number
}

interface HtmlBlock {
  /** A marker that ends it, or the next blank line. */
  end: RegExp | 'blank'
  /** Indented in what may still be a list item, or not. */
  unsure: boolean
}

/** The page's segments, in order; they concatenate to `source`. */
export function pageSegments(source: string, kind: PageKind): string[] {
  const bom = source.startsWith('\uFEFF') ? '\uFEFF' : ''
  const text = source.slice(bom.length)
  const segments: string[] = []
  let from = 0
  for (const cut of cutOffsets(text, kind)) {
    segments.push(text.slice(from, cut))
    from = cut
  }
  segments.push(text.slice(from))
  segments[0] = bom + segments[0]
  return segments
}

/** Offsets where the text may be cut, in order. */
function cutOffsets(text: string, kind: PageKind): number[] {
  // A lone CR ends a line for the parser, not for this scan.
  if (/\r(?!\n)/.test(text)) return []
  let frontMatter = kind === 'file' && /^---[ \t]*\r?\n/.test(text)
  // A `---` line that opens no front matter puts the parser in another mode for the whole page.
  if (frontMatter && !/\n---[ \t]*\r?(?:\n|$)/.test(text)) return []

  const closable = new Set([...text.matchAll(/\{%-?\s*end([A-Za-z][\w-]*)/g)].map((match) => match[1]))
  const openTags = new Map<string, number>()
  let openTagCount = 0
  let fence: Fence | undefined
  let html: HtmlBlock | undefined
  let seenBlock = false
  /** Since a list marker or a `>`: what looks top-level may be in a list item or a quote. */
  let inContainer = false
  let previousBlank = false
  /** The previous line may be paragraph text, which the next line could continue lazily. */
  let previousText = false

  const cuts: number[] = []
  for (let start = 0; start < text.length; ) {
    const newline = text.indexOf('\n', start)
    const end = newline === -1 ? text.length : newline + 1
    const line = text.slice(start, newline === -1 ? text.length : newline)
    const blank = BLANK.test(line)
    const leading = /^[ \t]*/.exec(line)?.[0] ?? ''
    const indent = columns(leading)
    let endedHere = false
    let paragraphText = false

    // What this line ends without saying so.
    if (fence?.place === 'quote' && !QUOTE.test(line)) [fence, endedHere] = [undefined, true]
    else if (fence && (fence.place === 'item' || fence.place === 'unsure') && !blank && indent < fence.indent) {
      if (fence.place === 'unsure' || leading.includes('\t')) return cuts
      ;[fence, endedHere] = [undefined, true]
    }
    if (html?.unsure && !blank && indent === 0) return cuts
    if (html?.end === 'blank' && blank) html = undefined

    const columnZero = !blank && indent === 0 && !QUOTE.test(line) && !LIST_MARKER.test(line)
    if (previousBlank && columnZero && !fence && !html && !frontMatter) {
      // Every block the parser has open ends here (a GitBook block aside).
      inContainer = false
      if (!endedHere && seenBlock && openTagCount === 0 && start > 0) cuts.push(start)
    }

    if (frontMatter) {
      if (start > 0 && /^---[ \t]*\r?$/.test(line)) frontMatter = false
    } else if (fence) {
      if (fenceCloses(fence, line)) fence = undefined
      else if (fence.place === 'unsure' && FENCE_CLOSE.test(line)) return cuts
    } else if (html) {
      if (html.end !== 'blank' && html.end.test(line)) html = undefined
    } else if (!blank && !(indent >= 4 && !inContainer && !previousText)) {
      seenBlock = true
      // A line at column 0 that cannot continue a paragraph ends any list or quote.
      if (columnZero && !previousText) inContainer = false
      if (LIST_MARKER.test(line) || QUOTE.test(line)) inContainer = true
      const prefix = CONTAINER_PREFIX.exec(line)?.[0] ?? ''
      const opening = FENCE_OPEN.exec(line.slice(prefix.length))
      if (opening && !(opening[1][0] === '`' && opening[2].includes('`'))) {
        const place = prefix.includes('>') ? 'quote' : /[^ ]/.test(prefix.trimEnd()) ? 'item' : prefix === '' || (!inContainer && indent <= 3) ? 'top' : 'unsure'
        if (prefix.includes('\t') || (place === 'item' && / {5,}$/.test(prefix))) return cuts
        fence = { marker: opening[1], place, indent: prefix.length }
      } else {
        html = htmlBlock(line, prefix, previousText, inContainer)
        paragraphText = !html
        const tag = html ? null : TAG_LINE.exec(line)
        if (tag && closable.has(tag[2])) {
          // An opening tag always counts; a closing one only where it cannot be in a list item or a quote.
          const open = openTags.get(tag[2]) ?? 0
          const next = tag[1] === undefined ? open + 1 : inContainer ? open : Math.max(0, open - 1)
          openTagCount += next - open
          openTags.set(tag[2], next)
        }
      }
    }
    previousText = paragraphText
    previousBlank = blank
    start = end
  }
  return cuts
}

function fenceCloses(fence: Fence, line: string): boolean {
  const rest = fence.place === 'quote' ? line.replace(/^(?: {0,3}>)+ ?/, '') : line
  const close = FENCE_CLOSE.exec(rest)
  if (!close || close[2][0] !== fence.marker[0] || close[2].length < fence.marker.length) return false
  const indent = close[1].length
  if (fence.place === 'item') return indent >= fence.indent && indent - fence.indent <= 3
  if (fence.place === 'unsure') return indent === fence.indent
  return indent <= 3
}

/** The HTML block the line starts, if it starts one. */
function htmlBlock(line: string, prefix: string, afterText: boolean, inContainer: boolean): HtmlBlock | undefined {
  const rest = line.slice(prefix.length)
  if (rest[0] !== '<' || (prefix.trimStart() === '' && prefix.length > 3)) return undefined
  const unsure = inContainer && prefix !== ''
  for (const [start, end] of RAW_HTML) if (start.test(rest)) return end.test(rest.slice(2)) ? undefined : { end, unsure }
  const name = /^<\/?([A-Za-z][A-Za-z0-9-]*)/.exec(rest)?.[1]?.toLowerCase()
  if (name !== undefined && BLOCK_TAGS.has(name)) return { end: 'blank', unsure }
  // A line of one complete other tag starts one too, where it does not continue a paragraph.
  return !afterText && COMPLETE_TAG_LINE.test(rest) ? { end: 'blank', unsure } : undefined
}

/** Width of leading blanks, tabs to the next multiple of four. */
function columns(leading: string): number {
  let width = 0
  for (const char of leading) width = char === '\t' ? width + 4 - (width % 4) : width + 1
  return width
}

/**
 * The HTML the link scanner (`link-scanner.ts`) reads itself, in the shapes GitBook writes: a block that
 * starts in column 0 with one of CommonMark's block tag names (type 6: `<figure>`, `<details>`,
 * `<table>`..., up to the next blank line), and inline tags of plain syntax (`<a href="#x" id="x">`,
 * `</a>`, `<br/>`). Anything else that starts with `<` is left to remark. Each returns where the HTML
 * ends, or `undefined` when it cannot tell.
 */

/** CommonMark's (and micromark's) HTML block names, type 6. */
const BLOCK_NAMES = new Set(
  'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'.split(
    ' ',
  ),
)
/** Openers of HTML blocks of types 1-5 (raw text, comments, processing instructions, declarations, CDATA). */
const RAW_BLOCK = /^<(?:(?:script|pre|style|textarea)(?:[\s>]|$)|!|\?)/i
/** A tag in the plain syntax read here; longer ones are left to remark. */
const MAX_TAG_CHARS = 1024

const SPACE = 32
const TAB = 9
const LESS_THAN = 60
const GREATER_THAN = 62
const SLASH = 47
const PIPE = 124

/** Whether the line at `lineStart` opens an HTML block of type 6 (`<name` or `</name`, then a space, `>`, `/>` or the end). */
export function opensHtmlBlock(text: string, lineStart: number, lineEnd: number): boolean {
  let i = lineStart + 1
  if (text.charCodeAt(i) === SLASH) i++
  const nameStart = i
  while (i < lineEnd && i - nameStart <= 10 && isAsciiAlphanumeric(text.charCodeAt(i))) i++
  if (!BLOCK_NAMES.has(text.slice(nameStart, i).toLowerCase())) return false
  const after = text.charCodeAt(i)
  return i >= lineEnd || after === SPACE || after === TAB || after === GREATER_THAN || (after === SLASH && text.charCodeAt(i + 1) === GREATER_THAN)
}

/** Whether a line starting with `<` may open another kind of HTML block (types 1-5, or 7: a lone tag). */
export function mayOpenOtherHtmlBlock(text: string, contentStart: number, lineEnd: number): boolean {
  if (RAW_BLOCK.test(text.slice(contentStart, Math.min(lineEnd, contentStart + 16)))) return true
  const end = inlineTag(text, contentStart, lineEnd)
  if (end === undefined) return true
  for (let i = end; i < lineEnd; i++) {
    const c = text.charCodeAt(i)
    if (c !== SPACE && c !== TAB) return false
  }
  return true
}

/**
 * Whether the HTML in `text[from, to)` has its `<` and `>` in turn, each tag closed before the next
 * opens: then `HTML_ATTRIBUTE` runs over it in time linear in its length.
 */
export function tagsAlternate(text: string, from: number, to: number): boolean {
  let open = -1
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c === LESS_THAN) {
      if (open !== -1) return false
      open = i
    } else if (c === GREATER_THAN && open !== -1) {
      if (i - open > MAX_TAG_CHARS) return false
      open = -1
    }
  }
  return open === -1
}

/**
 * The end of an inline HTML tag at `at` (a `<`), in a plain subset of CommonMark's syntax: an open tag
 * with attributes separated by single spaces, values quoted without `<`, `>` or a line break (or plain
 * unquoted), no space around `=`; or a closing tag. `undefined` for anything else (which may still be
 * HTML, or an autolink, or text: remark decides). A `|` inside refuses too (a table row splits cells first).
 */
export function inlineTag(text: string, at: number, lineEnd: number): number | undefined {
  const limit = Math.min(lineEnd, at + MAX_TAG_CHARS)
  let i = at + 1
  const closing = text.charCodeAt(i) === SLASH
  if (closing) i++
  if (!isAsciiAlpha(text.charCodeAt(i))) return undefined
  while (i < limit && (isAsciiAlphanumeric(text.charCodeAt(i)) || text.charCodeAt(i) === 45)) i++
  if (closing) {
    while (i < limit && text.charCodeAt(i) === SPACE) i++
    return text.charCodeAt(i) === GREATER_THAN && i < limit ? i + 1 : undefined
  }
  for (;;) {
    if (i >= limit) return undefined
    const c = text.charCodeAt(i)
    if (c === GREATER_THAN) return i + 1
    if (c === SLASH) return text.charCodeAt(i + 1) === GREATER_THAN && i + 1 < limit ? i + 2 : undefined
    if (c !== SPACE) return undefined
    while (i < limit && text.charCodeAt(i) === SPACE) i++
    const d = text.charCodeAt(i)
    if (d === GREATER_THAN || d === SLASH) continue
    // An attribute: name, then `=value` or nothing.
    if (!(isAsciiAlpha(d) || d === 95 || d === 58)) return undefined
    while (i < limit && isAttributeNameChar(text.charCodeAt(i))) i++
    if (text.charCodeAt(i) !== 61) continue
    i++
    const quote = text.charCodeAt(i)
    if (quote === 34 || quote === 39) {
      const close = text.indexOf(String.fromCharCode(quote), i + 1)
      if (close === -1 || close >= limit) return undefined
      for (let k = i + 1; k < close; k++) {
        const v = text.charCodeAt(k)
        if (v === LESS_THAN || v === GREATER_THAN || v === PIPE) return undefined
      }
      i = close + 1
    } else {
      const valueStart = i
      while (i < limit && isUnquotedValueChar(text.charCodeAt(i))) i++
      if (i === valueStart) return undefined
    }
  }
}

function isAsciiAlpha(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

function isAsciiAlphanumeric(c: number): boolean {
  return isAsciiAlpha(c) || (c >= 48 && c <= 57)
}

function isAttributeNameChar(c: number): boolean {
  return isAsciiAlphanumeric(c) || c === 95 || c === 46 || c === 58 || c === 45
}

/** Unquoted attribute value: no space, `"`, `'`, `=`, `<`, `>`, backtick (CommonMark), nor `|` (tables). */
function isUnquotedValueChar(c: number): boolean {
  return c > SPACE && c !== 34 && c !== 39 && c !== 61 && c !== LESS_THAN && c !== GREATER_THAN && c !== 96 && c !== PIPE && c !== 127
}

/**
 * A linear scanner for the links and code ranges of a run of plain prose markdown (issue 16): remark costs
 * seconds per megabyte, while most runs of a real page are paragraphs, headings, lists, tables and code
 * fences with plain `[text](url)` links, in which finding the links needs no parser.
 *
 * `scanChunkLinks` gives exactly what `parseChunkLinks` (remark) gives for a run, or `undefined` when the
 * run holds anything that makes links subtle, and the caller parses it with remark. Being exact matters
 * more than being fast, so it refuses on any doubt:
 * - `<` outside code, but for HTML blocks of type 6 in column 0 and inline tags of plain syntax (see
 *   `link-scanner-html.ts`): other HTML, `<...>` autolinks and destinations,
 * - reference definitions and footnotes (`]:`, `[^`): they change what `[a][b]` and `[a]` are,
 * - nested brackets (`[a [b](c)](d)`, a badge `[![a](b)](c)`), a label or code span across lines,
 * - a destination with `\`, `&` (escapes and character references are decoded) or backticks, or spaces
 *   outside angle brackets, or a title other than `"plain"`,
 * - a bare URL (GFM literal autolink) in anything but a plain shape: `http(s)://` after a space, `"`, `(`
 *   or at the start of a line, a host of letters, digits, `-`, `.`, a path that may add `_~%=+#?:&` but
 *   ends in a letter, digit or `/`, then a space, the line's end, or a `"` or `)` before those (a final
 *   `.` is left out, as GFM does); in a label, a URL is no link when the label is a link's or an image's,
 *   else refused; `www.` and `@` (emails) are always refused,
 * - `|` inside a link or code span (a table row splits cells before it reads links),
 * - a line indented by four columns, five spaces after a list or quote marker, or a tab (indented code,
 *   or not, depends on the list around it), a fence that is indented or inside a container, more than 8
 *   nested quotes or lists, a carriage return.
 * Emphasis needs no care: links bind tighter than emphasis. Every loop moves forward, so the time is
 * linear in the size whatever the input (the few regular expressions cannot backtrack).
 */
import type { ChunkLinks } from './chunk-links'
import { attributeLinks } from './html-attributes'
import { inlineTag, mayOpenOtherHtmlBlock, opensHtmlBlock, tagsAlternate } from './link-scanner-html'

type Links = ChunkLinks['links']
type Code = ChunkLinks['code']

const FENCE_OPENER = /^(`{3,}|~{3,})(.*)$/
const FENCE_CLOSER = /^ {0,3}(`{3,}|~{3,})[ \t]*$/

const BACKSLASH = 92
const BACKTICK = 96
const TILDE = 126
const OPEN_BRACKET = 91
const CLOSE_BRACKET = 93
const OPEN_PAREN = 40
const CLOSE_PAREN = 41
const SPACE = 32
const BANG = 33
const QUOTE = 34
const TAB = 9
const LESS_THAN = 60
const GREATER_THAN = 62
const AMPERSAND = 38
const AT = 64
const PIPE = 124
const DOT = 46
const SLASH = 47
const HYPHEN = 45
/** Block quote and list markers on one line, at most. */
const MAX_CONTAINERS = 8

/** Thrown inside the scan when the run needs remark; never escapes `scanChunkLinks`. One instance: no stack to capture. */
class NeedsParser extends Error {}
const NEEDS_PARSER = new NeedsParser('the run needs remark')
const refuse = (): never => {
  throw NEEDS_PARSER
}

/** The run's links and code ranges, or `undefined` when only remark can tell (see the top of this file). */
export function scanChunkLinks(text: string): ChunkLinks | undefined {
  // Nothing that could start a link, code (fenced, inline, or indented: four spaces, after a marker too) or a bare URL.
  if (!/[[`~<@:\t]| {4}|ww/i.test(text)) return { links: [], code: [] }
  if (text.includes('\r') || text.includes(']:') || text.includes('[^')) return undefined
  const links: Links = []
  const code: Code = []
  try {
    scanLines(text, links, code)
  } catch (error) {
    if (error === NEEDS_PARSER) return undefined
    throw error
  }
  return { links, code }
}

function scanLines(text: string, links: Links, code: Code): void {
  let fence: { char: number; length: number; start: number } | undefined
  /** Start of the HTML block (type 6) the lines are in, -1 for none; it ends before a blank line. */
  let html = -1
  let previousLineEnd = 0
  let lineStart = 0
  for (;;) {
    const newline = text.indexOf('\n', lineStart)
    const lineEnd = newline === -1 ? text.length : newline
    if (fence) {
      if (closesFence(text, lineStart, lineEnd, fence)) {
        code.push([fence.start, lineEnd])
        fence = undefined
      }
    } else if (isBlank(text, lineStart, lineEnd)) {
      if (html !== -1) htmlBlock(text, html, previousLineEnd, links)
      html = -1
    } else if (html === -1) {
      const content = contentStart(text, lineStart, lineEnd)
      const first = text.charCodeAt(content)
      const line = first === BACKTICK || first === TILDE ? text.slice(content, lineEnd) : ''
      const opener = FENCE_OPENER.exec(line)
      if (opener && !(first === BACKTICK && opener[2].includes('`'))) {
        // Only a fence in column 0 is surely top-level: one behind indentation or a marker may sit in a list.
        if (content !== lineStart) refuse()
        fence = { char: first, length: opener[1].length, start: lineStart }
      } else if (first === LESS_THAN && opensHtmlBlock(text, content, lineEnd)) {
        if (content !== lineStart) refuse() // the same: it may sit in a list
        html = lineStart
      } else if (first === LESS_THAN && mayOpenOtherHtmlBlock(text, content, lineEnd)) {
        refuse()
      } else scanInline(text, content, lineEnd, links, code)
    }
    previousLineEnd = lineEnd
    if (newline === -1) break
    lineStart = newline + 1
  }
  // An unclosed fence runs to the end of the text; an HTML block to its last line.
  if (fence) code.push([fence.start, text.length])
  if (html !== -1) htmlBlock(text, html, previousLineEnd, links)
}

/** The attribute links of an HTML block, read by pattern like remark's `html` nodes. */
function htmlBlock(text: string, from: number, to: number, links: Links): void {
  if (!tagsAlternate(text, from, to)) refuse()
  for (const link of attributeLinks(text, from, to)) links.push(link)
}

function closesFence(text: string, lineStart: number, lineEnd: number, fence: { char: number; length: number }): boolean {
  const spaces = leadingSpaces(text, lineStart, lineEnd)
  if (spaces > 3 || text.charCodeAt(lineStart + spaces) !== fence.char) return false
  const closer = FENCE_CLOSER.exec(text.slice(lineStart, lineEnd))
  return closer !== null && closer[1].charCodeAt(0) === fence.char && closer[1].length >= fence.length
}

/**
 * Where a line's inline content starts, past block quote and list markers; refuses a line whose content
 * is (or may be) indented code: four columns of indentation, five spaces after a marker, or a tab.
 */
function contentStart(text: string, lineStart: number, lineEnd: number): number {
  let i = lineStart + leadingSpaces(text, lineStart, lineEnd)
  if (i - lineStart >= 4) refuse()
  for (let depth = 0; ; depth++) {
    // Deeper nesting than prose uses is left to remark (and to its time limit in the service's workers).
    if (depth > MAX_CONTAINERS) refuse()
    const c = text.charCodeAt(i)
    if (c === TAB) refuse()
    let marker = 0
    if (c === GREATER_THAN) marker = 1
    else if ((c === HYPHEN || c === 43 || c === 42) && isSpaceOrTab(text.charCodeAt(i + 1))) marker = 1
    else if (isDigit(c)) {
      let digits = 0
      while (digits < 10 && isDigit(text.charCodeAt(i + digits))) digits++
      const after = text.charCodeAt(i + digits)
      if (digits <= 9 && (after === DOT || after === CLOSE_PAREN) && isSpaceOrTab(text.charCodeAt(i + digits + 1))) marker = digits + 1
    }
    if (marker === 0) return i
    i += marker
    const spaces = leadingSpaces(text, i, lineEnd)
    if (spaces >= 5 || text.charCodeAt(i + spaces) === TAB) refuse()
    i += spaces
    if (i >= lineEnd) return i
  }
}

function isBlank(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i)
    if (c !== SPACE && c !== TAB) return false
  }
  return true
}

function leadingSpaces(text: string, from: number, to: number): number {
  let i = from
  while (i < to && text.charCodeAt(i) === SPACE) i++
  return i - from
}

const isSpaceOrTab = (c: number): boolean => c === SPACE || c === TAB
const isDigit = (c: number): boolean => c >= 48 && c <= 57

/**
 * Links, images, code spans and bare URLs of one line of inline content; refuses anything subtle. An
 * image's destination is read like a link's, but its label is only alt text to remark: code spans in it
 * are not code nodes (they are, should the image not form).
 */
function scanInline(text: string, lineStart: number, lineEnd: number, links: Links, code: Code): void {
  /** Where the open `[` of a possible link or image label is, -1 for none. */
  let label = -1
  /** Code spans inside the open label, kept until the label's fate is known. */
  let labelCode: Code = []
  /** A bare URL in the open label: no link once the label is a link's or an image's; else remark decides. */
  let labelUrl = false
  /** Position of the last `!` read as itself (not escaped): a `[` right after it opens an image. */
  let bang = -2
  let i = lineStart
  while (i < lineEnd) {
    const c = text.charCodeAt(i)
    if (c === BACKSLASH) {
      // An escaped punctuation character is literal: never a bracket, backtick or `!`.
      i += isAsciiPunctuation(text.charCodeAt(i + 1)) && i + 1 < lineEnd ? 2 : 1
    } else if (c === BACKTICK) {
      i = codeSpan(text, i, lineEnd, label !== -1, label === -1 ? code : labelCode)
    } else if (c === LESS_THAN) {
      // An inline tag, outside labels (an image's alt would drop it): remark reads its attributes.
      const end = label === -1 ? inlineTag(text, i, lineEnd) : undefined
      if (end === undefined) refuse()
      for (const link of attributeLinks(text, i, end as number)) links.push(link)
      i = end as number
    } else if (c === AT) {
      refuse()
    } else if (c === BANG) {
      bang = i++
    } else if (c === OPEN_BRACKET) {
      if (label !== -1) refuse()
      label = i++
    } else if (c === CLOSE_BRACKET) {
      let image = false
      if (label !== -1 && text.charCodeAt(i + 1) === OPEN_PAREN) {
        // A `|` in the label or destination may be a table's cell separator: remark splits cells first.
        if (hasPipe(text, label, i)) refuse()
        i = destination(text, i + 2, lineEnd, links)
        image = bang === label - 1
      } else {
        if (labelUrl) refuse()
        i++
      }
      if (!image) for (const range of labelCode) code.push(range)
      label = -1
      labelCode = []
      labelUrl = false
    } else if ((c === 104 || c === 72) && startsWithIgnoringCase(text, i, 'http')) {
      if (label === -1) i = bareUrl(text, i, lineStart, lineEnd, links)
      else {
        labelUrl = true
        i += 4
      }
    } else if ((c === 119 || c === 87) && startsWithIgnoringCase(text, i, 'www.')) {
      refuse()
    } else i++
  }
  if (label !== -1) refuse() // a label may go on on the next line
}

/** A code span opening at `open`, closed on the same line; returns the index after it. */
function codeSpan(text: string, open: number, lineEnd: number, inLabel: boolean, code: Code): number {
  let ticks = 0
  while (text.charCodeAt(open + ticks) === BACKTICK) ticks++
  let i = open + ticks
  let inner = false
  while (i < lineEnd) {
    if (text.charCodeAt(i) !== BACKTICK) {
      i++
      continue
    }
    let run = 0
    while (text.charCodeAt(i + run) === BACKTICK) run++
    if (run === ticks) {
      const end = i + run
      // Inside a label, `destinationRange` skips code spans its own way: keep to spans it reads alike.
      if ((inLabel && inner) || hasPipe(text, open, end)) refuse()
      code.push([open, end])
      return end
    }
    inner = true
    i += run
  }
  return refuse()
}

/**
 * The destination of `[label](` from `from`, closed by `)` on this line, or refused: plain (balanced
 * parentheses), or in angle brackets (GitBook's `<a b (1).png>`: the range keeps them, the target not),
 * then maybe a `"title"` (GitBook's `"mention"`). Returns the index after the `)`.
 */
function destination(text: string, from: number, lineEnd: number, links: Links): number {
  let i = from
  let target: string
  if (text.charCodeAt(from) === LESS_THAN) {
    for (i = from + 1; i < lineEnd; i++) {
      const c = text.charCodeAt(i)
      if (c === GREATER_THAN) break
      if (c === LESS_THAN || c === BACKSLASH || c === AMPERSAND) refuse()
    }
    if (i >= lineEnd) refuse()
    target = text.slice(from + 1, i++)
  } else {
    let depth = 0
    for (; i < lineEnd; i++) {
      const c = text.charCodeAt(i)
      if (c <= SPACE || c === 127 || c === BACKSLASH || c === AMPERSAND || c === LESS_THAN || c === BACKTICK) break
      if (c === OPEN_PAREN) {
        if (++depth > 8) refuse()
      } else if (c === CLOSE_PAREN && depth-- === 0) break
    }
    if (depth > 0) refuse()
    target = text.slice(from, i)
  }
  const end = i
  if (text.charCodeAt(i) === SPACE) {
    while (text.charCodeAt(i) === SPACE) i++
    if (text.charCodeAt(i) !== QUOTE) refuse()
    const close = text.indexOf('"', i + 1)
    if (close === -1 || close >= lineEnd) refuse()
    for (let k = i + 1; k < close; k++) if (text.charCodeAt(k) === BACKSLASH) refuse()
    i = close + 1
    while (text.charCodeAt(i) === SPACE) i++
  }
  if (i >= lineEnd || text.charCodeAt(i) !== CLOSE_PAREN || hasPipe(text, from, i)) refuse()
  if (target !== '') links.push({ target, start: from, end, syntax: 'markdown' })
  return i + 1
}

/**
 * A bare `http(s)://` URL at `start` in the plain shape of the top of this file; returns the index after
 * it. GFM trims trailing punctuation and an unbalanced `)` off a URL: only the plain cases are read here.
 */
function bareUrl(text: string, start: number, lineStart: number, lineEnd: number, links: Links): number {
  const scheme = text.startsWith('https://', start) ? 8 : text.startsWith('http://', start) ? 7 : 0
  if (scheme === 0) {
    // `http` as a word, or in another case / form GFM may still read as a URL.
    return startsWithIgnoringCase(text, start + 4, '://') || startsWithIgnoringCase(text, start + 4, 's://') ? refuse() : start + 4
  }
  const before = start === lineStart ? SPACE : text.charCodeAt(start - 1)
  if (before !== SPACE && before !== QUOTE && before !== OPEN_PAREN) refuse()
  let i = start + scheme
  let hostDots = 0
  let inHost = true
  let previous = SLASH
  for (; i < lineEnd; i++) {
    const c = text.charCodeAt(i)
    if (c === SPACE) break
    if (c === QUOTE || c === CLOSE_PAREN) {
      // GitBook's `url="https://..."`, or `(see https://...)`: the URL ends there when a space or the
      // line's end follows (after `)`, maybe a `.` or `,` first), and it does not end in a `.` itself.
      let after = i + 1
      const next = text.charCodeAt(after)
      if (c === CLOSE_PAREN && (next === DOT || next === 44)) after++
      if ((after < lineEnd && text.charCodeAt(after) !== SPACE) || previous === DOT) refuse()
      break
    }
    if (c === DOT) {
      if (previous === DOT || previous === SLASH) refuse()
      if (inHost) hostDots++
    } else if (c === SLASH) {
      if (inHost && previous === DOT) refuse()
      inHost = false
    } else if (!(isAsciiAlphanumeric(c) || c === HYPHEN || (!inHost && isPathPunctuation(c)))) refuse()
    previous = c
  }
  let end = i
  if (previous === DOT) {
    end-- // a final `.` ends the sentence, not the URL
    if (inHost) hostDots--
  }
  // Any other punctuation at the end is GFM's to trim.
  if (!inHost && isPathPunctuation(text.charCodeAt(end - 1))) refuse()
  const host = inHost ? end : text.indexOf('/', start + scheme)
  if (hostDots < 1 || host <= start + scheme || text.charCodeAt(start + scheme) === HYPHEN) refuse()
  links.push({ target: text.slice(start, end), start, end, syntax: 'autolink' })
  return i
}

/** Punctuation read inside a URL's path, query or fragment: `_ ~ % = + # ? : &`. */
function isPathPunctuation(c: number): boolean {
  return c === 95 || c === 126 || c === 37 || c === 61 || c === 43 || c === 35 || c === 63 || c === 58 || c === AMPERSAND
}

function hasPipe(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) if (text.charCodeAt(i) === PIPE) return true
  return false
}

function startsWithIgnoringCase(text: string, at: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) {
    if ((text.charCodeAt(at + k) | 0x20) !== word.charCodeAt(k)) return false
  }
  return true
}

function isAsciiAlphanumeric(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122)
}

function isAsciiPunctuation(c: number): boolean {
  return (c >= 33 && c <= 47) || (c >= 58 && c <= 64) || (c >= 91 && c <= 96) || (c >= 123 && c <= 126)
}

/**
 * Every reference a page body makes to another page, a file, a URL or an
 * anchor, with its exact position in the source so it can be reported (broken
 * links, line numbers) and rewritten in place without touching anything else.
 *
 * Covered: markdown links, images, reference definitions, autolinks, GitBook
 * `{% content-ref url %}` / `{% file src %}` / `{% embed url %}` tags, and
 * `src` / `href` attributes of `<img>` / `<a>` in HTML (GitBook's `<figure>`).
 * Text inside code is never a link.
 */
import type { Nodes } from 'mdast'
import { topLevelChunks } from './blocks'
import { endOffset, LineIndex, parseMarkdownTree, startOffset, visitNodes } from './syntax-tree'

export type LinkKind = 'page' | 'file' | 'url' | 'anchor'

/** How the target is written, which decides how a replacement must be quoted. */
export type LinkSyntax = 'markdown' | 'autolink' | 'attribute'

export interface MarkdownLink {
  kind: LinkKind
  /** The target as markdown reads it: angle brackets removed, backslash escapes resolved. */
  target: string
  /** 1-based position of the target's first character. */
  line: number
  column: number
  /** Source range of the target as written (angle brackets included) in the text given. */
  start: number
  end: number
  syntax: LinkSyntax
}

// The target is the named group `value`; `d` gives its exact indices.
const GITBOOK_LINK_TAG = /\{%\s*(?:content-ref|file|embed)\s+(?:url|src)\s*=\s*(["'])(?<value>.*?)\1/dg
const HTML_ATTRIBUTE = /<(?:img|a)\b[^>]*?\s(?:src|href)\s*=\s*(["'])(?<value>.*?)\1/dgi
const GITBOOK_TAG = /\{%.*?%\}/dgs

/**
 * Every link in `body`, in source order. The body is parsed in runs of
 * top-level blocks (see `topLevelChunks`), each cached by its text, so the
 * cost stays linear in the size and a body parsed before (by `warmLinks`, or
 * an earlier call) is not parsed again. `mayContain`, when given, skips runs
 * of text for which it is false: a caller that only cares about some targets
 * need not parse the rest.
 */
export function extractLinks(body: string, mayContain?: (text: string) => boolean): MarkdownLink[] {
  const found = linksIn(body, mayContain)
  if (found.length === 0) return []
  const lines = new LineIndex(body)
  return found.map((link) => ({ kind: classifyTarget(link.target), target: link.target, ...lines.locate(link.start), start: link.start, end: link.end, syntax: link.syntax }))
}

/** A link's target and where it is written, before its kind and line are worked out. */
interface FoundLink {
  target: string
  start: number
  end: number
  syntax: LinkSyntax
}

/** What `extractLinks` finds, without the kind and line of each (a rewrite needs neither). */
function linksIn(body: string, mayContain?: (text: string) => boolean): FoundLink[] {
  const found: FoundLink[] = []
  const code: Array<[number, number]> = []
  // Ruled out as a whole, no run can match: no split either.
  const runs: Array<[number, number]> = mayContain && !mayContain(body) ? [] : topLevelChunks(body, CHUNK_CHARS)
  const parsed: Array<[number, number]> = []
  for (const [from, to] of runs) {
    const text = body.slice(from, to)
    if (mayContain && !mayContain(text)) continue
    parsed.push([from, to])
    const chunk = chunkLinks(text)
    for (const link of chunk.links) found.push({ target: link.target, start: from + link.start, end: from + link.end, syntax: link.syntax })
    for (const [start, end] of chunk.code) code.push([from + start, from + end])
  }
  if (parsed.length === 0) return found

  // GitBook tags are plain paragraph text to remark, so they are found by pattern, outside code
  // (and only in the runs parsed, the only ones whose code is known).
  const inCode = rangeLookup(code)
  const inParsed = mayContain ? rangeLookup(parsed) : () => true
  for (const match of matchesIn(body, 0, body.length, GITBOOK_LINK_TAG)) {
    const target = decodeAttribute(match.value)
    if (target === '' || !inParsed(match.start) || inCode(match.start)) continue
    found.push({ target, start: match.start, end: match.end, syntax: 'attribute' })
  }

  // GFM reads `url="https://..."` inside a tag as a bare URL too; the tag match above already has it.
  const tags = matchesIn(body, 0, body.length, GITBOOK_TAG)
  const inTag = rangeLookup(tags.map((tag) => [tag.start, tag.end]))
  const kept = tags.length === 0 ? found : found.filter((link) => !(link.syntax === 'autolink' && inTag(link.start)))
  // Nearly in order already (a link around an image comes before the image's target): a cheap sort.
  return kept.sort((a, b) => a.start - b.start)
}

/**
 * Parses the runs of `body` not parsed yet, awaiting `pause` between runs (a
 * server gives its event loop back there), so that a later `extractLinks` /
 * `rewriteLinks` of the same body finds them cached and takes no long turn.
 */
export async function warmLinks(body: string, mayContain: ((text: string) => boolean) | undefined, pause: () => Promise<void>): Promise<void> {
  if (mayContain && !mayContain(body)) return
  for (const [from, to] of topLevelChunks(body, CHUNK_CHARS)) {
    const text = body.slice(from, to)
    if ((mayContain && !mayContain(text)) || cache.has(text)) continue
    chunkLinks(text)
    await pause()
  }
}

/* ------------------------------ parsed runs ------------------------------- */

/** About 50 ms of remark on a slow, busy machine. */
const CHUNK_CHARS = 8 * 1024
/** Characters of run text kept in the cache (the least recently used go first). */
const CACHE_CHARS = 16 * 1024 * 1024

interface ChunkLinks {
  links: Array<{ target: string; start: number; end: number; syntax: LinkSyntax }>
  code: Array<[number, number]>
}

const cache = new Map<string, ChunkLinks>()
let cachedChars = 0

function chunkLinks(text: string): ChunkLinks {
  const hit = cache.get(text)
  if (hit) {
    cache.delete(text)
    cache.set(text, hit)
    return hit
  }
  const result = parseChunk(text)
  if (text.length <= CACHE_CHARS) {
    cache.set(text, result)
    cachedChars += text.length
    for (const key of cache.keys()) {
      if (cachedChars <= CACHE_CHARS) break
      cache.delete(key)
      cachedChars -= key.length
    }
  }
  return result
}

function parseChunk(body: string): ChunkLinks {
  const links: ChunkLinks['links'] = []
  const code: ChunkLinks['code'] = []
  const add = (target: string, start: number, end: number, syntax: LinkSyntax): void => {
    if (target !== '') links.push({ target, start, end, syntax })
  }
  visitNodes(parseMarkdownTree(body), (node) => {
    switch (node.type) {
      case 'code':
      case 'inlineCode':
        code.push([startOffset(node), endOffset(node)])
        return
      case 'link':
      case 'image':
      case 'definition': {
        const range = destinationRange(body, node)
        if (range) add(node.url, range.start, range.end, range.syntax)
        return
      }
      case 'html':
        for (const match of matchesIn(body, startOffset(node), endOffset(node), HTML_ATTRIBUTE)) {
          add(decodeAttribute(match.value), match.start, match.end, 'attribute')
        }
        return
    }
  })
  return { links, code }
}

/** Membership test for a position among non-overlapping ranges, by binary search. */
function rangeLookup(ranges: Array<[number, number]>): (offset: number) => boolean {
  const sorted = ranges.slice().sort((a, b) => a[0] - b[0])
  return (offset) => {
    let low = 0
    let high = sorted.length - 1
    while (low <= high) {
      const mid = (low + high) >> 1
      if (sorted[mid][1] <= offset) low = mid + 1
      else if (sorted[mid][0] > offset) high = mid - 1
      else return true
    }
    return false
  }
}

/**
 * Replaces link targets in `body`. `replace` returns the new target (unquoted)
 * or undefined to keep a link as it is; quoting (`<...>` for targets with
 * spaces) follows the link's syntax. Everything else in the body is untouched.
 */
export function rewriteLinks(body: string, replace: (link: MarkdownLink) => string | undefined, mayContain?: (text: string) => boolean): string {
  // One pass over the pieces: splicing the whole string per link made many links quadratic.
  const pieces: string[] = []
  let cursor = 0
  // The kind and line of a link are worked out only if `replace` asks (a line index of a large body is not free).
  const lines = new LazyLines(body)
  for (const found of linksIn(body, mayContain)) {
    const link = new FoundMarkdownLink(found, lines)
    const target = replace(link)
    if (target === undefined || target === link.target) continue
    pieces.push(body.slice(cursor, link.start), quoteTarget(target, link.syntax))
    cursor = link.end
  }
  if (cursor === 0) return body
  pieces.push(body.slice(cursor))
  return pieces.join('')
}

/** Line index of a body, built on first use. */
class LazyLines {
  private index: LineIndex | undefined
  constructor(private readonly body: string) {}
  locate(offset: number): { line: number; column: number } {
    return (this.index ??= new LineIndex(this.body)).locate(offset)
  }
}

/** A `MarkdownLink` whose kind, line and column are worked out when read. */
class FoundMarkdownLink implements MarkdownLink {
  readonly target: string
  readonly start: number
  readonly end: number
  readonly syntax: LinkSyntax
  constructor(
    found: FoundLink,
    private readonly lines: LazyLines,
  ) {
    this.target = found.target
    this.start = found.start
    this.end = found.end
    this.syntax = found.syntax
  }
  get kind(): LinkKind {
    return classifyTarget(this.target)
  }
  get line(): number {
    return this.lines.locate(this.start).line
  }
  get column(): number {
    return this.lines.locate(this.start).column
  }
}

/**
 * Kind of a link target. Relative `.md` paths and `/pages/...` are pages;
 * `.gitbook/assets/...`, `/files/...` and other relative paths with an
 * extension are files; anything with a scheme is a URL; `#x` is an anchor.
 * Extension-less relative paths are folder-style page links (`./section`).
 */
export function classifyTarget(target: string): LinkKind {
  if (target.startsWith('#')) return 'anchor'
  if (/^[a-z][a-z0-9+.-]*:/i.test(target) || target.startsWith('//')) return 'url'
  const path = target.replace(/[?#].*$/, '')
  if (/(^|\/)\.gitbook\/assets\//.test(path) || path.startsWith('/files/')) return 'file'
  if (/\.md$/i.test(path) || path.startsWith('/pages/')) return 'page'
  const name = path.slice(path.lastIndexOf('/') + 1)
  return /\.[a-z0-9]+$/i.test(name) ? 'file' : 'page'
}

function quoteTarget(target: string, syntax: LinkSyntax): string {
  if (syntax === 'attribute') return target.replace(/&/g, '&amp;').replace(/"/g, '&quot;')
  if (syntax === 'autolink') return target
  return /[\s()<>]/.test(target) ? `<${target.replace(/[<>]/g, (c) => `\\${c}`)}>` : target
}

function decodeAttribute(value: string): string {
  return value.replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

/**
 * Matches of `pattern` (flags `d` and `g`) within `source[from, to)`: the range
 * of its `value` group, or of the whole match when it has none.
 */
function matchesIn(source: string, from: number, to: number, pattern: RegExp): Array<{ value: string; start: number; end: number }> {
  const out: Array<{ value: string; start: number; end: number }> = []
  for (const match of source.slice(from, to).matchAll(pattern)) {
    const [start, end] = match.indices?.groups?.value ?? match.indices?.[0] ?? [0, 0]
    out.push({ value: match.groups?.value ?? match[0], start: from + start, end: from + end })
  }
  return out
}

/* ------------------------- locating a destination ------------------------- */

/**
 * Where the destination of a link, image or definition is written. remark
 * gives the node's extent and its decoded URL but not the destination's own
 * range, so we walk the source: past the `[label]`, then `(` or `:`, then the
 * destination (`<...>` or a run without spaces and with balanced parentheses).
 */
function destinationRange(source: string, node: Nodes): { start: number; end: number; syntax: LinkSyntax } | undefined {
  const start = startOffset(node)
  const end = endOffset(node)
  const opener = source[start]
  if (node.type === 'link' && opener === '<') return { start: start + 1, end: end - 1, syntax: 'autolink' }
  if (node.type === 'link' && opener !== '[') return { start, end, syntax: 'autolink' } // GFM literal autolink
  const labelEnd = closingBracket(source, node.type === 'image' ? start + 1 : start, end)
  if (labelEnd === undefined) return undefined
  const separator = node.type === 'definition' ? ':' : '('
  if (source[labelEnd + 1] !== separator) return undefined // reference-style use: the definition carries the URL
  const destination = skipWhitespace(source, labelEnd + 2, end)
  const destinationEnd = scanDestination(source, destination, end)
  return destinationEnd > destination ? { start: destination, end: destinationEnd, syntax: 'markdown' } : undefined
}

/** Index of the `]` matching the `[` at `open`, honouring escapes, nesting and code spans. */
function closingBracket(source: string, open: number, limit: number): number | undefined {
  let depth = 0
  for (let i = open; i < limit; i++) {
    const char = source[i]
    if (char === '\\') i++
    else if (char === '`') i = skipCodeSpan(source, i, limit)
    else if (char === '[') depth++
    else if (char === ']' && --depth === 0) return i
  }
  return undefined
}

function skipCodeSpan(source: string, open: number, limit: number): number {
  let ticks = 0
  while (source[open + ticks] === '`') ticks++
  const fence = '`'.repeat(ticks)
  const close = source.indexOf(fence, open + ticks)
  return close === -1 || close >= limit ? open + ticks - 1 : close + ticks - 1
}

function skipWhitespace(source: string, from: number, limit: number): number {
  let i = from
  while (i < limit && /[ \t\r\n]/.test(source[i])) i++
  return i
}

function scanDestination(source: string, from: number, limit: number): number {
  if (source[from] === '<') {
    for (let i = from + 1; i < limit; i++) {
      if (source[i] === '\\') i++
      else if (source[i] === '>') return i + 1
    }
    return from
  }
  let depth = 0
  let i = from
  for (; i < limit; i++) {
    const char = source[i]
    if (char === '\\') i++
    else if (/\s/.test(char)) break
    else if (char === '(') depth++
    else if (char === ')' && depth-- === 0) break
  }
  return i
}

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
import { topLevelChunks } from './blocks'
import { decodeAttribute, matchesIn, parseChunkLinksWithRemark, type ChunkLinks, type LinkSyntax } from './chunk-links'
import { scanChunkLinks } from './link-scanner'
import { LineIndex } from './syntax-tree'
import { giveBackTurn, TurnClock } from './turn-clock'

export type { ChunkLinks, LinkSyntax } from './chunk-links'

export type LinkKind = 'page' | 'file' | 'url' | 'anchor'

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
const GITBOOK_TAG = /\{%.*?%\}/dgs

/**
 * Every link in `body`, in source order. The body is parsed in runs of
 * top-level blocks (see `topLevelChunks`), each cached by its text, so the
 * cost stays linear in the size and a body parsed before (an earlier call, or
 * `parseLinksAhead`, whose result `parsed` is) is not parsed again. `mayContain`,
 * when given, skips runs of text for which it is false: a caller that only
 * cares about some targets need not parse the rest.
 */
export function extractLinks(body: string, mayContain?: (text: string) => boolean, parsed?: ParsedRuns): MarkdownLink[] {
  return runToEnd(linksWithPositions(body, mayContain, parsed))
}

/**
 * `extractLinks` over several turns: `pause` is awaited every few milliseconds of work (runs read, links
 * located), so a server's other requests are answered while a large page's tens of thousands of links
 * are listed. Same result as `extractLinks`.
 */
export async function extractLinksInSlices(
  body: string,
  mayContain: ((text: string) => boolean) | undefined,
  parsed: ParsedRuns | undefined,
  pause: () => Promise<void>,
): Promise<MarkdownLink[]> {
  const steps = linksWithPositions(body, mayContain, parsed)
  for (let step = steps.next(); ; step = steps.next()) {
    if (step.done) return step.value
    await pause()
  }
}

/** Runs a generator of `linksIn`'s kind in one turn, ignoring its pause points. */
function runToEnd<T>(steps: Generator<void, T>): T {
  for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
}

/** Links handled between two looks at the clock of the generators below. */
const LINKS_PER_LOOK = 64

/** `extractLinks`, yielding at its pause points. */
function* linksWithPositions(body: string, mayContain?: (text: string) => boolean, parsed?: ParsedRuns): Generator<void, MarkdownLink[]> {
  const found = yield* linksIn(body, mayContain, parsed)
  if (found.length === 0) return []
  const lines = new LineIndex(body)
  // A large page links to the same targets many times over.
  const kinds = new Map<string, LinkKind>()
  const kindOf = (target: string): LinkKind => {
    let kind = kinds.get(target)
    if (kind === undefined) kinds.set(target, (kind = classifyTarget(target)))
    return kind
  }
  const links: MarkdownLink[] = new Array<MarkdownLink>(found.length)
  const clock = new TurnClock(SLICE_MS, LINKS_PER_LOOK)
  for (let i = 0; i < found.length; i++) {
    const link = found[i]
    links[i] = { kind: kindOf(link.target), target: link.target, ...lines.locate(link.start), start: link.start, end: link.end, syntax: link.syntax }
    if (clock.tick()) yield
  }
  return links
}

/** A link's target and where it is written, before its kind and line are worked out. */
interface FoundLink {
  target: string
  start: number
  end: number
  syntax: LinkSyntax
}

/** What `extractLinks` finds, without the kind and line of each (a rewrite needs neither); yields at pause points. */
function* linksIn(body: string, mayContain?: (text: string) => boolean, parsed?: ParsedRuns, ranges?: Array<[number, number]>): Generator<void, FoundLink[]> {
  const listed = listedAhead(body, mayContain)
  if (listed) return listed
  const found: FoundLink[] = []
  const code: Array<[number, number]> = []
  // Ruled out as a whole, no run can match: no split either.
  const runs: Array<[number, number]> = mayContain && !mayContain(body) ? [] : (ranges ?? topLevelChunks(body, CHUNK_CHARS))
  const read: Array<[number, number]> = []
  const clock = new TurnClock(SLICE_MS)
  for (const [from, to] of runs) {
    if (clock.tick()) yield
    const text = body.slice(from, to)
    if (mayContain && !mayContain(text)) continue
    read.push([from, to])
    const chunk = parsed?.get(text) ?? chunkLinks(text)
    for (const link of chunk.links) found.push({ target: link.target, start: from + link.start, end: from + link.end, syntax: link.syntax })
    for (const [start, end] of chunk.code) code.push([from + start, from + end])
  }
  if (read.length === 0) return found
  yield

  // GitBook tags are plain paragraph text to remark, so they are found by pattern, outside code
  // (and only in the runs parsed, the only ones whose code is known).
  const inCode = rangeLookup(code)
  const inParsed = mayContain ? rangeLookup(read) : () => true
  for (const match of matchesIn(body, 0, body.length, GITBOOK_LINK_TAG)) {
    const target = decodeAttribute(match.value)
    if (target === '' || !inParsed(match.start) || inCode(match.start)) continue
    found.push({ target, start: match.start, end: match.end, syntax: 'attribute' })
  }

  // GFM reads `url="https://..."` inside a tag as a bare URL too; the tag match above already has it.
  const tags = matchesIn(body, 0, body.length, GITBOOK_TAG)
  const inTag = rangeLookup(tags.map((tag) => [tag.start, tag.end]))
  const kept = tags.length === 0 ? found : found.filter((link) => !(link.syntax === 'autolink' && inTag(link.start)))
  yield
  // Nearly in order already (a link around an image comes before the image's target): a cheap sort.
  return kept.sort((a, b) => a.start - b.start)
}

/** Runs of a body parsed ahead (`parseLinksAhead`), by their text. */
export type ParsedRuns = ReadonlyMap<string, ChunkLinks>

/** Parses runs of markdown with `parseChunkLinks`, results in the order given (e.g. in worker threads). */
export type RunParser = (texts: string[]) => Promise<ChunkLinks[]>

/**
 * Parses with `parse` the runs of `body` that `extractLinks` / `rewriteLinks`
 * with the same `mayContain` would parse, so that those, handed the result,
 * parse nothing on their own synchronous turn: a server parses a large page in
 * worker threads (the service's `link-workers/pool.ts`) and its event loop stays free. Runs
 * the scanner reads (`link-scanner.ts`) are never handed to `parse`; runs parsed
 * before (any body: revisions share most of their text) come from the cache; the
 * result keeps them however the cache evicts meanwhile.
 */
export async function parseLinksAhead(body: string, mayContain: ((text: string) => boolean) | undefined, parse: RunParser): Promise<ParsedRuns> {
  const runs = new Map<string, ChunkLinks>()
  const large = body.length >= FOUND_AHEAD_ABOVE_CHARS
  // The caller's turn has read the body already (a 5 MB page: its front matter, a hint over it); each
  // pass over the whole body here gets a turn of its own.
  if (large) await giveBackTurn()
  if (mayContain && !mayContain(body)) return runs
  if (large) await giveBackTurn()
  const missing = new Set<string>()
  const clock = new TurnClock(SLICE_MS)
  const ranges = topLevelChunks(body, CHUNK_CHARS)
  for (const [from, to] of ranges) {
    const text = body.slice(from, to)
    if ((mayContain && !mayContain(text)) || runs.has(text)) continue
    // Runs of plain prose are scanned here, a few milliseconds per megabyte, with the event loop given
    // back between slices; only the rest needs remark and goes to `parse`.
    const hit = scanChunkLinks(text) ?? cached(text)
    if (hit) runs.set(text, hit)
    else missing.add(text)
    if (clock.tick()) await giveBackTurn()
  }
  if (missing.size > 0) {
    const texts = [...missing]
    const results = await parse(texts)
    texts.forEach((text, i) => {
      runs.set(text, results[i])
      remember(text, results[i])
    })
  }
  if (body.length >= FOUND_AHEAD_ABOVE_CHARS) {
    // Listing a large body's links from its runs is itself tens of milliseconds: done here over several
    // turns, so that the synchronous `rewriteLinks` / `extractLinks` after it takes the list as it is.
    const steps = linksIn(body, mayContain, runs, ranges)
    for (let step = steps.next(); ; step = steps.next()) {
      if (step.done) {
        rememberFound(body, mayContain, step.value)
        break
      }
      await giveBackTurn()
    }
  }
  return runs
}


/* --------------------------- links found ahead ---------------------------- */

/** Bodies at least this long have their links listed by `parseLinksAhead` too. */
const FOUND_AHEAD_ABOVE_CHARS = 64 * 1024
/** Characters of bodies whose links listed ahead are kept (the least recently listed go first): an edit's apply follows its parse at once. */
const FOUND_AHEAD_CHARS = 16 * 1024 * 1024

/** Links of large bodies listed by `parseLinksAhead`, by body, with the `mayContain` they were listed with. */
const foundAhead = new Map<string, { mayContain: ((text: string) => boolean) | undefined; found: FoundLink[] }>()
let foundAheadChars = 0

function rememberFound(body: string, mayContain: ((text: string) => boolean) | undefined, found: FoundLink[]): void {
  if (foundAhead.delete(body)) foundAheadChars -= body.length
  foundAhead.set(body, { mayContain, found })
  foundAheadChars += body.length
  for (const key of foundAhead.keys()) {
    if (foundAheadChars <= FOUND_AHEAD_CHARS || key === body) break
    foundAhead.delete(key)
    foundAheadChars -= key.length
  }
}

/** The links `parseLinksAhead` listed for this body with this very `mayContain` (the same function), if any. */
function listedAhead(body: string, mayContain: ((text: string) => boolean) | undefined): FoundLink[] | undefined {
  if (body.length < FOUND_AHEAD_ABOVE_CHARS) return undefined
  const entry = foundAhead.get(body)
  return entry && entry.mayContain === mayContain ? entry.found : undefined
}

/* ------------------------------ parsed runs ------------------------------- */

/** About 50 ms of remark on a slow, busy machine. */
const CHUNK_CHARS = 8 * 1024
/** Milliseconds of work on the event loop's turn before it is given back (`parseLinksAhead`, `extractLinksInSlices`). */
export const SLICE_MS = 4
/** Characters of run text kept in the cache (the least recently used go first). */
const CACHE_CHARS = 16 * 1024 * 1024

const cache = new Map<string, ChunkLinks>()
let cachedChars = 0

/** A run's links: scanned (cheaper than a cache lookup, so not cached), else from the cache or remark. */
function chunkLinks(text: string): ChunkLinks {
  const hit = scanChunkLinks(text) ?? cached(text)
  if (hit) return hit
  const result = parseChunkLinksWithRemark(text)
  remember(text, result)
  return result
}

/** A run's links from the cache, made its most recently used. */
function cached(text: string): ChunkLinks | undefined {
  const hit = cache.get(text)
  if (hit) {
    cache.delete(text)
    cache.set(text, hit)
  }
  return hit
}

function remember(text: string, result: ChunkLinks): void {
  if (text.length > CACHE_CHARS || cache.has(text)) return
  cache.set(text, result)
  cachedChars += text.length
  for (const key of cache.keys()) {
    if (cachedChars <= CACHE_CHARS) break
    cache.delete(key)
    cachedChars -= key.length
  }
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
export function rewriteLinks(body: string, replace: (link: MarkdownLink) => string | undefined, mayContain?: (text: string) => boolean, parsed?: ParsedRuns): string {
  // One pass over the pieces: splicing the whole string per link made many links quadratic.
  const pieces: string[] = []
  let cursor = 0
  // The kind and line of a link are worked out only if `replace` asks (a line index of a large body is not free).
  const lines = new LazyLines(body)
  for (const found of runToEnd(linksIn(body, mayContain, parsed))) {
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

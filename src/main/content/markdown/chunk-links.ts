/**
 * The links of one run of markdown as remark parses it: the costly part of `extractLinks`, kept apart so
 * that a worker thread (the service's `link-workers/worker.ts`) can run it with nothing else of the content model loaded. Its
 * result is plain data (offsets and strings), so it crosses a thread boundary by structured clone.
 * Most runs of prose never reach remark: `link-scanner.ts` reads them in linear time, exactly as remark would.
 */
import type { Nodes } from 'mdast'
import { attributeLinks } from './html-attributes'
import { scanChunkLinks } from './link-scanner'
import { endOffset, parseMarkdownTree, startOffset, visitNodes } from './syntax-tree'

export { decodeAttribute, matchesIn } from './html-attributes'

/** How the target is written, which decides how a replacement must be quoted. */
export type LinkSyntax = 'markdown' | 'autolink' | 'attribute'

/** Links and code ranges of one run, offsets relative to the run's text. */
export interface ChunkLinks {
  links: Array<{ target: string; start: number; end: number; syntax: LinkSyntax }>
  code: Array<[number, number]>
}

/**
 * Lists the links of `body` (not GitBook tags: see `extractLinks`) and its code ranges: by the linear
 * scanner when it can read the run, else by remark. The result is the same either way.
 */
export function parseChunkLinks(body: string): ChunkLinks {
  return scanChunkLinks(body) ?? parseChunkLinksWithRemark(body)
}

/** Parses `body` with remark and lists its links and code ranges (the scanner's oracle in tests). */
export function parseChunkLinksWithRemark(body: string): ChunkLinks {
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
        for (const link of attributeLinks(body, startOffset(node), endOffset(node))) links.push(link)
        return
    }
  })
  return { links, code }
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

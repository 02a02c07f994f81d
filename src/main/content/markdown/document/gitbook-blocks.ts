/**
 * GitBook's block syntax on top of markdown: `{% name attr="x" %}` ...
 * `{% endname %}` containers, single tags (`{% embed url="..." %}`), and
 * `<details><summary>` expandables. remark sees these as loose paragraph text,
 * so they are found here first, line by line, outside fenced code; the
 * markdown between them is handed to remark.
 *
 * Only tags that stand alone on their line are structure (that is how GitBook
 * writes them); anything malformed (unclosed, mismatched) stays markdown text.
 */

export type Segment = MarkdownSegment | TagSegment | DetailsSegment

export interface MarkdownSegment {
  kind: 'markdown'
  text: string
}

export interface TagSegment {
  kind: 'tag'
  name: string
  /** `key="value"` attributes. */
  attributes: Record<string, string>
  /** A quoted positional argument (`{% include "path" %}`). */
  argument?: string
  /** Content of a container tag; empty for single tags. */
  children: Segment[]
  /** The tag's source, closing tag included. */
  raw: string
}

export interface DetailsSegment {
  kind: 'details'
  summary: string
  children: Segment[]
  raw: string
}

/** Tags that wrap content and are closed by `{% end<name> %}`. */
const CONTAINER_TAGS = new Set(['hint', 'tabs', 'tab', 'code', 'stepper', 'step', 'columns', 'column', 'content-ref', 'if', 'updates', 'update'])

const TAG_LINE = /^\{%\s*([a-z][a-z0-9-]*)(.*?)%\}$/
const FENCE = /^(`{3,}|~{3,})/

interface Frame {
  opener: string
  indent: number
  segment: TagSegment | DetailsSegment
  lines: string[]
}

export function splitGitBookBlocks(text: string): Segment[] {
  const root: Segment[] = []
  const stack: Frame[] = []
  let pending: string[] = []
  let fence: string | undefined

  const output = (): Segment[] => (stack.length > 0 ? stack[stack.length - 1].segment.children : root)
  const flush = (): void => {
    if (pending.length > 0) output().push({ kind: 'markdown', text: dedent(pending, stack.at(-1)?.indent ?? 0) })
    pending = []
  }
  const recordRaw = (line: string): void => {
    for (const frame of stack) frame.lines.push(line)
  }

  for (const line of text.split('\n')) {
    const trimmed = line.trim()
    const indent = line.length - line.trimStart().length
    if (fence !== undefined) {
      if (trimmed.startsWith(fence) && trimmed.replace(/[`~]/g, '') === '') fence = undefined
      pending.push(line)
      recordRaw(line)
      continue
    }
    const fenceMatch = FENCE.exec(trimmed)
    if (fenceMatch) {
      fence = fenceMatch[1]
      pending.push(line)
      recordRaw(line)
      continue
    }

    const tag = TAG_LINE.exec(trimmed)
    const top = stack.at(-1)
    if (tag && tag[1].startsWith('end') && top?.segment.kind === 'tag' && top.segment.name === tag[1].slice(3)) {
      flush()
      recordRaw(line)
      close(stack)
    } else if (tag && !tag[1].startsWith('end')) {
      flush()
      const segment: TagSegment = { kind: 'tag', name: tag[1], ...parseAttributes(tag[2]), children: [], raw: '' }
      if (CONTAINER_TAGS.has(tag[1])) {
        recordRaw(line)
        output().push(segment)
        stack.push({ opener: line, indent, segment, lines: [line] })
      } else {
        segment.raw = trimmed
        recordRaw(line)
        output().push(segment)
      }
    } else if (/^<details\b[^>]*>/i.test(trimmed)) {
      flush()
      recordRaw(line)
      const segment: DetailsSegment = { kind: 'details', summary: '', children: [], raw: '' }
      output().push(segment)
      stack.push({ opener: line, indent, segment, lines: [line] })
      const rest = trimmed.replace(/^<details\b[^>]*>/i, '')
      if (rest.trim() !== '') readSummary(segment, rest, pending)
    } else if (/^<\/details>$/i.test(trimmed) && top?.segment.kind === 'details') {
      flush()
      recordRaw(line)
      close(stack)
    } else if (top?.segment.kind === 'details' && top.segment.summary === '' && /^<summary>/i.test(trimmed)) {
      recordRaw(line)
      readSummary(top.segment, trimmed, pending)
    } else {
      pending.push(line)
      recordRaw(line)
    }
  }
  flush()
  // Unclosed containers were not structure after all: put their text back.
  while (stack.length > 0) reopen(stack, root)
  return mergeMarkdown(root)
}

function close(stack: Frame[]): void {
  const frame = stack.pop()
  if (frame) frame.segment.raw = dedent(frame.lines, frame.indent)
}

/** Turns the innermost unclosed frame back into text: its opener line, then its children, in its parent. */
function reopen(stack: Frame[], root: Segment[]): void {
  const frame = stack.pop()
  if (!frame) return
  const parent = stack.length > 0 ? stack[stack.length - 1].segment.children : root
  const index = parent.indexOf(frame.segment)
  parent.splice(index, 1, { kind: 'markdown', text: frame.opener }, ...frame.segment.children)
}

function readSummary(segment: DetailsSegment, text: string, pending: string[]): void {
  const match = /^<summary>(.*?)<\/summary>(.*)$/is.exec(text.trim())
  if (!match) {
    pending.push(text)
    return
  }
  segment.summary = match[1].trim()
  if (match[2].trim() !== '') pending.push(match[2])
}

function parseAttributes(source: string): { attributes: Record<string, string>; argument?: string } {
  const attributes: Record<string, string> = {}
  for (const match of source.matchAll(/([a-zA-Z][\w-]*)\s*=\s*"([^"]*)"/g)) attributes[match[1]] = match[2]
  const argument = /^\s*"([^"]*)"/.exec(source)?.[1]
  return argument === undefined ? { attributes } : { attributes, argument }
}

/** Removes up to `indent` leading spaces from each line (content of an indented block). */
function dedent(lines: string[], indent: number): string {
  if (indent === 0) return lines.join('\n')
  return lines.map((line) => line.replace(new RegExp(`^ {0,${indent}}`), '')).join('\n')
}

/** Adjacent markdown segments (left by `reopen`) joined into one. */
function mergeMarkdown(segments: Segment[]): Segment[] {
  const out: Segment[] = []
  for (const segment of segments) {
    if (segment.kind !== 'markdown') segment.children = mergeMarkdown(segment.children)
    const last = out.at(-1)
    if (segment.kind === 'markdown' && last?.kind === 'markdown') last.text = `${last.text}\n${segment.text}`
    else out.push(segment)
  }
  return out
}

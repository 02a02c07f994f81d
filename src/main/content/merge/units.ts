/**
 * A page's text as a tree of units for the three-way merge.
 *
 * Every unit is an exact slice of the source and the units of a level
 * concatenate back to the text they came from, so a merge that picks units
 * from the sides never re-stringifies anything. The units are the blocks remark
 * sees (paragraphs, headings, code, html, list items, table rows, ...), the
 * text between them (blank lines, list markers, table delimiter rows), and
 * GitBook blocks `{% x %}` … `{% endx %}`, which remark reads as paragraphs:
 * their tag lines are cut out of the paragraphs that hold them and the units
 * between a tag and its end tag become the block's children.
 */
import type { Nodes } from 'mdast'
import { endOffset, parseMarkdownFile, parseMarkdownTree, startOffset } from '../markdown/syntax-tree'

export type UnitKind = 'gap' | 'frontMatter' | 'title' | 'tag' | 'text' | `gitbook:${string}` | Nodes['type']

export interface Unit {
  text: string
  kind: UnitKind
  /** Units the text is made of, for blocks whose parts merge separately (their texts concatenate to `text`). */
  children?: Unit[]
}

/** Blocks whose child blocks merge one by one. */
const CONTAINERS = new Set(['list', 'listItem', 'blockquote', 'table', 'footnoteDefinition'])

/** A line that is only a GitBook tag: `{% hint style="info" %}`, `{% endhint %}`. */
export const TAG_LINE = /^[ \t]*\{%-?\s*(end)?([A-Za-z][\w-]*)[^\n]*?-?%\}[ \t]*\r?$/

/** Units of a whole page file: front matter (key by key), the `# Title` line, the body's blocks. */
export function pageFileUnits(source: string): Unit[] {
  return withBom(source, (text) => {
    const units = levelUnits(text, parseMarkdownFile(text).children, 0, text.length)
    const first = units.find((unit) => unit.kind !== 'gap' && unit.kind !== 'frontMatter')
    if (first?.kind === 'heading' && /^\s*#(?!#)|\n=+\s*$/.test(first.text)) first.kind = 'title'
    return units
  })
}

/** Units of a page body (the markdown after the title, as the service stores it). */
export function pageBodyUnits(source: string): Unit[] {
  return withBom(source, (text) => levelUnits(text, parseMarkdownTree(text).children, 0, text.length))
}

/** remark drops a byte order mark and counts offsets after it: it is a unit of its own. */
function withBom(source: string, units: (text: string) => Unit[]): Unit[] {
  if (!source.startsWith('\uFEFF')) return units(source)
  return [{ text: '\uFEFF', kind: 'gap' }, ...units(source.slice(1))]
}

/** Units of `text[start, end)`, which holds `nodes` (siblings) and the text between them. */
function levelUnits(text: string, nodes: readonly Nodes[], start: number, end: number): Unit[] {
  const units: Unit[] = []
  let cursor = start
  for (const node of nodes) {
    const from = startOffset(node)
    if (from > cursor) units.push({ text: text.slice(cursor, from), kind: 'gap' })
    // remark can give a node that starts inside the one before (after a front matter it closed on a thematic
    // break): its text is taken from where the last one ended, so the units still add up to the text.
    if (from >= cursor) units.push(...blockUnits(text, node))
    else if (endOffset(node) > cursor) units.push({ text: text.slice(cursor, endOffset(node)), kind: node.type as UnitKind })
    cursor = Math.max(cursor, endOffset(node))
  }
  if (end > cursor) units.push({ text: text.slice(cursor, end), kind: 'gap' })
  return groupGitBookBlocks(joinGaps(units))
}

function blockUnits(text: string, node: Nodes): Unit[] {
  const from = startOffset(node)
  const to = endOffset(node)
  const slice = text.slice(from, to)
  if (node.type === 'paragraph') return paragraphUnits(slice)
  if (node.type === 'yaml') return [frontMatterUnit(slice)]
  if (CONTAINERS.has(node.type) && 'children' in node && node.children.length > 0) {
    return [{ text: slice, kind: node.type, children: levelUnits(text, node.children, from, to) }]
  }
  return [{ text: slice, kind: node.type as UnitKind }]
}

/** A paragraph, cut at the GitBook tag lines it holds (remark sees `{% hint %}\ntext\n{% endhint %}` as one paragraph). */
function paragraphUnits(slice: string): Unit[] {
  const lines = slice.split('\n')
  if (!lines.some((line) => TAG_LINE.test(line))) return [{ text: slice, kind: 'paragraph' }]
  const units: Unit[] = []
  lines.forEach((line, index) => {
    const tag = TAG_LINE.test(line)
    if (index > 0) units.push({ text: '\n', kind: 'gap' })
    const previous = units[units.length - 2]
    if (index > 0 && !tag && previous?.kind === 'paragraph') {
      units.pop()
      previous.text += `\n${line}`
    } else {
      units.push({ text: line, kind: tag ? 'tag' : 'paragraph' })
    }
  })
  return units
}

function joinGaps(units: Unit[]): Unit[] {
  const out: Unit[] = []
  for (const unit of units) {
    const last = out[out.length - 1]
    if (unit.kind === 'gap' && last?.kind === 'gap') last.text += unit.text
    else out.push(unit)
  }
  return out
}

function tagOf(unit: Unit): { end: boolean; name: string } | undefined {
  if (unit.kind !== 'tag') return undefined
  const match = TAG_LINE.exec(unit.text)
  return match ? { end: match[1] !== undefined, name: match[2] } : undefined
}

/** `{% x %}` … `{% endx %}` (at one level) become one unit whose children are the tags and what they enclose. */
function groupGitBookBlocks(units: Unit[]): Unit[] {
  const tags = units.map(tagOf)
  const closed = new Set(tags.filter((tag) => tag?.end).map((tag) => tag?.name))
  if (closed.size === 0) return units
  const out: Unit[] = []
  for (let i = 0; i < units.length; i++) {
    const tag = tags[i]
    const close = tag && !tag.end && closed.has(tag.name) ? matchingEnd(tags, i, tag.name) : -1
    if (close === -1 || !tag) {
      out.push(units[i])
      continue
    }
    const inner = groupGitBookBlocks(units.slice(i + 1, close))
    const children = [units[i], ...inner, units[close]]
    out.push({ text: children.map((unit) => unit.text).join(''), kind: `gitbook:${tag.name}`, children })
    i = close
  }
  return out
}

function matchingEnd(tags: Array<{ end: boolean; name: string } | undefined>, open: number, name: string): number {
  let depth = 0
  for (let i = open + 1; i < tags.length; i++) {
    const tag = tags[i]
    if (tag?.name !== name) continue
    if (!tag.end) depth++
    else if (depth === 0) return i
    else depth--
  }
  return -1
}

/**
 * Front matter `---\n…\n---` as its fences and one unit per top-level key (a
 * key line and the indented or `- ` lines under it), so keys merge one by one.
 */
function frontMatterUnit(slice: string): Unit {
  const open = slice.indexOf('\n') + 1
  const close = slice.lastIndexOf('\n') + 1
  if (open === 0 || close <= open) return { text: slice, kind: 'frontMatter' }
  const children: Unit[] = [{ text: slice.slice(0, open), kind: 'frontMatter' }]
  const lines = slice.slice(open, close).split(/(?<=\n)/)
  for (const line of lines) {
    const last = children[children.length - 1]
    const startsKey = /^[^\s#-]/.test(line) || /^-[^\s-]/.test(line)
    if (startsKey || children.length === 1) children.push({ text: line, kind: 'frontMatter' })
    else last.text += line
  }
  children.push({ text: slice.slice(close), kind: 'frontMatter' })
  return { text: slice, kind: 'frontMatter', children }
}

export function unitsText(units: readonly Unit[]): string {
  return units.map((unit) => unit.text).join('')
}

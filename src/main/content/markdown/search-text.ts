/**
 * What full-text search reads of a page file: its title (the first `# ` heading), its other headings,
 * and its text with the markup left out: GitBook's `{% %}` block tags, HTML tags, link targets,
 * emphasis and front matter go, the words stay; code (fenced, indented, inline) stays as it is written,
 * so an identifier or a command is found too. The text keeps the file's lines: line n of `body` holds
 * the words of line n of the file, so a match in it is reported at the file's line without a map.
 */
import type { Nodes } from 'mdast'
import { cleanText, textOf } from './heading-anchors'
import { parseMarkdownFile, visitNodes } from './syntax-tree'

export interface SearchText {
  /** The first level-one heading's text; undefined when the file has none. */
  title?: string
  /** The other headings' texts, one a line. */
  headings: string
  /** The file's words, line for line (title and headings included, so every match has a line). */
  body: string
}

const GITBOOK_TAG = /\{%.*?%\}/g
const HTML_TAG = /<[^>]*>/g

export function searchText(source: string): SearchText {
  const lineCount = source.split('\n').length
  const lines: string[] = Array.from({ length: lineCount }, () => '')
  /** Where the last value put on each line ends in the source: what lies between it and the next decides the space. */
  const lineEnds: number[] = Array.from({ length: lineCount }, () => -1)
  /** Lines of code blocks: their `{% %}` is code, not GitBook's markup. */
  const codeLines = new Set<number>()
  // `node`'s `value` put at 1-based `line` and on: a multi-line value keeps its own breaks. Two values
  // of a line are joined with a space only when the source has white space between them, so the words
  // of `**bold**er` or `[a link](x).` stay as written.
  const put = (node: Nodes, line: number, value: string, code = false) => {
    const start = node.position?.start.offset ?? 0
    const end = node.position?.end.offset ?? 0
    const parts = value.split('\n')
    parts.forEach((part, i) => {
      const at = line + i - 1
      if (at >= lineCount) return
      if (code) codeLines.add(at)
      if (i === 0 && lineEnds[at] >= 0 && /\s/.test(source.slice(lineEnds[at], start))) lines[at] += ' '
      lines[at] += part
      lineEnds[at] = i === parts.length - 1 ? end : source.length
    })
  }
  let title: string | undefined
  const headings: string[] = []
  visitNodes(parseMarkdownFile(source), (node: Nodes) => {
    const line = node.position?.start.line ?? 1
    switch (node.type) {
      case 'heading': {
        const text = cleanText(textOf(node))
        if (node.depth === 1 && title === undefined) title = text
        else if (text !== '') headings.push(text)
        return
      }
      case 'text':
        return put(node, line, node.value)
      case 'inlineCode':
        return put(node, line, node.value)
      case 'code': {
        // A fenced block's code starts on the line after its fence; an indented block's on its own.
        const fenced = /^\s*(`{3,}|~{3,})/.test(source.slice(node.position?.start.offset ?? 0, (node.position?.start.offset ?? 0) + 8))
        return put(node, fenced ? line + 1 : line, node.value, true)
      }
      case 'html':
        return put(node, line, node.value.replace(HTML_TAG, ' '))
      case 'image':
      case 'imageReference':
        return put(node, line, node.alt ?? '')
    }
  })
  // A tag is stripped from the whole line: a link inside it (`{% embed url="https://…" %}`) splits it
  // into several text nodes.
  const body = lines.map((text, i) => (codeLines.has(i) ? text : text.replace(GITBOOK_TAG, ' ')).replace(/\s+/g, ' ').trim())
  return { title, headings: headings.join('\n'), body: body.join('\n') }
}

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
  const lines: string[][] = Array.from({ length: lineCount }, () => [])
  /** Lines of code blocks: their `{% %}` is code, not GitBook's markup. */
  const codeLines = new Set<number>()
  // `value` put at 1-based `line` and on: a multi-line value keeps its own breaks.
  const put = (line: number, value: string, code = false) => {
    value.split('\n').forEach((part, i) => {
      const text = part.trim()
      if (code) codeLines.add(line + i - 1)
      if (text !== '' && line + i - 1 < lineCount) lines[line + i - 1].push(text)
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
        return put(line, node.value)
      case 'inlineCode':
        return put(line, node.value)
      case 'code': {
        // A fenced block's code starts on the line after its fence; an indented block's on its own.
        const fenced = /^\s*(`{3,}|~{3,})/.test(source.slice(node.position?.start.offset ?? 0, (node.position?.start.offset ?? 0) + 8))
        return put(fenced ? line + 1 : line, node.value, true)
      }
      case 'html':
        return put(line, node.value.replace(HTML_TAG, ' '))
      case 'image':
      case 'imageReference':
        return put(line, node.alt ?? '')
    }
  })
  // A tag is stripped from the whole line: a link inside it (`{% embed url="https://…" %}`) splits it
  // into several text nodes.
  const body = lines.map((words, i) => (codeLines.has(i) ? words.join(' ') : words.join(' ').replace(GITBOOK_TAG, ' ').replace(/\s+/g, ' ').trim()))
  return { title, headings: headings.join('\n'), body: body.join('\n') }
}

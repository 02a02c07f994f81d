/**
 * The one markdown parser of the module: remark with front matter and GFM.
 *
 * We only ever *read* the syntax tree, for its structure and source positions.
 * Nothing here stringifies a tree back to markdown: remark-stringify would
 * rewrite `*` bullets, escape `_` and mangle GitBook's `{% %}` blocks, which is
 * exactly the churn Git Sync users complain about.
 */
import { remark } from 'remark'
import remarkFrontmatter from 'remark-frontmatter'
import remarkGfm from 'remark-gfm'
import type { Nodes, Parents, Root } from 'mdast'

const bodyProcessor = remark().use(remarkGfm)
const fileProcessor = remark().use(remarkFrontmatter, ['yaml']).use(remarkGfm)

/** Syntax tree of markdown content (a page body: no front matter). */
export function parseMarkdownTree(source: string): Root {
  return bodyProcessor.parse(source)
}

/** Syntax tree of a whole file, whose leading `---` block is YAML front matter. */
export function parseMarkdownFile(source: string): Root {
  return fileProcessor.parse(source)
}

/** Start offset of a node in the parsed source (nodes from the parser always carry one). */
export function startOffset(node: Nodes): number {
  return node.position?.start.offset ?? 0
}

/** End offset (exclusive) of a node in the parsed source. */
export function endOffset(node: Nodes): number {
  return node.position?.end.offset ?? 0
}

/** Depth-first, document-order visit of every node under `root` (root included). */
export function visitNodes(root: Nodes, visit: (node: Nodes, parent: Parents | undefined) => void): void {
  const walk = (node: Nodes, parent: Parents | undefined): void => {
    visit(node, parent)
    if ('children' in node) for (const child of node.children) walk(child, node)
  }
  walk(root, undefined)
}

/** Plain text of a node: text, code and html values and image alts, concatenated. */
export function plainText(node: Nodes): string {
  if (node.type === 'image' || node.type === 'imageReference') return node.alt ?? ''
  if ('value' in node && typeof node.value === 'string') return node.value
  if ('children' in node) return node.children.map((child) => plainText(child)).join('')
  if (node.type === 'break') return '\n'
  return ''
}

/** Converts string offsets to 1-based line/column pairs. */
export class LineIndex {
  private readonly lineStarts: number[] = [0]

  constructor(text: string) {
    for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 10) this.lineStarts.push(i + 1)
  }

  locate(offset: number): { line: number; column: number } {
    let low = 0
    let high = this.lineStarts.length - 1
    while (low < high) {
      const mid = (low + high + 1) >> 1
      if (this.lineStarts[mid] <= offset) low = mid
      else high = mid - 1
    }
    return { line: low + 1, column: offset - this.lineStarts[low] + 1 }
  }
}

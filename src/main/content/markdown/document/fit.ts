/**
 * Which blocks may sit inside which, per the spec (a hint holds no code block,
 * a quote holds no image...), and how a block that may not is degraded into
 * ones that may: containers are unwrapped into their content, void blocks
 * become a paragraph with the equivalent link or text. Markdown allows any
 * nesting, the API does not; this is where the two meet.
 */
import type { DocumentBlock, DocumentBlockParagraph } from '@gitbook/api'
import { plainTextNode, textNodes, type InlineNode } from './inline'
import { refToTarget } from './refs'

type BlockType = DocumentBlock['type']

const ESSENTIALS: BlockType[] = ['paragraph', 'heading-1', 'heading-2', 'heading-3', 'list-ordered', 'list-unordered', 'list-tasks', 'divider']

/** Children allowed per container (from the spec's schemas). */
export const ALLOWED = {
  top: new Set<BlockType>([...ESSENTIALS, 'blockquote', 'hint', 'images', 'file', 'embed', 'code', 'math', 'expandable', 'tabs', 'content-ref', 'stepper', 'columns']),
  hint: new Set<BlockType>([...ESSENTIALS, 'embed']),
  quote: new Set<BlockType>([...ESSENTIALS, 'blockquote']),
  listItem: new Set<BlockType>([...ESSENTIALS, 'code', 'hint', 'blockquote', 'math']),
  tabItem: new Set<BlockType>([...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'hint', 'blockquote', 'math']),
  step: new Set<BlockType>([...ESSENTIALS, 'content-ref', 'code', 'embed', 'file', 'images', 'hint', 'blockquote', 'math', 'expandable']),
  column: new Set<BlockType>([...ESSENTIALS, 'images', 'code', 'hint', 'content-ref', 'embed', 'file', 'math', 'blockquote', 'expandable', 'stepper']),
  expandableBody: new Set<BlockType>([...ESSENTIALS, 'file', 'images', 'code', 'hint', 'blockquote']),
}

/** `blocks` with every block not in `allowed` replaced by its degraded form (recursively). */
export function fit<T extends DocumentBlock>(blocks: DocumentBlock[], allowed: Set<BlockType>): T[] {
  const out: DocumentBlock[] = []
  for (const block of blocks) {
    if (allowed.has(block.type)) out.push(block)
    else out.push(...fit(degrade(block), allowed))
  }
  return out as T[]
}

/** Simpler blocks carrying the same content; always ends in paragraphs, which every container accepts. */
function degrade(block: DocumentBlock): DocumentBlock[] {
  switch (block.type) {
    case 'code':
      return [paragraph(textNodes(block.nodes.map((line) => lineText(line.nodes)).join('\n'), ['code']))]
    case 'images':
      return [paragraph(block.nodes.map((image) => ({ object: 'inline' as const, type: 'inline-image' as const, isVoid: true as const, data: image.data.alt === undefined ? { ref: image.data.ref } : { ref: image.data.ref, alt: image.data.alt } })))]
    case 'math':
      return [paragraph([{ object: 'inline', type: 'inline-math', isVoid: true, data: { formula: block.data.formula } }])]
    case 'embed':
      return [linkParagraph({ kind: 'url', url: block.data.url }, block.data.url)]
    case 'file':
    case 'content-ref':
      return [linkParagraph(block.data.ref, refToTarget(block.data.ref, {}))]
    case 'expandable':
      return block.fragments.flatMap((fragment) => fragment.nodes as DocumentBlock[])
    case 'tabs':
    case 'stepper':
    case 'columns':
      return block.nodes.flatMap((item) => item.nodes as DocumentBlock[])
    case 'hint':
    case 'blockquote':
    case 'tabs-item':
    case 'stepper-step':
    case 'column':
      return block.nodes as DocumentBlock[]
    default:
      return [paragraph(textNodes(`[${block.type}]`))]
  }
}

export function paragraph(nodes: InlineNode[]): DocumentBlockParagraph {
  return { object: 'block', type: 'paragraph', nodes }
}

function linkParagraph(ref: Parameters<typeof refToTarget>[0], label: string): DocumentBlockParagraph {
  return paragraph([{ object: 'inline', type: 'link', isVoid: false, data: { ref }, nodes: [plainTextNode(label)] }])
}

function lineText(nodes: Array<{ object: string; leaves?: Array<{ text: string }> }>): string {
  return nodes.map((node) => (node.leaves ?? []).map((leaf) => leaf.text).join('')).join('')
}

import type { JSONDocument } from '../../content/types'

const isRecord = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object'

/** Text of one node: leaves of text nodes, the children of blocks and inlines. */
function nodeText(node: unknown): string {
  if (!isRecord(node)) return ''
  if (Array.isArray(node.leaves)) return node.leaves.map((leaf) => (isRecord(leaf) && typeof leaf.text === 'string' ? leaf.text : '')).join('')
  if (typeof node.text === 'string') return node.text
  const children = Array.isArray(node.nodes) ? node.nodes : []
  const parts = children.map(nodeText)
  return node.object === 'block' && children.some((c) => isRecord(c) && c.object === 'block') ? parts.filter(Boolean).join('\n') : parts.join('')
}

/** Plain text of a JSON document, one line per top-level block: what a translator is told as instructions. */
export function documentText(document: JSONDocument): string {
  return (document.nodes as unknown[])
    .map(nodeText)
    .filter((line) => line.trim() !== '')
    .join('\n')
}

/** Words are runs of non-space characters holding a letter or digit, so markdown punctuation is not counted. */
export function countWords(text: string): number {
  let count = 0
  for (const token of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(token)) count++
  return count
}

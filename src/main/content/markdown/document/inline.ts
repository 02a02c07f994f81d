/**
 * Markdown phrasing content (mdast) -> the API's inline nodes: runs of text
 * leaves carrying marks (bold, italic, strikethrough, code), plus link and
 * inline-image nodes.
 */
import type { DocumentInline, DocumentInlineImage, DocumentText, DocumentTextMark } from '@gitbook/api'
import type { Definition, PhrasingContent } from 'mdast'
import { imageRef, targetToRef, type DocumentConversionOptions } from './refs'

export type InlineNode = DocumentInline | DocumentText

export interface InlineContext {
  options: DocumentConversionOptions
  /** Reference-style link definitions of the markdown being converted, by normalized label. */
  definitions: Map<string, Definition>
  /** The markdown source, for constructs kept as their literal text. */
  source: string
}

type MarkType = 'bold' | 'italic' | 'strikethrough' | 'code'

export function convertInlines(nodes: PhrasingContent[], context: InlineContext): InlineNode[] {
  const builder = new InlineBuilder()
  for (const node of nodes) addInline(builder, node, [], context)
  return builder.finish()
}

/** A text node of one unmarked leaf. */
export function plainTextNode(text: string): DocumentText {
  return { object: 'text', leaves: [{ object: 'leaf', text, marks: [] }] }
}

/** Inline nodes for a plain string (titles, captions, raw blocks), optionally marked. */
export function textNodes(text: string, marks: MarkType[] = []): InlineNode[] {
  const builder = new InlineBuilder()
  builder.text(text, marks)
  return builder.finish()
}

function addInline(builder: InlineBuilder, node: PhrasingContent, marks: MarkType[], context: InlineContext): void {
  const children = (nodes: PhrasingContent[], mark: MarkType): void => {
    for (const child of nodes) addInline(builder, child, [...marks, mark], context)
  }
  switch (node.type) {
    case 'text':
      return builder.text(node.value, marks)
    case 'strong':
      return children(node.children, 'bold')
    case 'emphasis':
      return children(node.children, 'italic')
    case 'delete':
      return children(node.children, 'strikethrough')
    case 'inlineCode':
      return builder.text(node.value, [...marks, 'code'])
    case 'break':
      return builder.text('\n', marks)
    case 'link':
      return builder.inline(link(node.url, node.children, marks, context))
    case 'image':
      return builder.inline(inlineImage(node.url, node.alt ?? '', context))
    case 'linkReference':
    case 'imageReference': {
      const definition = context.definitions.get(node.identifier.toLowerCase())
      if (!definition) return builder.text(sourceOf(node, context), marks)
      if (node.type === 'imageReference') return builder.inline(inlineImage(definition.url, node.alt ?? '', context))
      return builder.inline(link(definition.url, node.children, marks, context))
    }
    default:
      // html, footnote references, anything else: their literal source text.
      return builder.text(sourceOf(node, context), marks)
  }
}

function link(url: string, nodes: PhrasingContent[], marks: MarkType[], context: InlineContext): DocumentInline {
  const inner = new InlineBuilder()
  for (const child of nodes) addInline(inner, child, marks, context)
  // A link holds only text and inline images.
  const children = inner.finish().filter((n): n is DocumentText | DocumentInlineImage => n.object === 'text' || n.type === 'inline-image')
  return { object: 'inline', type: 'link', isVoid: false, data: { ref: targetToRef(url, context.options) }, nodes: children }
}

export function inlineImage(url: string, alt: string, context: InlineContext): DocumentInlineImage {
  const data: DocumentInlineImage['data'] = { ref: imageRef(url, context.options) }
  if (alt !== '') data.alt = alt
  return { object: 'inline', type: 'inline-image', isVoid: true, data }
}

function sourceOf(node: PhrasingContent, context: InlineContext): string {
  const start = node.position?.start.offset
  const end = node.position?.end.offset
  return start === undefined || end === undefined ? '' : context.source.slice(start, end)
}

/** Accumulates inline nodes, merging adjacent leaves that carry the same marks. */
class InlineBuilder {
  private readonly nodes: InlineNode[] = []

  text(text: string, marks: MarkType[]): void {
    if (text === '') return
    const unique = [...new Set(marks)]
    const last = this.nodes.at(-1)
    const textNode: DocumentText = last?.object === 'text' ? last : { object: 'text', leaves: [] }
    if (textNode !== last) this.nodes.push(textNode)
    const previous = textNode.leaves.at(-1)
    if (previous && sameMarks(previous.marks ?? [], unique)) previous.text += text
    else textNode.leaves.push({ object: 'leaf', text, marks: unique.map((type): DocumentTextMark => ({ object: 'mark', type })) })
  }

  inline(node: DocumentInline): void {
    this.nodes.push(node)
  }

  finish(): InlineNode[] {
    return this.nodes.length > 0 ? this.nodes : [plainTextNode('')]
  }
}

function sameMarks(marks: DocumentTextMark[], types: MarkType[]): boolean {
  return marks.length === types.length && marks.every((mark, i) => mark.type === types[i])
}

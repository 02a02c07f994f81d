/**
 * Page body markdown -> the API's JSON document (`format=document`).
 *
 * Mapped: paragraphs, headings, lists (ordered, bulleted, tasks), code
 * blocks, quotes, dividers, images (markdown and `<figure>`), `$$` math,
 * bold / italic / strikethrough / code marks, links; GitBook's hint, tabs,
 * stepper, columns, code-with-title, embed, content-ref and file tags, and
 * `<details>` expandables.
 *
 * Approximated, because the JSON model has no equivalent or needs ids we do
 * not have: headings deeper than 3 become heading-3; tables, `{% include %}`,
 * `{% if %}`, updates, footnotes and other HTML become paragraphs of their
 * source text; blocks nested where the spec forbids them are unwrapped (see
 * fit.ts); without a resolver, page and file targets are URL references.
 */
import type { DocumentBlock, DocumentBlockCode, DocumentBlockImage, DocumentBlockImages, DocumentBlockListItem, JSONDocument } from '@gitbook/api'
import type { Definition, List, Nodes, RootContent } from 'mdast'
import { parseMarkdownTree, visitNodes } from '../syntax-tree'
import { ALLOWED, fit, paragraph } from './fit'
import { splitGitBookBlocks, type DetailsSegment, type Segment, type TagSegment } from './gitbook-blocks'
import { convertInlines, plainTextNode, textNodes, type InlineContext } from './inline'
import { imageRef, targetToRef, type DocumentConversionOptions } from './refs'

export function markdownToDocument(body: string, options: DocumentConversionOptions = {}): JSONDocument {
  const blocks = fit(convertSegments(splitGitBookBlocks(body), options), ALLOWED.top)
  return { object: 'document', data: {}, nodes: blocks as JSONDocument['nodes'] }
}

function convertSegments(segments: Segment[], options: DocumentConversionOptions): DocumentBlock[] {
  return segments.flatMap((segment): DocumentBlock[] => {
    if (segment.kind === 'markdown') return convertMarkdown(segment.text, options)
    if (segment.kind === 'details') return [expandable(segment, options)]
    return convertTag(segment, options)
  })
}

/* ------------------------------ GitBook tags ------------------------------ */

const HINT_STYLES = ['info', 'warning', 'danger', 'success'] as const

function convertTag(tag: TagSegment, options: DocumentConversionOptions): DocumentBlock[] {
  const inner = (): DocumentBlock[] => convertSegments(tag.children, options)
  const items = (name: string): TagSegment[] => tag.children.filter((c): c is TagSegment => c.kind === 'tag' && c.name === name)
  switch (tag.name) {
    case 'hint': {
      const style = HINT_STYLES.find((s) => s === tag.attributes.style) ?? 'info'
      return [{ object: 'block', type: 'hint', data: { style }, nodes: fit(inner(), ALLOWED.hint) }]
    }
    case 'tabs':
      return [{
        object: 'block',
        type: 'tabs',
        nodes: items('tab').map((tab) => ({
          object: 'block' as const,
          type: 'tabs-item' as const,
          data: { title: tab.attributes.title ?? '' },
          nodes: fit(convertSegments(tab.children, options), ALLOWED.tabItem),
        })),
      }]
    case 'stepper':
      return [{
        object: 'block',
        type: 'stepper',
        nodes: items('step').map((step) => ({
          object: 'block' as const,
          type: 'stepper-step' as const,
          data: {},
          nodes: fit(convertSegments(step.children, options), ALLOWED.step),
        })),
      }]
    case 'columns':
      return [{
        object: 'block',
        type: 'columns',
        isVoid: false,
        data: {},
        nodes: items('column').map((column) => ({
          object: 'block' as const,
          type: 'column' as const,
          data: {},
          nodes: fit(convertSegments(column.children, options), ALLOWED.column),
        })),
      }]
    case 'code':
      return inner().map((block) => (block.type === 'code' ? titledCode(block, tag.attributes) : block))
    case 'content-ref':
      return [{ object: 'block', type: 'content-ref', isVoid: true, data: { ref: targetToRef(tag.attributes.url ?? '', options) } }]
    case 'embed':
      return [{ object: 'block', type: 'embed', isVoid: true, data: { url: tag.attributes.url ?? '' } }]
    case 'file': {
      const ref = targetToRef(tag.attributes.src ?? '', options)
      if (ref.kind === 'file') return [{ object: 'block', type: 'file', isVoid: true, data: { ref } }]
      return [paragraph([{ object: 'inline', type: 'link', isVoid: false, data: { ref }, nodes: [plainTextNode(tag.attributes.src ?? '')] }])]
    }
    default:
      // include, if, updates and unknown tags: no id-free equivalent, keep the source.
      return [paragraph(textNodes(tag.raw))]
  }
}

function titledCode(block: DocumentBlockCode, attributes: Record<string, string>): DocumentBlockCode {
  const data = { ...block.data }
  if (attributes.title !== undefined) data.title = attributes.title
  if (attributes.lineNumbers === 'true') data.lineNumbers = true
  if (attributes.overflow === 'wrap') data.overflow = 'wrap'
  return { ...block, data }
}

function expandable(segment: DetailsSegment, options: DocumentConversionOptions): DocumentBlock {
  const title = convertMarkdown(segment.summary, options).find((block) => block.type === 'paragraph') ?? paragraph(textNodes(''))
  const body = fit(convertSegments(segment.children, options), ALLOWED.expandableBody)
  return {
    object: 'block',
    type: 'expandable',
    isVoid: true,
    data: {},
    fragments: [
      { object: 'fragment', fragment: 'expandable-title', type: 'expandable-title', nodes: [title] },
      { object: 'fragment', fragment: 'expandable-body', type: 'expandable-body', nodes: body.length > 0 ? body : [paragraph(textNodes(''))] },
    ],
  } as DocumentBlock
}

/* ------------------------------ markdown blocks --------------------------- */

function convertMarkdown(text: string, options: DocumentConversionOptions): DocumentBlock[] {
  const root = parseMarkdownTree(text)
  const definitions = new Map<string, Definition>()
  visitNodes(root, (node) => {
    if (node.type === 'definition') definitions.set(node.identifier.toLowerCase(), node)
  })
  const context: InlineContext = { options, definitions, source: text }
  return root.children.flatMap((node) => convertBlock(node, context))
}

function convertBlock(node: RootContent, context: InlineContext): DocumentBlock[] {
  const blocks = (children: RootContent[]): DocumentBlock[] => children.flatMap((child) => convertBlock(child, context))
  switch (node.type) {
    case 'paragraph': {
      const raw = sourceOf(node, context)
      const math = /^\$\$([\s\S]*?)\$\$$/.exec(raw.trim())
      if (math) return [{ object: 'block', type: 'math', isVoid: true, data: { formula: math[1].trim() } }]
      const images = node.children.filter((child) => child.type !== 'text' || child.value.trim() !== '')
      if (images.length > 0 && images.every((child) => child.type === 'image')) {
        return [imagesBlock(images.map((image) => (image.type === 'image' ? imageBlock(image.url, image.alt ?? '', undefined, context) : undefined)))]
      }
      return [paragraph(convertInlines(node.children, context))]
    }
    case 'heading': {
      const level = Math.min(node.depth, 3) as 1 | 2 | 3
      return [{ object: 'block', type: `heading-${level}`, data: {}, nodes: convertInlines(node.children, context) }]
    }
    case 'thematicBreak':
      return [{ object: 'block', type: 'divider', isVoid: true, data: {} }]
    case 'code':
      return [{
        object: 'block',
        type: 'code',
        data: node.lang ? { syntax: node.lang } : {},
        nodes: node.value.split('\n').map((line) => ({ object: 'block' as const, type: 'code-line' as const, data: {}, nodes: [plainTextNode(line)] })),
      }]
    case 'blockquote':
      return [{ object: 'block', type: 'blockquote', nodes: fit(blocks(node.children), ALLOWED.quote) }]
    case 'list':
      return [list(node, context)]
    case 'html':
      return [figure(node.value, context) ?? paragraph(textNodes(node.value))]
    case 'definition':
      return []
    default:
      // Tables, footnote definitions...: kept as their source text.
      return [paragraph(textNodes(sourceOf(node, context)))]
  }
}

function list(node: List, context: InlineContext): DocumentBlock {
  const tasks = node.children.some((item) => typeof item.checked === 'boolean')
  const items: DocumentBlockListItem[] = node.children.map((item) => {
    const nodes = fit<DocumentBlockListItem['nodes'][number]>(item.children.flatMap((child) => convertBlock(child, context)), ALLOWED.listItem)
    const block: DocumentBlockListItem = { object: 'block', type: 'list-item', nodes: nodes.length > 0 ? nodes : [paragraph(textNodes(''))] }
    if (tasks) block.data = { checked: item.checked === true }
    return block
  })
  if (tasks) return { object: 'block', type: 'list-tasks', nodes: items }
  if (node.ordered) return { object: 'block', type: 'list-ordered', data: node.start != null && node.start !== 1 ? { start: node.start } : {}, nodes: items }
  return { object: 'block', type: 'list-unordered', nodes: items }
}

/** GitBook writes images with captions as `<figure><img src alt><figcaption>`. */
function figure(html: string, context: InlineContext): DocumentBlock | undefined {
  if (!/^\s*<figure\b/i.test(html)) return undefined
  const images = Array.from(html.matchAll(/<img\b[^>]*>/gi), (match) => {
    const src = /\ssrc\s*=\s*"([^"]*)"/i.exec(match[0])?.[1]
    const alt = /\salt\s*=\s*"([^"]*)"/i.exec(match[0])?.[1] ?? ''
    const caption = /<figcaption>([\s\S]*?)<\/figcaption>/i.exec(html)?.[1].replace(/<\/?p>/gi, '').trim()
    return src === undefined ? undefined : imageBlock(decodeEntities(src), decodeEntities(alt), caption, context)
  })
  return images.some(Boolean) ? imagesBlock(images) : undefined
}

function imagesBlock(images: Array<DocumentBlockImage | undefined>): DocumentBlockImages {
  return { object: 'block', type: 'images', isVoid: false, data: {}, nodes: images.filter((i): i is DocumentBlockImage => i !== undefined) }
}

function imageBlock(url: string, alt: string, caption: string | undefined, context: InlineContext): DocumentBlockImage {
  const data: DocumentBlockImage['data'] = { ref: imageRef(url, context.options) }
  if (alt !== '') data.alt = alt
  const fragments: DocumentBlockImage['fragments'] = caption
    ? [{ object: 'fragment', fragment: 'caption', nodes: [paragraph(textNodes(decodeEntities(caption)))] }]
    : []
  return { object: 'block', type: 'image', isVoid: true, data, fragments }
}

function sourceOf(node: Nodes, context: InlineContext): string {
  const start = node.position?.start.offset
  const end = node.position?.end.offset
  return start === undefined || end === undefined ? '' : context.source.slice(start, end)
}

function decodeEntities(text: string): string {
  return text.replace(/&quot;/g, '"').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&')
}

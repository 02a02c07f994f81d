/**
 * The API's JSON document -> page body markdown, written the way Git Sync
 * writes pages (`*` bullets, `{% hint %}` and friends, `<figure>` for
 * captioned images, `<details>` for expandables), so that
 * `markdownToDocument(documentToMarkdown(doc))` gives `doc` back for the
 * blocks markdownToDocument produces.
 *
 * Not written: blocks with no markdown form (tables, OpenAPI, integrations,
 * drawings...) become an HTML comment naming them; inline nodes other than
 * links, images, math and emoji are dropped.
 */
import type { DocumentBlock, DocumentInline, DocumentText, JSONDocument } from '@gitbook/api'
import { refToTarget, type DocumentConversionOptions } from './refs'

type InlineNode = DocumentInline | DocumentText

export function documentToMarkdown(document: JSONDocument, options: DocumentConversionOptions = {}): string {
  if (typeof document !== 'object' || document === null || !Array.isArray(document.nodes)) return ''
  return blocksToMarkdown(document.nodes as DocumentBlock[], options).trimEnd()
}

function blocksToMarkdown(blocks: DocumentBlock[], options: DocumentConversionOptions): string {
  return blocks.map((block) => blockToMarkdown(block, options)).join('\n\n')
}

function blockToMarkdown(block: DocumentBlock, options: DocumentConversionOptions): string {
  const children = (nodes: unknown): string => blocksToMarkdown(nodes as DocumentBlock[], options)
  const inline = (nodes: InlineNode[]): string => inlinesToMarkdown(nodes, options)
  switch (block.type) {
    case 'paragraph':
      return paragraphToMarkdown(block.nodes, options)
    case 'heading-1':
    case 'heading-2':
    case 'heading-3':
      return `${'#'.repeat(Number(block.type.slice(-1)))} ${inline(block.nodes).replace(/\s*\n\s*/g, ' ')}`
    case 'list-unordered':
    case 'list-ordered':
    case 'list-tasks':
      return block.nodes
        .map((item, i) => {
          const marker =
            block.type === 'list-ordered' ? `${(block.data.start ?? 1) + i}.` : block.type === 'list-tasks' ? `* [${item.data?.checked ? 'x' : ' '}]` : '*'
          return indentItem(`${marker} `, children(item.nodes))
        })
        .join('\n')
    case 'divider':
      return '***'
    case 'code': {
      const text = block.nodes.map((line) => line.nodes.map((n) => (n.object === 'text' ? leavesText(n) : '')).join('')).join('\n')
      const fence = '`'.repeat(Math.max(3, longestRun(text, '`') + 1))
      const code = `${fence}${block.data.syntax ?? ''}\n${text}\n${fence}`
      const attributes = [
        block.data.title !== undefined ? `title="${attribute(block.data.title)}"` : '',
        block.data.lineNumbers ? 'lineNumbers="true"' : '',
        block.data.overflow === 'wrap' ? 'overflow="wrap"' : '',
      ].filter(Boolean)
      return attributes.length > 0 ? `{% code ${attributes.join(' ')} %}\n${code}\n{% endcode %}` : code
    }
    case 'blockquote':
      return children(block.nodes)
        .split('\n')
        .map((line) => (line === '' ? '>' : `> ${line}`))
        .join('\n')
    case 'hint':
      return `{% hint style="${block.data.style}" %}\n${children(block.nodes)}\n{% endhint %}`
    case 'images':
      return imagesToMarkdown(block.nodes, options)
    case 'math':
      return `$$\n${block.data.formula}\n$$`
    case 'embed':
      return `{% embed url="${attribute(block.data.url)}" %}`
    case 'file':
      return `{% file src="${attribute(refToTarget(block.data.ref, options))}" %}`
    case 'content-ref': {
      const target = refToTarget(block.data.ref, options)
      return `{% content-ref url="${attribute(target)}" %}\n[${escapeText(target)}](${destination(target)})\n{% endcontent-ref %}`
    }
    case 'expandable': {
      const title = block.fragments.find((f) => f.fragment === 'expandable-title')?.nodes ?? []
      const body = block.fragments.find((f) => f.fragment === 'expandable-body')?.nodes ?? []
      const summary = title.map((p) => (p.type === 'paragraph' ? inline(p.nodes) : '')).join(' ')
      return `<details>\n\n<summary>${summary}</summary>\n\n${children(body)}\n\n</details>`
    }
    case 'tabs':
      return container('tabs', block.nodes.map((item) => container('tab', children(item.nodes), `title="${attribute(item.data.title ?? '')}"`)).join('\n\n'))
    case 'stepper':
      return container('stepper', block.nodes.map((step) => container('step', children(step.nodes))).join('\n\n'))
    case 'columns':
      return container('columns', block.nodes.map((column) => container('column', children(column.nodes))).join('\n\n'))
    default:
      return `<!-- ${block.type} block not representable in markdown -->`
  }
}

function container(name: string, content: string, attributes = ''): string {
  return `{% ${name}${attributes ? ` ${attributes}` : ''} %}\n${content}\n{% end${name} %}`
}

/** List item content: the first line after the marker, the rest indented to align with it. */
function indentItem(marker: string, content: string): string {
  const pad = ' '.repeat(marker.length)
  return content
    .split('\n')
    .map((line, i) => (i === 0 ? marker + line : line === '' ? '' : pad + line))
    .join('\n')
}

function imagesToMarkdown(images: Extract<DocumentBlock, { type: 'images' }>['nodes'], options: DocumentConversionOptions): string {
  const written = images.map((image) => {
    const target = refToTarget(image.data.ref, options)
    // Inside HTML, markdown escapes are not read: captions are written as escaped plain text.
    const caption = image.fragments
      .flatMap((fragment) => fragment.nodes)
      .map((p) => (p.type === 'paragraph' ? p.nodes.map((n) => (n.object === 'text' ? leavesText(n) : '')).join('') : ''))
      .join(' ')
      .replace(/&/g, '&amp;')
      .replace(/</g, '&lt;')
      .replace(/>/g, '&gt;')
    if (caption === '') return { figure: false, text: `![${escapeText(image.data.alt ?? '')}](${destination(target)})` }
    const alt = attribute(image.data.alt ?? '')
    return { figure: true, text: `<figure><img src="${attribute(target)}" alt="${alt}"><figcaption><p>${caption}</p></figcaption></figure>` }
  })
  // Plain images share one line (one images block); figures are blocks of their own.
  return written.map((w) => w.text).join(written.some((w) => w.figure) ? '\n\n' : ' ')
}

/* --------------------------------- inline --------------------------------- */

/**
 * A paragraph of one unmarked text that starts like raw GitBook or HTML
 * syntax is the source text markdownToDocument kept for a construct it could
 * not map: it is written back verbatim rather than escaped.
 */
function paragraphToMarkdown(nodes: InlineNode[], options: DocumentConversionOptions): string {
  const only = nodes.length === 1 ? nodes[0] : undefined
  if (only?.object === 'text' && only.leaves.every((leaf) => (leaf.marks ?? []).length === 0)) {
    const text = leavesText(only)
    if (/^(\{%|<|\|)/.test(text)) return text
  }
  return inlinesToMarkdown(nodes, options)
    .split('\n')
    .map((line) => line.replace(/^(\s*)([#>+=~-]|\d+[.)])/, '$1\\$2'))
    .join('\n')
}

function inlinesToMarkdown(nodes: InlineNode[], options: DocumentConversionOptions): string {
  return nodes
    .map((node) => {
      if (node.object === 'text') return textToMarkdown(node)
      switch (node.type) {
        case 'link':
          return `[${inlinesToMarkdown(node.nodes, options)}](${destination(refToTarget(node.data.ref, options))})`
        case 'inline-image':
          return `![${escapeText(node.data.alt ?? '')}](${destination(refToTarget(node.data.ref, options))})`
        case 'inline-math':
          return `$$${node.data.formula}$$`
        case 'emoji':
          return node.data.code
        default:
          return ''
      }
    })
    .join('')
}

const DELIMITERS: Record<string, string> = { bold: '**', italic: '*', strikethrough: '~~' }

/**
 * The leaves of one text node. A mark stays open across consecutive leaves
 * that carry it (`*a `b` c*`, not `*a* *`b`* *c*`, which markdown would pair
 * up differently), and whitespace is kept outside delimiters, as CommonMark
 * requires for them to count. Line breaks become hard breaks.
 */
function textToMarkdown(node: DocumentText): string {
  let out = ''
  let open: string[] = []
  let trailing = ''
  const closeFrom = (index: number): void => {
    out += open.slice(index).reverse().map((mark) => DELIMITERS[mark]).join('')
    open = open.slice(0, index)
  }
  for (const leaf of node.leaves) {
    const marks: string[] = (leaf.marks ?? []).map((mark) => mark.type)
    const [, lead, core, trail] = /^(\s*)([\s\S]*?)(\s*)$/.exec(leaf.text) ?? ['', '', leaf.text, '']
    if (core === '') {
      trailing += leaf.text
      continue
    }
    const stale = open.findIndex((mark) => !marks.includes(mark))
    if (stale !== -1) closeFrom(stale)
    out += trailing + lead
    for (const mark of ['bold', 'italic', 'strikethrough']) {
      if (marks.includes(mark) && !open.includes(mark)) {
        out += DELIMITERS[mark]
        open.push(mark)
      }
    }
    out += marks.includes('code') ? codeSpan(core.replace(/\n/g, ' ')) : escapeText(core).replace(/\n/g, '\\\n')
    trailing = trail
  }
  closeFrom(0)
  return out + trailing
}

function codeSpan(text: string): string {
  const fence = '`'.repeat(longestRun(text, '`') + 1)
  const pad = text.startsWith('`') || text.endsWith('`') ? ' ' : ''
  return `${fence}${pad}${text}${pad}${fence}`
}

/** Escapes what would otherwise be markdown syntax; `_` only where it could open or close emphasis. */
function escapeText(text: string): string {
  return text
    .replace(/[\\`*[\]<]/g, (char) => `\\${char}`)
    .replace(/_/g, (char, offset: number) => (/\w/.test(text[offset - 1] ?? '') && /\w/.test(text[offset + 1] ?? '') ? char : `\\${char}`))
    .replace(/&(?=#?\w+;)/g, '\\&')
}

function leavesText(node: DocumentText): string {
  return node.leaves.map((leaf) => leaf.text).join('')
}

function destination(target: string): string {
  return /[\s()<>]/.test(target) ? `<${target.replace(/[<>]/g, (c) => `\\${c}`)}>` : target
}

function attribute(value: string): string {
  return value.replace(/"/g, '&quot;')
}

function longestRun(text: string, char: string): number {
  let longest = 0
  let current = 0
  for (const c of text) {
    current = c === char ? current + 1 : 0
    longest = Math.max(longest, current)
  }
  return longest
}

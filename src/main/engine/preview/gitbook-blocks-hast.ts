import type { Element, ElementContent, Properties, Root } from 'hast'
import katex from 'katex'
import rehypeRaw from 'rehype-raw'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'
import { splitGitBookBlocks, type Segment, type TagSegment } from '../../content'

/**
 * GitBook's blocks as HTML elements, the way the service's pages show them: the content model's parser
 * (`splitGitBookBlocks`, the one the sync engine converts pages with) finds the blocks; the page is then
 * parsed by remark once, whole, with each block an empty `<div data-gb="…">` frame around its content
 * (one parse, not one per piece of markdown between blocks: that cost seconds on a long page), and
 * rehype-raw nests the frames and the page's own raw HTML. Each frame then becomes its block. Nothing
 * here is trusted yet: render-preview.ts sanitizes the whole tree after.
 */

const toHast = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true })
const parseRaw = unified().use(rehypeRaw)

const HINT_WORDS: Record<string, string> = { info: 'Info', success: 'Success', warning: 'Warning', danger: 'Danger' }

export const el = (tagName: string, properties: Properties, children: ElementContent[] = []): Element => ({ type: 'element', tagName, properties, children })
const text = (value: string): ElementContent => ({ type: 'text', value })

/** TeX as MathML (KaTeX's MathML output: the browser lays it out, no fonts or styles to load), on one line. */
function mathHtml(tex: string, display: boolean): string {
  return katex.renderToString(tex, { output: 'mathml', displayMode: display, throwOnError: false }).replace(/\n/g, ' ')
}

/** Inline math as an element whose MathML rehype-raw parses. */
export function mathBlock(tex: string, display: boolean): Element {
  return el(display ? 'div' : 'span', { className: ['gb-math'] }, [{ type: 'raw', value: mathHtml(tex, display) } as unknown as ElementContent])
}

/** What a frame stands for: a block (its segment), or a details' summary. */
type Frame = { kind: 'block'; segment: Segment } | { kind: 'summary' }

class Page {
  readonly frames: Frame[] = []
  /** Unguessable per render, so a page's own `<div data-gb>` is never taken for a frame. */
  readonly nonce = Math.random().toString(36).slice(2, 10)

  open(frame: Frame): string {
    this.frames.push(frame)
    return `\n\n<div data-gb="${this.nonce}-${this.frames.length - 1}">\n\n`
  }

  markdown(segments: Segment[]): string {
    return segments.map((s) => this.segment(s)).join('')
  }

  private segment(segment: Segment): string {
    if (segment.kind === 'markdown') return this.math(segment.text.replace(/^\s*\{%\s*end(file|embed)\s*%\}\s*$/gm, ''))
    const summary = segment.kind === 'details' ? `${this.open({ kind: 'summary' })}${segment.summary}\n\n</div>\n\n` : ''
    return `${this.open({ kind: 'block', segment })}${summary}${this.markdown(segment.children)}\n\n</div>\n\n`
  }

  /** `$$ … $$` math blocks (on lines of their own, outside code) as frames; the rest as it is. */
  private math(source: string): string {
    const lines = source.split('\n')
    const out: string[] = []
    let fence: string | undefined
    for (let i = 0; i < lines.length; i++) {
      const trimmed = lines[i].trim()
      const opens = /^(`{3,}|~{3,})/.exec(trimmed)
      if (fence !== undefined) {
        if (trimmed.startsWith(fence) && trimmed.replace(/[`~]/g, '') === '') fence = undefined
      } else if (opens) {
        fence = opens[1]
      } else if (trimmed.startsWith('$$')) {
        // `$$x$$` on one line, or `$$` … `$$` over several.
        const one = /^\$\$(.+)\$\$$/.exec(trimmed)
        const end = one ? i : lines.findIndex((line, j) => j > i && line.trim().endsWith('$$'))
        if (one || end > i) {
          const tex = one ? one[1] : [trimmed.slice(2), ...lines.slice(i + 1, end), lines[end].trim().slice(0, -2)].join('\n')
          // An HTML block of one line: KaTeX escapes the TeX, so the page cannot write HTML through it.
          out.push(`\n\n<div class="gb-math">${mathHtml(tex.trim(), true)}</div>\n\n`)
          i = end
          continue
        }
      }
      out.push(lines[i])
    }
    return out.join('\n')
  }
}

/** A page body's blocks and markdown as (unsanitized) HTML elements, the page's raw HTML parsed. */
export function gitbookToHast(body: string, beforeRaw?: (root: Root) => void): ElementContent[] {
  const page = new Page()
  const source = page.markdown(splitGitBookBlocks(body))
  const root = toHast.runSync(toHast.parse(source)) as Root
  beforeRaw?.(root)
  const parsed = parseRaw.runSync(root) as Root
  return unframe(parsed.children as ElementContent[], page)
}

function frameOf(node: ElementContent, page: Page): Frame | undefined {
  if (node.type !== 'element' || node.tagName !== 'div') return undefined
  const id = node.properties.dataGb
  if (typeof id !== 'string' || !id.startsWith(`${page.nonce}-`)) return undefined
  return page.frames[Number(id.slice(page.nonce.length + 1))]
}

function unframe(nodes: ElementContent[], page: Page): ElementContent[] {
  return nodes.flatMap((node): ElementContent[] => {
    const frame = frameOf(node, page)
    if (node.type !== 'element') return [node]
    if (!frame) return [{ ...node, children: unframe(node.children, page) }]
    // The line breaks between a frame's blocks are no content of the block.
    const inner = unframe(node.children, page).filter((n) => n.type !== 'text' || n.value.trim() !== '')
    if (frame.kind === 'summary') return [el('summary', {}, inlineOf(inner))]
    return block(frame.segment, inner)
  })
}

/** A summary's content: its paragraph's children. */
function inlineOf(nodes: ElementContent[]): ElementContent[] {
  const first = nodes.find((n) => n.type === 'element')
  return first && first.type === 'element' && first.tagName === 'p' ? first.children : first ? [first] : []
}

/** The child blocks of a container that takes only some (tabs take tabs, a stepper steps, columns columns). */
const only = (nodes: ElementContent[], className: string) => nodes.filter((n) => n.type === 'element' && Array.isArray(n.properties.className) && n.properties.className.includes(className))

function block(segment: Segment, children: ElementContent[]): ElementContent[] {
  if (segment.kind === 'details') return [el('details', { className: ['gb-details'] }, children)]
  if (segment.kind !== 'tag') return children
  const a = (segment as TagSegment).attributes
  switch (segment.name) {
    case 'hint': {
      const style = HINT_WORDS[a.style] ? a.style : 'info'
      return [el('div', { className: ['gb-hint', `gb-hint-${style}`], role: 'note' }, [el('p', { className: ['gb-hint-label'] }, [text(HINT_WORDS[style])]), ...children])]
    }
    case 'tabs':
      return [el('div', { className: ['gb-tabs'] }, only(children, 'gb-tab'))]
    case 'tab':
      return [el('div', { className: ['gb-tab'], dataTitle: a.title ?? 'Tab' }, children)]
    case 'code':
      return [el('figure', { className: ['gb-code'] }, [...(a.title ? [el('figcaption', {}, [text(a.title)])] : []), ...children])]
    case 'stepper':
      return [el('ol', { className: ['gb-stepper'] }, only(children, 'gb-step'))]
    case 'step':
      return [el('li', { className: ['gb-step'] }, children)]
    case 'columns':
      return [el('div', { className: ['gb-columns'] }, only(children, 'gb-column'))]
    case 'column':
      return [el('div', { className: ['gb-column'] }, children)]
    case 'content-ref':
      // Its body is the link GitBook writes beside the tag; without one, the tag's own url.
      return [el('div', { className: ['gb-content-ref'] }, children.some((c) => c.type === 'element') ? children : [el('p', {}, [el('a', { href: a.url ?? '' }, [text(a.url ?? '')])])])]
    case 'embed':
      // Not loaded (nothing remote is fetched): the writer opens it in the browser.
      return [el('div', { className: ['gb-embed'] }, [el('p', { className: ['gb-embed-note'] }, [text('Embedded content, not loaded in the preview: ')]), el('a', { href: a.url ?? '', className: ['gb-embed-link'] }, [text(a.url ?? '')])])]
    case 'file':
      return [el('div', { className: ['gb-file'] }, [el('a', { href: a.src ?? '', className: ['gb-file-link'] }, [text(fileName(a.src ?? ''))])])]
    case 'include':
      return [el('p', { className: ['gb-include'] }, [text(`Included content: ${segment.argument ?? a.path ?? ''}`)])]
    case 'if':
    case 'updates':
    case 'update':
      return children
    default:
      // A tag the preview does not know is shown as written.
      return [el('p', {}, [text(segment.raw)])]
  }
}

function fileName(src: string): string {
  try {
    return decodeURIComponent(src.split('/').at(-1) ?? src) || 'File'
  } catch {
    return src
  }
}

import type { Element, ElementContent, Properties } from 'hast'
import katex from 'katex'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import remarkRehype from 'remark-rehype'
import { unified } from 'unified'
import { splitGitBookBlocks, type Segment } from '../../content'

/**
 * GitBook's blocks as HTML elements, the way the service's pages show them: the content model's parser
 * (`splitGitBookBlocks`, the one the sync engine converts pages with) finds the blocks, remark renders
 * the markdown between them. Raw HTML stays `raw` here: render-preview.ts parses it and sanitizes the
 * whole page after. Nothing here is trusted yet.
 */

const markdown = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true })

const HINT_WORDS: Record<string, string> = { info: 'Info', success: 'Success', warning: 'Warning', danger: 'Danger' }

export const el = (tagName: string, properties: Properties, children: ElementContent[] = []): Element => ({ type: 'element', tagName, properties, children })
const text = (value: string): ElementContent => ({ type: 'text', value })

/** Markdown between blocks, with `$$ … $$` math blocks (on lines of their own, outside code) set apart. */
function markdownToHast(source: string): ElementContent[] {
  const out: ElementContent[] = []
  const lines = source.split('\n')
  let pending: string[] = []
  let fence: string | undefined
  const flush = () => {
    if (pending.join('').trim() !== '') out.push(...(markdown.runSync(markdown.parse(pending.join('\n'))) as { children: ElementContent[] }).children)
    pending = []
  }
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
        flush()
        const tex = one ? one[1] : [trimmed.slice(2), ...lines.slice(i + 1, end), lines[end].trim().slice(0, -2)].join('\n')
        out.push(mathBlock(tex.trim(), true))
        i = end
        continue
      }
    }
    pending.push(lines[i])
  }
  flush()
  return out
}

/** TeX as MathML (KaTeX's MathML output: the browser lays it out, no fonts or styles to load). */
export function mathBlock(tex: string, display: boolean): Element {
  const html = katex.renderToString(tex, { output: 'mathml', displayMode: display, throwOnError: false })
  return el(display ? 'div' : 'span', { className: ['gb-math'] }, [{ type: 'raw', value: html } as unknown as ElementContent])
}

function children(segments: Segment[]): ElementContent[] {
  return segments.flatMap(segmentToHast)
}

function segmentToHast(segment: Segment): ElementContent[] {
  if (segment.kind === 'markdown') return markdownToHast(segment.text.replace(/^\s*\{%\s*end(file|embed)\s*%\}\s*$/gm, ''))
  if (segment.kind === 'details') return [el('details', { className: ['gb-details'] }, [el('summary', {}, inline(segment.summary)), ...children(segment.children)])]
  const a = segment.attributes
  switch (segment.name) {
    case 'hint': {
      const style = HINT_WORDS[a.style] ? a.style : 'info'
      return [el('div', { className: ['gb-hint', `gb-hint-${style}`], role: 'note' }, [el('p', { className: ['gb-hint-label'] }, [text(HINT_WORDS[style])]), ...children(segment.children)])]
    }
    case 'tabs':
      return [el('div', { className: ['gb-tabs'] }, segment.children.filter((c) => c.kind === 'tag' && c.name === 'tab').flatMap(segmentToHast))]
    case 'tab':
      return [el('div', { className: ['gb-tab'], dataTitle: a.title ?? 'Tab' }, children(segment.children))]
    case 'code':
      return [el('figure', { className: ['gb-code'] }, [...(a.title ? [el('figcaption', {}, [text(a.title)])] : []), ...children(segment.children)])]
    case 'stepper':
      return [el('ol', { className: ['gb-stepper'] }, segment.children.filter((c) => c.kind === 'tag' && c.name === 'step').flatMap(segmentToHast))]
    case 'step':
      return [el('li', { className: ['gb-step'] }, children(segment.children))]
    case 'columns':
      return [el('div', { className: ['gb-columns'] }, segment.children.filter((c) => c.kind === 'tag' && c.name === 'column').flatMap(segmentToHast))]
    case 'column':
      return [el('div', { className: ['gb-column'] }, children(segment.children))]
    case 'content-ref':
      // Its body is the link GitBook writes beside the tag; without one, the tag's own url.
      return [el('div', { className: ['gb-content-ref'] }, segment.children.length > 0 ? children(segment.children) : [el('p', {}, [el('a', { href: a.url ?? '' }, [text(a.url ?? '')])])])]
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
      return children(segment.children)
    default:
      // A tag the preview does not know is shown as written.
      return [el('p', {}, [text(segment.raw)])]
  }
}

function fileName(src: string): string {
  return decodeURIComponent(src.split('/').at(-1) ?? src) || 'File'
}

/** A summary's markdown, as inline elements (a paragraph's children). */
function inline(source: string): ElementContent[] {
  const [first] = markdownToHast(source)
  return first && first.type === 'element' && first.tagName === 'p' ? first.children : first ? [first] : []
}

/** A page body's blocks and markdown as (unsanitized) HTML elements. */
export function gitbookToHast(body: string): ElementContent[] {
  return children(splitGitBookBlocks(body))
}

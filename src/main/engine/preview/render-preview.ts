import type { Element, ElementContent, Root, RootContent } from 'hast'
import { toHtml } from 'hast-util-to-html'
import rehypeSanitize from 'rehype-sanitize'
import { unified } from 'unified'
import type { PreviewRoot } from '../../../shared/contract'
import { gitbookAnchor, resolveRelativePath, splitPageMarkdown, uniqueAnchor } from '../../content'
import { el, gitbookToHast, mathBlock } from './gitbook-blocks-hast'
import { PREVIEW_SCHEMA } from './preview-schema'

/**
 * A page as the service shows it, from its markdown, as a sanitized HTML tree (pure: the caller reads
 * the files). Raw HTML is parsed (rehype-raw) and the whole page sanitized after (rehype-sanitize with
 * the comments' rules plus GitBook's blocks, preview-schema.ts), so no script, handler or `javascript:`
 * address survives. Nothing is fetched: images come from the workspace's `.gitbook/assets` as `data:`
 * addresses the caller reads; a remote image or an embed is a link until the writer opens it.
 */

export interface PreviewContext {
  /** The page's path in its space folder (`guide/install.md`): relative links and images start there. */
  pagePath: string
  /** The image at this space path (inside `.gitbook/assets`) as a `data:` address; undefined when none. */
  image?: (spacePath: string) => string | undefined
  /** Whether a page file is at this space path. */
  pageExists?: (spacePath: string) => boolean
}

const ASSETS = '.gitbook/assets/'
const REMOTE = /^https?:\/\//i
const SCHEME = /^[a-z][a-z0-9+.-]*:/i

const sanitize = unified().use(rehypeSanitize, PREVIEW_SCHEMA)

export function renderPreview(markdown: string, context: PreviewContext): { title?: string; tree: PreviewRoot } {
  const { title, body } = splitPageMarkdown(markdown)
  // Inline math is found before the raw HTML is parsed: only markdown text holds it.
  const parsed: Root = { type: 'root', children: [...(title ? [el('h1', {}, [{ type: 'text', value: title }])] : []), ...gitbookToHast(body, inlineMath)] }
  const taken = new Set<string>()
  visit(parsed, (node, parent, index) => rewrite(node, parent, index, context, taken))
  const clean = sanitize.runSync(parsed) as Root
  return { ...(title ? { title } : {}), tree: plain(clean) as PreviewRoot }
}

/** The preview as an HTML string (tests, `quire preview`). */
export function previewHtml(tree: PreviewRoot): string {
  return toHtml(tree as Root)
}

type Parent = Root | Element

function visit(parent: Parent, fn: (node: Element, parent: Parent, index: number) => void) {
  for (let i = 0; i < parent.children.length; i++) {
    const node = parent.children[i]
    if (node.type !== 'element') continue
    fn(node, parent, i)
    // `fn` may have replaced the node: walk what is there now.
    const now = parent.children[i]
    if (now.type === 'element') visit(now, fn)
  }
}

/** GitBook's inline math, `$$x$$` inside a paragraph (never inside code). */
function inlineMath(parent: Parent) {
  parent.children = parent.children.flatMap((node): RootContent[] => {
    if (node.type === 'element' && (node.tagName === 'code' || node.tagName === 'pre')) return [node]
    if (node.type === 'element') {
      inlineMath(node)
      return [node]
    }
    if (node.type !== 'text' || !node.value.includes('$$')) return [node]
    const parts = node.value.split(/\$\$(.+?)\$\$/)
    return parts.map((part, i): ElementContent => (i % 2 === 1 ? mathBlock(part, false) : { type: 'text', value: part })).filter((n) => n.type !== 'text' || n.value !== '')
  }) as typeof parent.children
}

function rewrite(node: Element, parent: Parent, index: number, context: PreviewContext, taken: Set<string>) {
  const props = node.properties
  if (/^h[1-6]$/.test(node.tagName)) props.id = uniqueAnchor(gitbookAnchor(textOf(node)), taken)
  if (node.tagName === 'img') {
    parent.children[index] = image(node, context)
    return
  }
  if (node.tagName !== 'a' || typeof props.href !== 'string') return
  const href = props.href.trim()
  if (href === '' || href.startsWith('#') || REMOTE.test(href) || /^mailto:/i.test(href)) return
  if (SCHEME.test(href) || href.startsWith('/')) {
    // `javascript:` and the like are left to the sanitizer (it drops them); `/pages/...` cannot be followed here.
    if (href.startsWith('/')) delete props.href
    return
  }
  const [target, anchor] = splitHash(href)
  const resolved = resolveRelativePath(context.pagePath, safeDecode(target))
  delete props.href
  if (resolved === undefined) return
  const page = resolved.endsWith('.md') ? resolved : `${resolved.replace(/\/$/, '')}${resolved === '' ? '' : '/'}README.md`
  if (context.pageExists?.(page)) {
    // A link to a page of the space opens that page's preview (the app reads `dataPreviewPath`).
    props.href = `#${anchor ? `user-content-${anchor}` : ''}`
    props.dataPreviewPath = page
    if (anchor) props.dataPreviewAnchor = anchor
  } else if (resolved.startsWith(ASSETS)) {
    props.className = [...classes(node), 'gb-asset-link']
    props.title = resolved
  } else {
    props.className = [...classes(node), 'gb-broken-link']
    props.title = `No page at ${resolved}`
  }
}

/** An image: the workspace file's bytes, or a placeholder that says why not (a remote one is a link the writer may open). */
function image(node: Element, context: PreviewContext): ElementContent {
  const src = typeof node.properties.src === 'string' ? node.properties.src.trim() : ''
  const alt = typeof node.properties.alt === 'string' ? node.properties.alt : ''
  if (REMOTE.test(src)) {
    return el('span', { className: ['gb-remote-image'] }, [{ type: 'text', value: `Remote image not loaded${alt ? ` (${alt})` : ''}: ` }, el('a', { href: src }, [{ type: 'text', value: src }])])
  }
  const resolved = src && !SCHEME.test(src) && !src.startsWith('/') ? resolveRelativePath(context.pagePath, safeDecode(splitHash(src)[0])) : undefined
  const data = resolved?.startsWith(ASSETS) ? context.image?.(resolved) : undefined
  if (!data) return el('span', { className: ['gb-missing-image'] }, [{ type: 'text', value: `Image not found${alt ? ` (${alt})` : ''}: ${resolved ?? src}` }])
  return { ...node, properties: { src: data, alt, ...pick(node, 'width', 'height') } }
}

function pick(node: Element, ...keys: string[]) {
  return Object.fromEntries(keys.filter((k) => node.properties[k] !== undefined).map((k) => [k, node.properties[k]]))
}

function classes(node: Element): string[] {
  const value = node.properties.className
  return Array.isArray(value) ? value.map(String) : []
}

function splitHash(href: string): [string, string | undefined] {
  const at = href.indexOf('#')
  return at < 0 ? [href, undefined] : [href.slice(0, at), href.slice(at + 1) || undefined]
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value)
  } catch {
    return value
  }
}

function textOf(node: ElementContent): string {
  if (node.type === 'text') return node.value
  return node.type === 'element' ? node.children.map(textOf).join('') : ''
}

/** The tree as plain JSON: no positions, no `data` (what crosses to the renderer). */
function plain(node: Root | RootContent): unknown {
  if (node.type === 'text') return { type: 'text', value: node.value }
  if (node.type === 'element') {
    // A class list the sanitizer emptied (an author's own classes) is no class at all.
    const { className, ...rest } = node.properties
    const properties = Array.isArray(className) && className.length === 0 ? rest : node.properties
    return { type: 'element', tagName: node.tagName, properties, children: node.children.map(plain) }
  }
  if (node.type === 'root') return { type: 'root', children: node.children.filter((c) => c.type === 'element' || c.type === 'text').map(plain) }
  return undefined
}

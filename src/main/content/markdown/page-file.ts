/**
 * A Git Sync page file: optional front matter, the `# Title` line, the body.
 *
 *   ---
 *   description: ...
 *   ---
 *
 *   # Title
 *
 *   body...
 *
 * The body is kept as the exact source text. Only the front matter and the
 * title line are interpreted; everything after the title belongs to the writer,
 * so GitBook blocks, `*` bullets and `_` survive untouched.
 */
import type { PageFileShape, PageMetadata } from '../types'
import { dumpFrontMatter, loadFrontMatter } from './front-matter'
import { normalizeTitle, reshapeHead, scanPageFile, titleSource } from './page-head'

export { normalizeTitle }

export interface PageFile {
  title?: string
  metadata: PageMetadata
  body: string
}

/** Parsed page file plus whether it had a front matter block at all, and its shape as written. */
export interface PageFileParts extends PageFile {
  hasFrontMatter: boolean
  /** The text around the body as written (see PageFileShape); absent for an empty file. */
  shape?: PageFileShape
}

export function parsePageMarkdown(source: string): PageFile {
  const { title, metadata, body } = splitPageMarkdown(source)
  return title === undefined ? { metadata, body } : { title, metadata, body }
}

/**
 * Like `parsePageMarkdown`, also telling whether front matter was present (an
 * update whose markdown has front matter replaces the page's metadata, one
 * without leaves it alone) and how the file was written around its body.
 */
export function splitPageMarkdown(source: string): PageFileParts {
  const layout = scanPageFile(source)
  let metadata: PageMetadata = {}
  let title: string | undefined
  if (layout.frontMatter) {
    const frontMatter = loadFrontMatter(layout.frontMatter.yaml)
    metadata = frontMatter.metadata
    title = frontMatter.title === undefined ? undefined : normalizeTitle(frontMatter.title) || undefined
  }
  // The heading wins over a front matter `title:`.
  if (layout.heading && layout.heading.title !== '') title = layout.heading.title

  const body = source.slice(layout.bodyStart).trimEnd()
  const shape = source.trim() === '' ? undefined : { head: source.slice(0, layout.bodyStart), tail: source.slice(layout.bodyStart + body.length) }
  return { title, metadata, body, hasFrontMatter: layout.frontMatter !== undefined, ...(shape ? { shape } : {}) }
}

/**
 * The shape a page read from `parts` keeps: none when Git Sync would write the
 * page exactly so (most pages), so only files written otherwise carry one.
 */
export function keptShape(parts: PageFileParts, page: { title?: string; metadata: PageMetadata }): PageFileShape | undefined {
  const { shape } = parts
  if (!shape) return undefined
  if (canonicalAround(parts.body, page) === shape.head && shape.tail === '\n') return undefined
  const canonical = serializePageMarkdown({ title: page.title, metadata: page.metadata, body: parts.body })
  return canonical === shape.head + parts.body + shape.tail ? undefined : { head: shape.head, tail: shape.tail }
}

/**
 * What Git Sync writes before a non-empty, already normalized body (the file is that, the body and one
 * newline), or undefined for any other body. Comparing it with a page's head tells that most pages have
 * the canonical form without writing out, and comparing, the whole file: a 5 MB page's apply did both.
 */
function canonicalAround(body: string, page: { title?: string; metadata: PageMetadata }): string | undefined {
  if (body === '' || normalizeBody(body) !== body) return undefined
  const yaml = dumpFrontMatter(page.metadata)
  const title = normalizeTitle(page.title ?? '')
  return (yaml === '' ? '' : `---\n${yaml}---\n\n`) + (title === '' ? '' : `# ${titleSource(title)}\n\n`)
}

/**
 * The page file. With a shape, the file as it was written: its head (brought
 * in line with the title and metadata where they changed since, see
 * reshapeHead), the body, its tail. Without, the form Git Sync writes: front
 * matter (only when there is metadata), `# Title`, a blank line, the body,
 * one final newline (`# Title\n` for an empty page); the title and body are
 * normalized first (see normalizeTitle, normalizeBody), and parsePageMarkdown
 * gives them back exactly. A page without a title has no heading line, so a
 * body that itself starts with `# ` would read back as the title: pages
 * always have titles.
 */
export function serializePageMarkdown(page: { title?: string; metadata: PageMetadata; body: string; shape?: PageFileShape }): string {
  if (page.shape) return shapedPageMarkdown(page.shape, page)
  const yaml = dumpFrontMatter(page.metadata)
  const title = normalizeTitle(page.title ?? '')
  const body = normalizeBody(page.body)
  const content = [title === '' ? '' : `# ${titleSource(title)}`, body].filter((part) => part !== '').join('\n\n')
  const frontMatter = yaml === '' ? '' : `---\n${yaml}---\n`
  if (content === '') return frontMatter
  return frontMatter === '' ? `${content}\n` : `${frontMatter}\n${content}\n`
}

function shapedPageMarkdown(shape: PageFileShape, page: { title?: string; metadata: PageMetadata; body: string }): string {
  const body = normalizeBody(page.body)
  const eol = /\r\n/.test(shape.head + shape.tail) || (!/\n/.test(shape.head + shape.tail) && /\r\n/.test(body)) ? '\r\n' : '\n'
  const head = reshapeHead(shape.head, page.title, page.metadata, eol)
  // A head written for an empty page may end on its heading line: a body given later starts on a line of its own.
  const apart = body !== '' && head.replace(/^\uFEFF/, '') !== '' && !head.endsWith('\n') ? eol + eol : ''
  return head + apart + body + shape.tail
}

/** Canonical body: no leading blank lines, no trailing whitespace. Indentation of the first line is kept. */
export function normalizeBody(body: string): string {
  return body.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd()
}

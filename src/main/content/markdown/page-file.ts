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
import type { PageMetadata } from '../types'
import { dumpFrontMatter, loadFrontMatter, normalizeMetadata } from './front-matter'
import { escapeInlineText, headingText } from './inline-text'
import { endOffset, parseMarkdownTree, plainText } from './syntax-tree'

export interface PageFile {
  title?: string
  metadata: PageMetadata
  body: string
}

/** Parsed page file plus whether it had a front matter block at all. */
export interface PageFileParts extends PageFile {
  hasFrontMatter: boolean
}

export function parsePageMarkdown(source: string): PageFile {
  const { title, metadata, body } = splitPageMarkdown(source)
  return title === undefined ? { metadata, body } : { title, metadata, body }
}

/**
 * Like `parsePageMarkdown`, also telling whether front matter was present: an
 * update whose markdown has front matter replaces the page's metadata, one
 * without leaves it alone.
 */
export function splitPageMarkdown(source: string): PageFileParts {
  const text = source.startsWith('\uFEFF') ? source.slice(1) : source
  const blocks = parseMarkdownTree(text).children
  let cursor = 0
  let index = 0
  let metadata: PageMetadata = {}
  let frontMatterTitle: string | undefined
  let hasFrontMatter = false

  const first = blocks[0]
  if (first?.type === 'yaml') {
    const frontMatter = loadFrontMatter(first.value)
    metadata = frontMatter.metadata
    frontMatterTitle = frontMatter.title
    hasFrontMatter = true
    cursor = endOffset(first)
    index = 1
  }

  let title = frontMatterTitle === undefined ? undefined : normalizeTitle(frontMatterTitle) || undefined
  const heading = blocks[index]
  if (heading?.type === 'heading' && heading.depth === 1) {
    // The heading wins over a front matter `title:`.
    const headingTitle = normalizeTitle(plainText(heading))
    if (headingTitle !== '') title = headingTitle
    cursor = endOffset(heading)
  }

  return { title, metadata, body: normalizeBody(text.slice(cursor)), hasFrontMatter }
}

export function serializePageMarkdown(page: { title?: string; metadata: PageMetadata; body: string }): string {
  const yaml = dumpFrontMatter(page.metadata)
  const title = normalizeTitle(page.title ?? '')
  const body = normalizeBody(page.body)
  const content = [title === '' ? '' : `# ${titleSource(title)}`, body].filter((part) => part !== '').join('\n\n')
  const frontMatter = yaml === '' ? '' : `---\n${yaml}---\n`
  if (content === '') return frontMatter
  return frontMatter === '' ? `${content}\n` : `${frontMatter}\n${content}\n`
}

/** Canonical body: no leading blank lines, no trailing whitespace. Indentation of the first line is kept. */
export function normalizeBody(body: string): string {
  return body.replace(/^(?:[ \t]*\r?\n)+/, '').trimEnd()
}

/** Titles are one line without surrounding whitespace. */
export function normalizeTitle(title: string): string {
  return title.replace(/\s*[\r\n]+\s*/g, ' ').trim()
}

/** Page metadata in canonical form; re-exported for callers comparing pages. */
export { normalizeMetadata }

/** Markdown source for a title line (escaped only when markdown would read it differently). */
function titleSource(title: string): string {
  return escapeInlineText(title, (text) => `# ${text}`, (root) => {
    const text = headingText(root, 1)
    return text === undefined ? undefined : normalizeTitle(text)
  })
}

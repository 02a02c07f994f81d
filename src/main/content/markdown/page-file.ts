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
import { dumpFrontMatter, loadFrontMatter } from './front-matter'
import { escapeInlineText, headingText } from './inline-text'
import { endOffset, parseMarkdownFile, parseMarkdownTree, plainText } from './syntax-tree'

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
  let cursor = 0
  let metadata: PageMetadata = {}
  let frontMatterTitle: string | undefined
  const fence = frontMatterBlock(text)
  if (fence) {
    const frontMatter = loadFrontMatter(fence.yaml)
    metadata = frontMatter.metadata
    frontMatterTitle = frontMatter.title
    cursor = fence.end
  }

  let title = frontMatterTitle === undefined ? undefined : normalizeTitle(frontMatterTitle) || undefined
  const heading = leadingHeading(text, cursor)
  if (heading) {
    // The heading wins over a front matter `title:`.
    if (heading.title !== '') title = heading.title
    cursor = heading.end
  }

  return { title, metadata, body: normalizeBody(text.slice(cursor)), hasFrontMatter: fence !== undefined }
}

/**
 * The front matter block: YAML between `---` lines at the very start. The
 * pattern only finds the candidate cheaply; remark-frontmatter decides.
 */
function frontMatterBlock(text: string): { yaml: string; end: number } | undefined {
  const candidate = /^---[ \t]*\r?\n(?:[\s\S]*?\r?\n)?---[ \t]*(?:\r?\n|$)/.exec(text)
  if (!candidate) return undefined
  const first = parseMarkdownFile(candidate[0]).children[0]
  return first?.type === 'yaml' ? { yaml: first.value, end: candidate[0].length } : undefined
}

/**
 * The `# H1` (or setext `===`) heading that is the first block after `from`,
 * with the offset where it ends. Only the first chunk of text (up to a blank
 * line) is parsed: a heading never spans one, and parsing the whole page would
 * cost time and let a link definition further down change what the title line
 * means.
 */
function leadingHeading(text: string, from: number): { title: string; end: number } | undefined {
  const start = from + (/^(?:[ \t]*\r?\n)*/.exec(text.slice(from))?.[0].length ?? 0)
  const blank = /\n[ \t]*\r?\n/.exec(text.slice(start))
  const chunk = text.slice(start, blank ? start + blank.index + 1 : text.length)
  const first = parseMarkdownTree(chunk).children[0]
  if (first?.type !== 'heading' || first.depth !== 1) return undefined
  return { title: normalizeTitle(plainText(first)), end: start + endOffset(first) }
}

/**
 * The page file Git Sync writes: front matter (only when there is metadata),
 * `# Title`, a blank line, the body, one final newline (`# Title\n` for an
 * empty page). The title and body are normalized first (see normalizeTitle,
 * normalizeBody); for such pages parsePageMarkdown gives them back exactly.
 * A page without a title has no heading line, so a body that itself starts
 * with `# ` would read back as the title: pages always have titles.
 */
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

/** Markdown source for a title line (escaped only when markdown would read it differently). */
function titleSource(title: string): string {
  return escapeInlineText(title, (text) => `# ${text}`, (root) => {
    const text = headingText(root, 1)
    return text === undefined ? undefined : normalizeTitle(text)
  })
}

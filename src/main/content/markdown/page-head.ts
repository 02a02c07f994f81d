/**
 * The head of a page file: everything before its body. Where the parts are
 * (byte order mark, front matter, the `# H1` line), and how a head written by
 * someone else is brought in line with a page's current title and metadata
 * while every line that still says the same is kept as written.
 */
import type { PageMetadata } from '../types'
import { editFrontMatter } from './front-matter-entries'
import { dumpFrontMatter, loadFrontMatter, sameMetadata } from './front-matter'
import { escapeInlineText, headingText } from './inline-text'
import { endOffset, parseMarkdownFile, parseMarkdownTree, plainText } from './syntax-tree'

/** Offsets of the parts of a page file. */
export interface PageFileLayout {
  /** 1 when the file starts with a byte order mark. */
  bom: number
  /** The `---` block: from its first fence to after its closing fence line; `yaml` as the parser read it. */
  frontMatter?: { start: number; yamlStart: number; yamlEnd: number; end: number; yaml: string }
  /** The leading H1 (ATX or setext), its line break excluded; `title` its plain text, '' when empty. */
  heading?: { start: number; end: number; title: string }
  /** Where the body starts: after the heading (or front matter) and the blank lines that follow. */
  bodyStart: number
}

export function scanPageFile(source: string): PageFileLayout {
  const bom = source.startsWith('\uFEFF') ? 1 : 0
  const frontMatter = frontMatterBlock(source, bom)
  let cursor = frontMatter?.end ?? bom
  const heading = leadingHeading(source, cursor)
  if (heading) cursor = heading.end
  const bodyStart = cursor + (/^(?:[ \t]*\r?\n)+/.exec(source.slice(cursor))?.[0].length ?? 0)
  return { bom, frontMatter, heading, bodyStart }
}

/**
 * The front matter block: YAML between `---` lines at the very start. The
 * pattern only finds the candidate cheaply; remark-frontmatter decides.
 */
function frontMatterBlock(source: string, from: number): PageFileLayout['frontMatter'] {
  const candidate = /^(---[ \t]*\r?\n)((?:[\s\S]*?\r?\n)?)---[ \t]*(?:\r?\n|$)/.exec(source.slice(from))
  if (!candidate) return undefined
  const first = parseMarkdownFile(candidate[0]).children[0]
  if (first?.type !== 'yaml') return undefined
  const yamlStart = from + candidate[1].length
  return { start: from, yamlStart, yamlEnd: yamlStart + candidate[2].length, end: from + candidate[0].length, yaml: first.value }
}

/**
 * The `# H1` (or setext `===`) heading that is the first block after `from`.
 * Only the first chunk of text (up to a blank line) is parsed: a heading never
 * spans one, and parsing the whole page would cost time and let a link
 * definition further down change what the title line means.
 */
function leadingHeading(text: string, from: number): PageFileLayout['heading'] {
  const start = from + (/^(?:[ \t]*\r?\n)*/.exec(text.slice(from))?.[0].length ?? 0)
  const blank = /\n[ \t]*\r?\n/.exec(text.slice(start))
  const chunk = text.slice(start, blank ? start + blank.index + 1 : text.length)
  const first = parseMarkdownTree(chunk).children[0]
  if (first?.type !== 'heading' || first.depth !== 1) return undefined
  return { start, end: start + endOffset(first), title: normalizeTitle(plainText(first)) }
}

/** Titles are one line without surrounding whitespace. */
export function normalizeTitle(title: string): string {
  return title.replace(/\s*[\r\n]+\s*/g, ' ').trim()
}

/** Markdown source for a title line (escaped only when markdown would read it differently). */
export function titleSource(title: string): string {
  return escapeInlineText(title, (text) => `# ${text}`, (root) => {
    const text = headingText(root, 1)
    return text === undefined ? undefined : normalizeTitle(text)
  })
}

/**
 * `head` as it must read for a page titled `title` with `metadata`: unchanged
 * when it reads so already; otherwise the H1 line (or the front matter
 * `title:` it takes its title from) and the front matter keys that differ are
 * rewritten, and nothing else. A head with no title of its own (no H1, no
 * `title:`) keeps none: such a page takes its title from SUMMARY.md.
 */
export function reshapeHead(head: string, title: string | undefined, metadata: PageMetadata, eol: string): string {
  const layout = scanPageFile(head)
  const frontMatter = layout.frontMatter ? loadFrontMatter(layout.frontMatter.yaml) : { metadata: {} as PageMetadata }
  const headingTitle = layout.heading?.title || undefined
  const frontMatterTitle = frontMatter.title === undefined ? undefined : normalizeTitle(frontMatter.title) || undefined
  const wanted = normalizeTitle(title ?? '')
  const writtenTitle = headingTitle ?? frontMatterTitle
  const titleReads = writtenTitle === undefined || wanted === '' || writtenTitle === wanted
  const metadataReads = sameMetadata(frontMatter.metadata, metadata)
  if (titleReads && metadataReads) return head

  let out = head
  if (!titleReads && layout.heading && headingTitle !== undefined) {
    out = out.slice(0, layout.heading.start) + `# ${titleSource(wanted)}` + out.slice(layout.heading.end)
  }
  const newFrontMatterTitle = !titleReads && headingTitle === undefined ? wanted : undefined
  if (metadataReads && newFrontMatterTitle === undefined) return out
  // The front matter comes before the heading, so its offsets still hold.
  return withFrontMatter(out, layout, metadata, newFrontMatterTitle, eol)
}

function withFrontMatter(text: string, layout: PageFileLayout, metadata: PageMetadata, title: string | undefined, eol: string): string {
  const block = layout.frontMatter
  if (!block) {
    const yaml = dumpFrontMatter(metadata)
    if (yaml === '') return text
    return `${text.slice(0, layout.bom)}---${eol}${yaml.replace(/\n/g, eol)}---${eol}${eol}${text.slice(layout.bom)}`
  }
  const yaml = editFrontMatter(text.slice(block.yamlStart, block.yamlEnd), metadata, { title, eol })
  if (yaml === '') {
    // No front matter left: the blank lines that set it apart from the heading go with it.
    const after = block.end + (/^(?:[ \t]*\r?\n)*/.exec(text.slice(block.end))?.[0].length ?? 0)
    return text.slice(0, block.start) + text.slice(after)
  }
  return text.slice(0, block.yamlStart) + yaml + text.slice(block.yamlEnd)
}

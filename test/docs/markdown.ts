import fs from 'node:fs'
import path from 'node:path'

export const REPO = path.resolve(__dirname, '../..')

/** The pages a reader meets: README.md and every markdown file under docs/, as repository-relative paths. */
export function docPages(): string[] {
  const pages = ['README.md']
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(path.join(REPO, dir), { withFileTypes: true })) {
      const rel = `${dir}/${entry.name}`
      if (entry.isDirectory()) walk(rel)
      else if (entry.name.endsWith('.md')) pages.push(rel)
    }
  }
  walk('docs')
  return pages
}

export interface CodePiece {
  text: string
  line: number
}

const FENCE = /^(```|~~~)/

/**
 * The code of a page: each line of a fenced block, and each inline code span elsewhere, with its line
 * number. Blocks fenced as `text` are output or pictures (a command's help, what a service prints), not
 * commands, and are left out.
 */
export function codePieces(markdown: string): CodePiece[] {
  const pieces: CodePiece[] = []
  let fenced = false
  let output = false
  markdown.split('\n').forEach((text, i) => {
    if (FENCE.test(text.trim())) {
      fenced = !fenced
      output = fenced && /^(```|~~~)\s*text\b/.test(text.trim())
      return
    }
    if (fenced && !output) pieces.push({ text, line: i + 1 })
  })
  // Inline spans may wrap a line, so they are read from the prose with the fences blanked out.
  const prose = blankFences(markdown)
  for (const match of prose.matchAll(/(`+)([^`][\s\S]*?)\1/g)) {
    pieces.push({ text: match[2].replace(/\s*\n\s*/g, ' '), line: prose.slice(0, match.index).split('\n').length })
  }
  return pieces
}

/** The page with its fenced blocks' lines emptied (line numbers kept). */
export function blankFences(markdown: string): string {
  let fenced = false
  return markdown
    .split('\n')
    .map((text) => {
      if (FENCE.test(text.trim())) {
        fenced = !fenced
        return ''
      }
      return fenced ? '' : text
    })
    .join('\n')
}

/** The prose of a page: no fenced blocks, no inline code (so examples of links in code are not links). */
export function proseOnly(markdown: string): string {
  return blankFences(markdown).replace(/(`+)[^`][\s\S]*?\1/g, (span) => span.replace(/[^\n]/g, ' '))
}

/** GitHub's anchor for a heading: lower case, punctuation dropped (hyphens and underscores kept), spaces as hyphens. */
export function headingSlug(heading: string): string {
  return heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-')
}

/** The anchors a page offers: its headings' slugs (a repeated heading gets -1, -2 as on GitHub). */
export function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>()
  const anchors = new Set<string>()
  for (const line of blankFences(markdown).split('\n')) {
    const heading = /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line)?.[1]
    if (heading === undefined) continue
    const slug = headingSlug(heading)
    const n = seen.get(slug) ?? 0
    seen.set(slug, n + 1)
    anchors.add(n === 0 ? slug : `${slug}-${n}`)
  }
  return anchors
}

import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { anchorsOf, docPages, proseOnly, REPO } from './markdown'

/**
 * Issue 30: every relative link of README.md and docs/ resolves: the file (or folder) exists in the
 * repository, and an #anchor names a heading of the page it points at. Links to the web are not
 * fetched (no network in tests); links inside code are examples, not links.
 */

interface Link {
  page: string
  line: number
  target: string
}

function linksOf(page: string): Link[] {
  const prose = proseOnly(fs.readFileSync(path.join(REPO, page), 'utf8'))
  const links: Link[] = []
  // [text](target "title") and ![alt](target); [text]: target reference definitions too.
  const patterns = [/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g, /^\s*\[[^\]]+\]:\s*(\S+)/gm]
  for (const pattern of patterns) {
    for (const match of prose.matchAll(pattern)) links.push({ page, line: prose.slice(0, match.index).split('\n').length, target: match[1] })
  }
  return links
}

/** What is wrong with one link, or undefined when it resolves. */
function brokenBecause(link: Link): string | undefined {
  if (/^[a-z][a-z0-9+.-]*:/i.test(link.target)) return undefined // http:, https:, mailto:
  const [file, anchor] = link.target.split('#', 2) as [string, string | undefined]
  const target = file === '' ? path.join(REPO, link.page) : path.resolve(path.dirname(path.join(REPO, link.page)), decodeURIComponent(file))
  if (!target.startsWith(REPO + path.sep) && target !== REPO) return 'it leads out of the repository'
  if (!fs.existsSync(target)) return `no such file: ${path.relative(REPO, target)}`
  if (anchor === undefined || anchor === '') return undefined
  if (!target.endsWith('.md')) return `an anchor into a file that is not markdown: ${path.relative(REPO, target)}`
  if (!anchorsOf(fs.readFileSync(target, 'utf8')).has(anchor)) return `no heading #${anchor} in ${path.relative(REPO, target)}`
  return undefined
}

describe('the links of README.md and docs/', () => {
  const pages = docPages()

  it('are found: the README links each page of docs/', () => {
    expect(pages.length).toBeGreaterThan(6)
    const readmeTargets = linksOf('README.md').map((l) => l.target.split('#')[0])
    for (const page of pages.filter((p) => p.startsWith('docs/'))) expect(readmeTargets, `README.md links ${page}`).toContain(page)
  })

  it('every relative link resolves, anchors included', () => {
    const broken = pages.flatMap(linksOf).flatMap((link) => {
      const why = brokenBecause(link)
      return why ? [`${link.page}:${link.line} (${link.target}): ${why}`] : []
    })
    expect(broken).toEqual([])
  })
})

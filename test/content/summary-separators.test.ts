import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { parseSummary, renderSummary, slugify, type SummaryEntry, type TreePage } from '../../src/main/content'

const CORPUS = path.resolve(__dirname, '../../../shared/corpus/gitsync')

function page(id: string, title: string, type: TreePage['type'] = 'document', pages: TreePage[] = [], href?: string): TreePage {
  // A group's slug is its title's (else SUMMARY.md carries it as an anchor after the title).
  return { id, type, title, slug: type === 'group' ? slugify(title) : id, metadata: {}, ...(href ? { href } : {}), createdAt: '', updatedAt: '', pages }
}

/** A revision tree as the service would hold what `entries` lists, each page's id its file path. */
function treeOf(entries: SummaryEntry[]): { pages: TreePage[]; paths: Map<string, string> } {
  const paths = new Map<string, string>()
  let n = 0
  const convert = (entry: SummaryEntry): TreePage => {
    const id = entry.path ?? `entry-${n++}`
    if (entry.path) paths.set(id, entry.path)
    const type = entry.kind === 'group' ? 'group' : entry.kind === 'link' ? 'link' : 'document'
    return page(id, entry.title, type, entry.children.map(convert), entry.href)
  }
  return { pages: entries.map(convert), paths }
}

describe('SUMMARY.md separators (Git Sync `***`)', () => {
  const tree = [
    page('home', 'Home'),
    page('g', 'Reference', 'group', [page('api', 'API')]),
    page('changelog', 'Changelog'),
    page('faq', 'FAQ'),
    page('h', 'Legal', 'group', [page('terms', 'Terms')]),
  ]
  const paths = new Map([
    ['home', 'README.md'],
    ['api', 'reference/api.md'],
    ['changelog', 'changelog.md'],
    ['faq', 'faq.md'],
    ['terms', 'legal/terms.md'],
  ])

  it('writes a separator before root pages that follow a group, none elsewhere', () => {
    expect(renderSummary({ pages: tree, files: [] }, paths)).toBe(
      [
        '# Table of contents',
        '',
        '* [Home](README.md)',
        '',
        '## Reference',
        '',
        '* [API](reference/api.md)',
        '',
        '***',
        '',
        '* [Changelog](changelog.md)',
        '* [FAQ](faq.md)',
        '',
        '## Legal',
        '',
        '* [Terms](legal/terms.md)',
        '',
      ].join('\n'),
    )
  })

  it('reads a separator as the end of the group: the pages after it are root pages again', () => {
    const parsed = parseSummary(renderSummary({ pages: tree, files: [] }, paths))
    expect(parsed.map((e) => [e.kind, e.title, e.children.map((c) => c.title)])).toEqual([
      ['page', 'Home', []],
      ['group', 'Reference', ['API']],
      ['page', 'Changelog', []],
      ['page', 'FAQ', []],
      ['group', 'Legal', ['Terms']],
    ])
  })

  it.skipIf(!fs.existsSync(CORPUS))('gives back the corpus lista SUMMARY.md byte for byte (5 groups, 2 separators)', () => {
    const original = fs.readFileSync(path.join(CORPUS, 'lista/SUMMARY.md'), 'utf8')
    const { pages, paths } = treeOf(parseSummary(original))
    // Separators end groups: the pages after each are at the root, not inside the group above.
    expect(pages.filter((p) => p.type !== 'group').map((p) => p.title)).toEqual(['Overview', 'About Lista token', 'Security', 'Roadmap', 'FAQ'])
    expect(renderSummary({ pages, files: [] }, paths)).toBe(original)
  })
})

import { describe, expect, it } from 'vitest'
import { RevisionLinks, linkStats, newlyBroken, type LinkReportEntry } from '../../src/main/service/content-index'
import { resolveTargetPath, splitTarget } from '../../src/main/service/content-index/target-path'
import { revision, type PageSpec } from './fixture'

const ORIGIN = 'http://127.0.0.1:4000'

const files = [
  { id: 'file-logo', name: 'logo.png' },
  { id: 'file-cover', name: 'cover.png' },
  { id: 'file-image', name: 'image.png' },
  { id: 'file-image-2', name: 'image.png' },
]

// Git Sync layout: README.md, guide/README.md, guide/install.md, faq.md, reference/api.md
const pages: PageSpec[] = [
  {
    id: 'home',
    title: 'Home',
    body: [
      'See the [guide](guide/README.md) and [requirements](guide/install.md#requirements).',
      '',
      'A [missing page](missing.md), ![logo](.gitbook/assets/logo.png), [site](https://example.com/x),',
      `[in the app](${ORIGIN}/app/spaces/s1) and [intro](#intro).`,
      '',
      '```',
      '[not a link](nope.md)',
      '```',
    ].join('\n'),
  },
  {
    id: 'guide',
    title: 'Guide',
    body: [
      '[home](../README.md) [install](install.md) [folder style](./install) [guide itself](./)',
      '![right depth](../.gitbook/assets/logo.png) ![wrong depth](.gitbook/assets/logo.png)',
      '[outside](../../outside.md) ![no such asset](../.gitbook/assets/gone.png) [space](my%20page.md)',
    ].join('\n'),
    pages: [
      {
        id: 'install',
        title: 'Install',
        body: '{% content-ref url="../faq.md" %}\n[faq](../faq.md)\n{% endcontent-ref %}\n\nAlso [missing](../missing.md).',
      },
    ],
  },
  {
    id: 'faq',
    title: 'FAQ',
    metadata: { cover: '.gitbook/assets/cover.png' },
    body:
      '[by id](/pages/guide) [unknown id](/pages/nope) [file](/files/file-logo) [no file](/files/nope) [root](/faq.md) ' +
      '[by slug path](/pages/guide/install) [by git path](/pages/reference/api.md)',
  },
  {
    id: 'reference',
    title: 'Reference',
    type: 'group',
    pages: [{ id: 'api', title: 'API', body: '[faq](../faq.md)\n\n<figure><img src="../.gitbook/assets/image (1).png" alt=""></figure>' }],
  },
  { id: 'external', title: 'External', type: 'link', href: 'https://example.com/x' },
]

const links = new RevisionLinks(revision(pages, files), ORIGIN)
const byTarget = (entries: LinkReportEntry[]) => new Map(entries.map((e) => [JSON.stringify(e.target), e]))

describe('target paths', () => {
  it('splits anchors and queries and decodes percent escapes', () => {
    expect(splitTarget('a%20b.md?x=1#Sec%20tion')).toEqual({ path: 'a b.md', anchor: 'Sec tion' })
    expect(splitTarget('100%.md')).toEqual({ path: '100%.md' })
    expect(splitTarget('#top')).toEqual({ path: '', anchor: 'top' })
  })

  it('resolves relative and root paths, refusing to climb above the root', () => {
    expect(resolveTargetPath('guide/README.md', '../faq.md')).toBe('faq.md')
    expect(resolveTargetPath('guide/README.md', './a/./b/../c.md')).toBe('guide/a/c.md')
    expect(resolveTargetPath('guide/README.md', '/faq.md')).toBe('faq.md')
    expect(resolveTargetPath('guide/README.md', './')).toBe('guide/')
    expect(resolveTargetPath('guide/install.md', '.')).toBe('guide/')
    expect(resolveTargetPath('guide/README.md', '..')).toBe('')
    expect(resolveTargetPath('README.md', '../x.md')).toBeUndefined()
  })
})

describe('revision links', () => {
  it('resolves page, anchor, file and url links of a page against its git path', () => {
    const entries = links.entries('home')
    expect(entries.map((e) => [e.status, e.target])).toEqual([
      ['ok', { kind: 'page', page: 'guide' }],
      ['ok', { kind: 'anchor', page: 'install', anchor: 'requirements' }],
      ['broken', { kind: 'page', page: 'missing.md' }],
      ['ok', { kind: 'file', file: 'file-logo' }],
      ['ok', { kind: 'url', url: 'https://example.com/x' }],
      ['in-app', { kind: 'url', url: `${ORIGIN}/app/spaces/s1` }],
      ['ok', { kind: 'anchor', page: 'home', anchor: 'intro' }],
    ])
  })

  it('keeps line and column of each link in the body', () => {
    const missing = links.occurrences.find((o) => o.written === 'missing.md')
    expect(missing).toMatchObject({ pageId: 'home', line: 3, column: 18, status: 'broken' })
  })

  it('resolves folder-style links, finds assets by name at a wrong depth, reports what escapes the space', () => {
    const entries = byTarget(links.entries('guide'))
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'home' }))?.status).toBe('ok')
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'install' }))?.status).toBe('ok')
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'guide' }))?.status).toBe('ok')
    expect(entries.get(JSON.stringify({ kind: 'file', file: 'file-logo' }))?.status).toBe('ok')
    expect(entries.get(JSON.stringify({ kind: 'page', page: '../../outside.md' }))?.status).toBe('broken')
    expect(entries.get(JSON.stringify({ kind: 'file', file: '.gitbook/assets/gone.png' }))?.status).toBe('broken')
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'guide/my page.md' }))?.status).toBe('broken')
    // Two links to the same file are one entry.
    expect(links.entries('guide').filter((e) => e.target.kind === 'file' && e.target.file === 'file-logo')).toHaveLength(1)
  })

  it('resolves ids, root-relative paths, covers, html attributes and clash-suffixed assets', () => {
    expect(links.entries('faq').map((e) => [e.status, e.target])).toEqual([
      ['ok', { kind: 'file', file: 'file-cover' }],
      ['ok', { kind: 'page', page: 'guide' }],
      ['broken', { kind: 'page', page: 'nope' }],
      ['ok', { kind: 'file', file: 'file-logo' }],
      ['broken', { kind: 'file', file: 'nope' }],
      ['ok', { kind: 'page', page: 'faq' }],
      ['ok', { kind: 'page', page: 'install' }],
      ['ok', { kind: 'page', page: 'api' }],
    ])
    expect(links.entries('api').map((e) => [e.status, e.target])).toEqual([
      ['ok', { kind: 'page', page: 'faq' }],
      ['ok', { kind: 'file', file: 'file-image-2' }],
    ])
  })

  it('groups a space report by target with every referencing page, in document order', () => {
    const entries = byTarget(links.entries())
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'missing.md' }))?.pageIds).toEqual(['home', 'install'])
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'faq' }))?.pageIds).toEqual(['install', 'faq', 'api'])
    expect(entries.get(JSON.stringify({ kind: 'page', page: 'api' }))?.pageIds).toEqual(['faq'])
    expect(entries.get(JSON.stringify({ kind: 'url', url: 'https://example.com/x' }))?.pageIds).toEqual(['home', 'external'])
    expect(links.occurrences.some((o) => o.written === 'nope.md')).toBe(false)
  })

  it('counts totals and broken targets', () => {
    const all = links.entries()
    const stats = linkStats(all)
    expect(stats.total).toBe(all.length)
    expect(stats.broken).toBe(all.filter((e) => e.status === 'broken').length)
    expect(stats.broken).toBe(6)
  })

  it('lists the pages using a file, covers included', () => {
    expect(links.fileBacklinks('file-logo')).toEqual(['home', 'guide', 'faq'])
    expect(links.fileBacklinks('file-cover')).toEqual(['faq'])
    expect(links.fileBacklinks('file-image')).toEqual([])
  })

  it('counts broken targets a changed revision introduces over a baseline', () => {
    const changed = new RevisionLinks(
      revision([{ id: 'home', title: 'Home', body: '[a](missing.md) [b](other-missing.md) [c](third.md)' }]),
      ORIGIN,
    )
    expect(newlyBroken(changed.entries(), links.entries())).toBe(2)
    expect(newlyBroken(links.entries(), links.entries())).toBe(0)
  })
})

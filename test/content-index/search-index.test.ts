import { describe, expect, it } from 'vitest'
import { RevisionCache, SearchIndex, excerpt, pageSections, tokenize } from '../../src/main/service/content-index'
import { revision } from './fixture'

const source = revision([
  { id: 'home', title: 'Welcome', body: 'Quire keeps your documentation in sync.\n\n## Getting started\n\nRead the guide first.' },
  {
    id: 'guide',
    title: 'Guide',
    metadata: { description: 'How to configure synchronisation' },
    body: [
      'An overview of the client.',
      '',
      '## Installation',
      '',
      'Download the installer and run it. Authentication happens in the browser.',
      '',
      '## Troubleshooting',
      '',
      '- A conflict copy appears when both sides changed.',
      '- Check the `sync.log` file.',
      '',
      '{% hint style="info" %}',
      'Conflicts never lose edits.',
      '{% endhint %}',
    ].join('\n'),
    pages: [{ id: 'tokens', title: 'Access tokens', body: '## Créer un jeton\n\nUse a personal access token to authenticate.' }],
  },
  { id: 'group', title: 'Reference', type: 'group', pages: [{ id: 'cli', title: 'CLI', body: '# Commands\n\n`quire sync` runs one synchronisation.' }] },
  { id: 'link', title: 'Installation elsewhere', type: 'link', href: 'https://example.com' },
])
const index = new SearchIndex(source)

describe('page sections', () => {
  it('cuts a body at headings into plain text without markup or GitBook tags', () => {
    const sections = pageSections('Intro with **bold** and a [link](x.md).\n\n## First\n\n- one\n- two\n\n{% hint %}\nHinted\n{% endhint %}\n\n## First\n', 'Page')
    expect(sections).toEqual([
      { title: 'Page', text: 'Intro with bold and a link.' },
      { anchor: 'first', title: 'First', text: 'one two Hinted' },
      { anchor: 'first-1', title: 'First', text: '' },
    ])
  })
})

describe('text', () => {
  it('folds case and accents into words of any script', () => {
    expect(tokenize('Créer un JETON, Ελληνικά 42!')).toEqual(['creer', 'un', 'jeton', 'ελληνικα', '42'])
  })

  it('quotes the part of a long text around the first match', () => {
    const text = `${'lorem ipsum '.repeat(40)}the needle is here ${'dolor sit '.repeat(40)}`
    const quoted = excerpt(text, ['needle'], 100)
    expect(quoted).toContain('needle')
    expect(quoted.startsWith('…')).toBe(true)
    expect(quoted.endsWith('…')).toBe(true)
    expect(quoted.length).toBeLessThanOrEqual(102)
    expect(excerpt('short text', ['x'])).toBe('short text')
  })
})

describe('search index', () => {
  it('finds the page and the section holding a word', () => {
    const hits = index.search('installer')
    expect(hits.map((h) => h.entry.page.id)).toEqual(['guide'])
    expect(hits[0].resultType).toBe('section')
    expect(hits[0].sections[0]).toMatchObject({ anchor: 'installation', title: 'Installation', body: expect.stringContaining('Download the installer') })
  })

  it('requires every word, matches prefixes and ignores case and accents', () => {
    expect(index.search('CONFLICT copy').map((h) => h.entry.page.id)).toEqual(['guide'])
    expect(index.search('conflict welcome')).toEqual([])
    expect(index.search('authent').map((h) => h.entry.page.id).sort()).toEqual(['guide', 'tokens'])
    expect(index.search('creer jeton')[0].sections[0]).toMatchObject({ anchor: 'créer-un-jeton', title: 'Créer un jeton' })
  })

  it('ranks title matches above body matches and marks them as page results', () => {
    const hits = index.search('guide')
    expect(hits.map((h) => h.entry.page.id)).toEqual(['guide', 'home'])
    expect(hits[0].resultType).toBe('page')
    expect(hits[1].resultType).toBe('section')
    expect(hits[0].score).toBeGreaterThan(hits[1].score)
  })

  it('searches descriptions, GitBook block contents and pages inside groups with their ancestors', () => {
    expect(index.search('configure').map((h) => h.entry.page.id)).toEqual(['guide'])
    expect(index.search('never lose edits')[0].sections[0].anchor).toBe('troubleshooting')
    const [cli] = index.search('synchronisation runs')
    expect(cli.entry.page.id).toBe('cli')
    expect(cli.entry.ancestors.map((p) => p.title)).toEqual(['Reference'])
    expect(cli.entry.path).toBe('reference/cli')
  })

  it('does not search link pages or groups, and finds nothing for a query without words', () => {
    expect(index.search('elsewhere')).toEqual([])
    expect(index.search('reference')).toEqual([])
    expect(index.search('?!')).toEqual([])
  })
})

describe('revision cache', () => {
  it('computes once per key and evicts the least recently used', () => {
    const cache = new RevisionCache<number>(2)
    let computed = 0
    const get = (key: string) => cache.get(key, () => ++computed)
    expect(get('a')).toBe(1)
    expect(get('a')).toBe(1)
    get('b')
    get('a')
    get('c') // evicts b
    expect(cache.size).toBe(2)
    expect(get('a')).toBe(1)
    expect(get('b')).toBe(4)
  })
})

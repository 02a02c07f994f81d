import { describe, expect, it } from 'vitest'
import { computeGitPaths, parseSummary, renderSummary, slugify, uniqueSlug, type RevisionTree, type TreeFile, type TreePage } from '../../src/main/content'

const T = '2024-01-01T00:00:00.000Z'

function page(id: string, title: string, pages: TreePage[] = [], extra: Partial<TreePage> = {}): TreePage {
  return { id, type: 'document', title, slug: slugify(title), metadata: {}, createdAt: T, updatedAt: T, pages, ...extra }
}

function file(id: string, name: string): TreeFile {
  return { id, name, contentType: 'image/png', size: 1, blobOid: 'x', createdAt: T }
}

describe('slugify', () => {
  it('lowercases, keeps letters of any script and digits, joins the rest with single dashes', () => {
    expect(slugify('Getting Started!')).toBe('getting-started')
    expect(slugify('  --Hello,   World--  ')).toBe('hello-world')
    expect(slugify('Ünïcode & Café 2')).toBe('ünïcode-café-2')
    expect(slugify('日本語のページ')).toBe('日本語のページ')
    expect(slugify('What’s new?')).toBe('what-s-new')
  })

  it('is never empty and at most 100 characters', () => {
    expect(slugify('!!!')).toBe('untitled')
    expect(slugify('')).toBe('untitled')
    expect(Array.from(slugify('ab '.repeat(80))).length).toBeLessThanOrEqual(100)
    expect(slugify('ab '.repeat(80)).endsWith('-')).toBe(false)
  })

  it('uniqueSlug adds -2, -3... ignoring case', () => {
    expect(uniqueSlug('intro', ['other'])).toBe('intro')
    expect(uniqueSlug('intro', ['Intro'])).toBe('intro-2')
    expect(uniqueSlug('intro', ['intro', 'intro-2'])).toBe('intro-3')
  })
})

describe('computeGitPaths', () => {
  const tree: RevisionTree = {
    pages: [
      page('home', 'Welcome', [page('home-child', 'Home child')]),
      page('guide', 'Guide', [page('install', 'Install'), page('deep', 'Deep', [page('leaf', 'Leaf')])]),
      page('faq', 'FAQ'),
      page('readme-slug', 'Readme'),
      page('link', 'Status', [], { type: 'link', href: 'https://status.example.com' }),
      page('group', 'Reference', [page('api', 'API'), page('api-dup', 'Api', [], { slug: 'API' })], { type: 'group' }),
      page('clash', 'Reference', [page('c1', 'Child')]),
    ],
    files: [file('f1', 'image.png'), file('f2', 'image.png'), file('f3', 'Image.png'), file('f4', 'notes'), file('f5', 'a/b.png')],
  }

  it('lays pages and files out like Git Sync', () => {
    expect(Object.fromEntries(computeGitPaths(tree))).toEqual({
      home: 'README.md',
      'home-child': 'welcome/home-child.md',
      guide: 'guide/README.md',
      install: 'guide/install.md',
      deep: 'guide/deep/README.md',
      leaf: 'guide/deep/leaf.md',
      faq: 'faq.md',
      'readme-slug': 'readme-2.md',
      api: 'reference/api.md',
      'api-dup': 'reference/API-2.md',
      clash: 'reference-2/README.md',
      c1: 'reference-2/child.md',
      f1: '.gitbook/assets/image.png',
      f2: '.gitbook/assets/image (1).png',
      f3: '.gitbook/assets/Image.png', // case counts, as in a Git Sync tree
      f4: '.gitbook/assets/notes',
      f5: '.gitbook/assets/a-b.png',
    })
  })

  it('uses the first page of a leading group as README.md', () => {
    const grouped: RevisionTree = { pages: [page('g', 'Start', [page('intro', 'Intro'), page('next', 'Next')], { type: 'group' })], files: [] }
    expect(Object.fromEntries(computeGitPaths(grouped))).toEqual({ intro: 'README.md', next: 'start/next.md' })
  })
})

describe('SUMMARY.md', () => {
  const tree: RevisionTree = {
    pages: [
      page('home', 'Welcome'),
      page('guide', 'Guide', [page('install', 'Install [beta]', [], { metadata: { hidden: true } }), page('more', '*Stars*')]),
      page('link', 'Status page', [], { type: 'link', href: 'https://status.example.com' }),
      page('group', 'API Reference', [page('api', 'Endpoints', [page('auth', 'Auth')])], { type: 'group' }),
      page('empty', 'Empty group', [], { type: 'group' }),
    ],
    files: [],
  }

  it('renders the table of contents Git Sync writes', () => {
    expect(renderSummary(tree, computeGitPaths(tree))).toBe(
      [
        '# Table of contents',
        '',
        '* [Welcome](README.md)',
        '* [Guide](guide/README.md)',
        '  * [Install [beta]](guide/install-beta.md)',
        '  * [\\*Stars\\*](guide/stars.md)',
        '* [Status page](https://status.example.com)',
        '',
        '## API Reference',
        '',
        '* [Endpoints](api-reference/endpoints/README.md)',
        '  * [Auth](api-reference/endpoints/auth.md)',
        '',
        '## Empty group',
        '',
      ].join('\n'),
    )
  })

  it('parses back into the same outline', () => {
    expect(parseSummary(renderSummary(tree, computeGitPaths(tree)))).toEqual([
      { kind: 'page', title: 'Welcome', path: 'README.md', children: [] },
      {
        kind: 'page',
        title: 'Guide',
        path: 'guide/README.md',
        children: [
          { kind: 'page', title: 'Install [beta]', path: 'guide/install-beta.md', children: [] },
          { kind: 'page', title: '*Stars*', path: 'guide/stars.md', children: [] },
        ],
      },
      { kind: 'link', title: 'Status page', href: 'https://status.example.com', children: [] },
      {
        kind: 'group',
        title: 'API Reference',
        children: [{ kind: 'page', title: 'Endpoints', path: 'api-reference/endpoints/README.md', children: [{ kind: 'page', title: 'Auth', path: 'api-reference/endpoints/auth.md', children: [] }] }],
      },
      { kind: 'group', title: 'Empty group', children: [] },
    ])
  })

  it('reads hand-written summaries: `# Summary`, `-` bullets, ./ paths, spaces, unlinked entries', () => {
    const text = '# Summary\n\n- [Intro](./README.md)\n- [Spaced](<my page.md>)\n  - [Encoded](my%20other.md)\n- Plain entry\n\n### Part two\n\n* [X](x.md)\n'
    expect(parseSummary(text)).toEqual([
      { kind: 'page', title: 'Intro', path: 'README.md', children: [] },
      { kind: 'page', title: 'Spaced', path: 'my page.md', children: [{ kind: 'page', title: 'Encoded', path: 'my other.md', children: [] }] },
      { kind: 'page', title: 'Plain entry', children: [] },
      { kind: 'group', title: 'Part two', children: [{ kind: 'page', title: 'X', path: 'x.md', children: [] }] },
    ])
  })
})

import { describe, expect, it } from 'vitest'
import { classifyTarget, extractLinks, rewriteLinks } from '../../src/main/content'

const BODY = [
  'See [other](other.md#setup) and ![shot](<.gitbook/assets/image (8).png> "Title").', // 1
  '',
  '<figure><img src="../.gitbook/assets/diagram.png" alt=""><figcaption></figcaption></figure>', // 3
  '',
  '{% content-ref url="guide/README.md" %}', // 5
  '[README.md](guide/README.md)', // 6
  '{% endcontent-ref %}',
  '',
  '{% file src="../.gitbook/assets/manual.pdf" %}', // 9
  '',
  '{% embed url="https://www.youtube.com/watch?v=x" %}', // 11
  '',
  '`[not](a-link.md)` and [`code] label`](#anchor) <https://auto.example> [ref][r]', // 13
  '',
  '```md',
  '[inside](fence.md)',
  '{% file src="fenced.pdf" %}',
  '```',
  '',
  '> quoted [q](../q.md)', // 20
  '',
  '[r]: ./defined.md "Title"', // 22
].join('\n')

describe('extractLinks', () => {
  it('finds every link with its kind and 1-based position', () => {
    const links = extractLinks(BODY).map(({ kind, target, line, column }) => ({ kind, target, line, column }))
    expect(links).toEqual([
      { kind: 'page', target: 'other.md#setup', line: 1, column: 13 },
      { kind: 'file', target: '.gitbook/assets/image (8).png', line: 1, column: 41 },
      { kind: 'file', target: '../.gitbook/assets/diagram.png', line: 3, column: 19 },
      { kind: 'page', target: 'guide/README.md', line: 5, column: 21 },
      { kind: 'page', target: 'guide/README.md', line: 6, column: 13 },
      { kind: 'file', target: '../.gitbook/assets/manual.pdf', line: 9, column: 14 },
      { kind: 'url', target: 'https://www.youtube.com/watch?v=x', line: 11, column: 15 },
      { kind: 'anchor', target: '#anchor', line: 13, column: 40 },
      { kind: 'url', target: 'https://auto.example', line: 13, column: 50 },
      { kind: 'page', target: '../q.md', line: 20, column: 14 },
      { kind: 'page', target: './defined.md', line: 22, column: 6 },
    ])
  })

  it('gives ranges that cover the target as written', () => {
    for (const link of extractLinks(BODY)) {
      const written = BODY.slice(link.start, link.end)
      expect(written.replace(/^<|>$/g, '')).toBe(link.syntax === 'markdown' ? link.target.replace(/[<>]/g, '') : link.target)
    }
  })

  it('classifies targets', () => {
    expect(classifyTarget('a.md')).toBe('page')
    expect(classifyTarget('../b/README.md#x')).toBe('page')
    expect(classifyTarget('./section')).toBe('page')
    expect(classifyTarget('/pages/abc')).toBe('page')
    expect(classifyTarget('../.gitbook/assets/x y.png')).toBe('file')
    expect(classifyTarget('/files/abc')).toBe('file')
    expect(classifyTarget('./diagram.svg')).toBe('file')
    expect(classifyTarget('https://example.com/a.md')).toBe('url')
    expect(classifyTarget('mailto:a@b.c')).toBe('url')
    expect(classifyTarget('#top')).toBe('anchor')
  })
})

describe('rewriteLinks', () => {
  it('replaces targets in place, quoting as each syntax needs, and touches nothing else', () => {
    const out = rewriteLinks(BODY, (link) => (link.kind === 'file' ? 'assets/new name.png' : undefined))
    expect(out).toContain('![shot](<assets/new name.png> "Title")')
    expect(out).toContain('<img src="assets/new name.png" alt="">')
    expect(out).toContain('{% file src="assets/new name.png" %}')
    expect(out.split('\n').filter((line, i) => line !== BODY.split('\n')[i])).toHaveLength(3)
  })

  it('is the identity when nothing is replaced', () => {
    expect(rewriteLinks(BODY, () => undefined)).toBe(BODY)
  })
})

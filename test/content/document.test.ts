import { describe, expect, it } from 'vitest'
import { documentToMarkdown, markdownToDocument, type JSONDocument } from '../../src/main/content'
import { body } from './support/generators'
import { forEachSeed } from './support/random'
import { specErrors } from './support/spec-schema'

const PAGE = [
  '## Heading two',
  '',
  'A paragraph with **bold**, _italic_, ~~struck~~, `code`, a [link](other.md#part) and an ![inline](https://x.test/i.png) image.',
  '',
  '#### Deep heading',
  '',
  '* bullet one',
  '* bullet two',
  '  1. nested ordered',
  '',
  '3. three',
  '4. four',
  '',
  '- [x] done',
  '- [ ] todo',
  '',
  '```js',
  'const a = 1',
  'const b = 2',
  '```',
  '',
  '> quoted **text**',
  '>',
  '> ```',
  '> code in quote',
  '> ```',
  '',
  '***',
  '',
  '![alone](<.gitbook/assets/image (8).png>)',
  '',
  '<figure><img src="../.gitbook/assets/fig.png" alt="A figure"><figcaption><p>The caption</p></figcaption></figure>',
  '',
  '$$',
  'E = mc^2',
  '$$',
  '',
  '{% hint style="warning" %}',
  'Careful: **really**.',
  '',
  '```',
  'code is not allowed in a hint',
  '```',
  '{% endhint %}',
  '',
  '{% tabs %}',
  '{% tab title="JavaScript" %}',
  '{% code title="index.js" lineNumbers="true" %}',
  '```javascript',
  'run()',
  '```',
  '{% endcode %}',
  '{% endtab %}',
  '',
  '{% tab title="Python" %}',
  'Use `pip`.',
  '{% endtab %}',
  '{% endtabs %}',
  '',
  '{% stepper %}',
  '{% step %}',
  '### First',
  '',
  'Do it.',
  '{% endstep %}',
  '{% endstepper %}',
  '',
  '{% columns %}',
  '{% column %}',
  'Left',
  '{% endcolumn %}',
  '',
  '{% column %}',
  'Right',
  '{% endcolumn %}',
  '{% endcolumns %}',
  '',
  '{% embed url="https://www.youtube.com/watch?v=1" %}',
  '',
  '{% content-ref url="guide/README.md" %}',
  '[README.md](guide/README.md)',
  '{% endcontent-ref %}',
  '',
  '{% file src="../.gitbook/assets/manual.pdf" %}',
  '',
  '{% include "../.gitbook/includes/shared.md" %}',
  '',
  '<details>',
  '',
  '<summary>More</summary>',
  '',
  'Hidden text.',
  '',
  '</details>',
  '',
  '| a | b |',
  '| - | - |',
  '| 1 | 2 |',
  '',
  'Reference [style][ref].',
  '',
  '[ref]: https://example.com/ref',
].join('\n')

type Node = { type?: string; object?: string; nodes?: Node[]; fragments?: Node[] }

function types(nodes: Node[] | undefined): string[] {
  return (nodes ?? []).map((n) => n.type ?? n.object ?? '?')
}

describe('markdownToDocument', () => {
  const doc = markdownToDocument(PAGE)

  it('produces a document valid against the spec', () => {
    expect(specErrors('JSONDocument', doc)).toEqual([])
  })

  it('maps markdown and GitBook blocks to their document blocks', () => {
    expect(types(doc.nodes as Node[])).toEqual([
      'heading-2',
      'paragraph',
      'heading-3',
      'list-unordered',
      'list-ordered',
      'list-tasks',
      'code',
      'blockquote',
      'divider',
      'images',
      'images',
      'math',
      'hint',
      'tabs',
      'stepper',
      'columns',
      'embed',
      'content-ref',
      'paragraph', // file without a resolver: a link
      'paragraph', // include: raw text
      'expandable',
      'paragraph', // table: raw text
      'paragraph',
    ])
  })

  it('keeps marks, links and reference-style links', () => {
    const paragraph = doc.nodes[1] as unknown as { nodes: Array<{ object: string; type?: string; leaves?: Array<{ text: string; marks: Array<{ type: string }> }>; data?: unknown }> }
    const leaves = paragraph.nodes.flatMap((n) => n.leaves ?? []).map((l) => [l.text, l.marks.map((m) => m.type).join('+')])
    expect(leaves).toContainEqual(['bold', 'bold'])
    expect(leaves).toContainEqual(['italic', 'italic'])
    expect(leaves).toContainEqual(['struck', 'strikethrough'])
    expect(leaves).toContainEqual(['code', 'code'])
    expect(paragraph.nodes.find((n) => n.type === 'link')?.data).toEqual({ ref: { kind: 'url', url: 'other.md#part' } })
    const last = doc.nodes.at(-1) as unknown as { nodes: Array<{ type?: string; data?: unknown }> }
    expect(last.nodes.find((n) => n.type === 'link')?.data).toEqual({ ref: { kind: 'url', url: 'https://example.com/ref' } })
  })

  it('degrades blocks the spec forbids in a container instead of producing an invalid document', () => {
    const hint = doc.nodes[12] as unknown as Node
    expect(types(hint.nodes)).toEqual(['paragraph', 'paragraph'])
    const quote = doc.nodes[7] as unknown as Node
    expect(types(quote.nodes)).toEqual(['paragraph', 'paragraph'])
  })

  it('resolves targets through the caller', () => {
    const resolved = markdownToDocument('[a](other.md) ![b](.gitbook/assets/x.png)\n\n{% file src=".gitbook/assets/x.pdf" %}', {
      resolveTarget: (target, kind) => (kind === 'page' ? { kind: 'page', page: 'p1' } : kind === 'file' ? { kind: 'file', file: `f:${target}` } : undefined),
    })
    expect(specErrors('JSONDocument', resolved)).toEqual([])
    expect(JSON.stringify(resolved)).toContain('{"kind":"page","page":"p1"}')
    expect(JSON.stringify(resolved)).toContain('{"kind":"file","file":"f:.gitbook/assets/x.png"}')
    expect(types(resolved.nodes as Node[])).toEqual(['paragraph', 'file'])
  })

  it('is valid for random GitBook pages (property)', () => {
    forEachSeed(150, (random) => {
      const markdown = body(random)
      const document = markdownToDocument(markdown)
      expect(specErrors('JSONDocument', document)).toEqual([])
    })
  })
})

describe('documentToMarkdown', () => {
  it('writes Git Sync markdown that reads back as the same document (property)', () => {
    forEachSeed(150, (random) => {
      const document = markdownToDocument(body(random))
      const markdown = documentToMarkdown(document)
      expect(markdownToDocument(markdown)).toEqual(document)
    })
  })

  it('round-trips the reference page', () => {
    const doc = markdownToDocument(PAGE)
    expect(markdownToDocument(documentToMarkdown(doc))).toEqual(doc)
  })

  it('writes the spec example', () => {
    const example: JSONDocument = {
      object: 'document',
      data: {},
      nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Hello world', marks: [] }] }] }],
    }
    expect(documentToMarkdown(example)).toBe('Hello world')
  })

  it('escapes text that markdown would read as syntax', () => {
    const doc = markdownToDocument('\\# not a heading, \\*not emphasis\\*, snake_case, \\_x\\_ and 1\\. item')
    const markdown = documentToMarkdown(doc)
    expect(markdownToDocument(markdown)).toEqual(doc)
    expect(markdown).toContain('snake_case')
  })

  it('names blocks it cannot write', () => {
    const doc = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'openapi', isVoid: true, data: {} }] } as unknown as JSONDocument
    expect(documentToMarkdown(doc)).toBe('<!-- openapi block not representable in markdown -->')
  })
})

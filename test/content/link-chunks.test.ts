/**
 * Large bodies are parsed in runs of top-level blocks (issue 16). Whatever the split, the links found
 * must be exactly those of one parse of the whole text; texts that cannot be split safely are not.
 */
import { describe, expect, it } from 'vitest'
import { topLevelChunks } from '../../src/main/content/markdown/blocks'
import { extractLinks, rewriteLinks } from '../../src/main/content/markdown/links'
import { parseMarkdownTree, visitNodes } from '../../src/main/content/markdown/syntax-tree'

const BLOCKS = [
  'A paragraph with a [link](./a.md) and <https://example.com/auto>.',
  '```md\n[inside a fence](./fence.md)\n\n[still inside](./fence2.md)\n```',
  '~~~~\nA tilde fence\n\n~~~\n[inside](./tilde.md)\n~~~~',
  '<!--\n[in a comment](./comment.md)\n\n[still](./comment2.md)\n-->',
  '<pre>\n[pre text](./pre.md)\n\nmore\n</pre>',
  '- item [one](./one.md)\n\n  continued [two](./two.md)\n\n- item three',
  '> quote [q](./q.md)\n>\n> more',
  '[def]: ./defined.md "Title"',
  '| a | b |\n| - | - |\n| [cell](./cell.md) | x |',
  '{% content-ref url="./ref.md" %}\n[ref.md](./ref.md)\n{% endcontent-ref %}',
  '<figure><img src="./.gitbook/assets/a.png" alt=""></figure>',
  '    indented code [not](./indented.md)',
  'Text with `inline [code](./code.md)` and ![image](./.gitbook/assets/b.png).',
]

/** Links as one remark parse of the whole text sees them: the oracle. */
function wholeParseTargets(text: string): string[] {
  const targets: string[] = []
  visitNodes(parseMarkdownTree(text), (node) => {
    if (node.type === 'link' || node.type === 'image' || node.type === 'definition') targets.push(node.url)
  })
  return targets
}

describe('large bodies parsed in runs of blocks', () => {
  it('finds the same links as a parse of the whole text', () => {
    // Every order of the blocks, repeated past the run size, so runs start at every kind of block.
    const text = Array.from({ length: 400 }, (_, i) => BLOCKS[(i * 7) % BLOCKS.length]).join('\n\n') + '\n'
    const chunks = topLevelChunks(text, 1024)
    expect(chunks.length).toBeGreaterThan(20)
    expect(chunks[0][0]).toBe(0)
    expect(chunks[chunks.length - 1][1]).toBe(text.length)
    for (let i = 1; i < chunks.length; i++) expect(chunks[i][0]).toBe(chunks[i - 1][1])

    const markdownLinks = extractLinks(text).filter((link) => link.syntax !== 'attribute')
    expect(markdownLinks.map((link) => link.target)).toEqual(wholeParseTargets(text))
    for (const link of extractLinks(text)) expect(text.slice(link.start, link.end)).toContain(link.target.replace(/^\.\//, ''))
  })

  it('does not split a text whose fences or HTML blocks sit inside containers', () => {
    const nested = '- item\n  ```\n\n[in the fence](./x.md)\n```\n\n' + 'Paragraph.\n\n'.repeat(500)
    expect(topLevelChunks(nested, 256)).toEqual([[0, nested.length]])
    expect(extractLinks(nested).map((link) => link.target)).toEqual(wholeParseTargets(nested))
  })

  it('skips runs the caller rules out, and rewrites many links in one pass', () => {
    const text = Array.from({ length: 3000 }, (_, i) => `Para [l${i}](./p${i}.md) and [x](other.md)`).join('\n\n')
    const onlyFirst = extractLinks(text, (run) => run.includes('./p0.md'))
    expect(onlyFirst.length).toBeGreaterThan(0)
    expect(onlyFirst.length).toBeLessThan(1000) // of 6,000
    const rewritten = rewriteLinks(text, (link) => (link.target.startsWith('./') ? link.target.slice(2) : undefined))
    expect(rewritten).toBe(text.replace(/\]\(\.\//g, ']('))
  })
})

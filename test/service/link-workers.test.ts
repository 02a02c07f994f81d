/**
 * Markdown links parsed in worker threads (issue 16): the service parses a large page's runs in a pool of
 * workers before its synchronous turn, which then parses nothing. The links found that way must be exactly
 * those of a parse on the calling thread, the calling thread must stay free meanwhile, and a pool whose
 * workers cannot start must still give the right links (on the calling thread, a run at a time).
 */
import { performance } from 'node:perf_hooks'
import { afterAll, describe, expect, it } from 'vitest'
import { extractLinks, parseLinksAhead, rewriteLinks } from '../../src/main/content/markdown/links'
import { LinkParseError, LinkWorkerPool } from '../../src/main/service/link-workers/pool'
import { batchLinkHint } from '../../src/main/content/revision/batch-links'

const BLOCKS = [
  (i: number) => `Paragraph ${i} with a [link](./new-page.md#part-${i}), https://example.com/${i}, \`[code](./new-page.md)\` and ![img](./.gitbook/assets/a-${i}.png).`,
  () => '```md\n[inside a fence](./new-page.md)\n```',
  (i: number) => `| a | b |\n| - | - |\n| [cell ${i}](<./new page.md>) | [p](/pages/p${i}) |`,
  () => `{% content-ref url="./new-page.md" %}\n[new-page.md](./new-page.md)\n{% endcontent-ref %}`,
  (i: number) => `<figure><img src="./.gitbook/assets/b-${i}.png" alt=""></figure>`,
  (i: number) => `[def-${i}]: ./defined-${i}.md "Title"\n\nUse [it][def-${i}] and a [plain link](other-${i}.md).`,
  (i: number) => `> quote [q](./new-page.md#q-${i})\n>\n> more text`,
]

/** About `chars` of markdown made of every kind of block, in a different order every 7 blocks. */
function markdown(chars: number): string {
  const blocks: string[] = ['# Big page']
  for (let i = 0, size = 0; size < chars; i++) {
    const block = BLOCKS[(i * 3) % BLOCKS.length](i)
    blocks.push(block)
    size += block.length + 2
  }
  return blocks.join('\n\n') + '\n'
}

// Texts are made unique per test (a suffix no run shares) so that the module's run cache, filled by an
// earlier test, cannot answer for the workers.
let unique = 0
const fresh = (chars: number) => markdown(chars).replace(/Paragraph /g, `Paragraph u${++unique} `)

describe('links parsed in worker threads', () => {
  const pool = new LinkWorkerPool({ size: 2 })
  afterAll(() => pool.close())

  it('finds the links a parse on this thread finds, and spares the calling thread', async () => {
    const text = fresh(600 * 1024)
    const before = performance.eventLoopUtilization()
    const parsed = await parseLinksAhead(text, undefined, pool.parse)
    const busy = performance.eventLoopUtilization(before)
    expect(pool.fallbackReason).toBeUndefined()
    expect(parsed.size).toBeGreaterThan(50)

    const fromWorkers = extractLinks(text, undefined, parsed)
    expect(fromWorkers.length).toBeGreaterThan(5000)
    expect(fromWorkers).toEqual(extractLinks(text))
    // The workers parsed; this thread only split the text and took the results. On this thread alone the
    // parse keeps the event loop busy all along (utilization near 1, however loaded the machine).
    expect(busy.utilization, `event loop utilization ${busy.utilization.toFixed(2)} over ${busy.active.toFixed(0)} ms active`).toBeLessThan(0.5)
  }, 120_000)

  it('parses only the runs a caller reads, and a rewrite with them matches one without', async () => {
    const text = fresh(200 * 1024)
    const hint = batchLinkHint(['new-page'])
    const parsed = await parseLinksAhead(text, hint, pool.parse)
    const replace = (link: { target: string }) => (link.target.startsWith('./new-page.md') ? link.target.replace('./new-page.md', 'new/README.md') : undefined)
    const rewritten = rewriteLinks(text, replace, hint, parsed)
    expect(rewritten).toBe(rewriteLinks(text, replace, hint))
    expect(rewritten).toMatch(/\[link\]\(new\/README\.md#part-\d+\)/)
    expect(rewritten).toContain('`[code](./new-page.md)`')

    const noRefs = batchLinkHint([])
    const onlyAbsolute = await parseLinksAhead(text, noRefs, pool.parse)
    // Runs with neither `/pages/` nor `/files/` are not parsed: only those holding a table of BLOCKS.
    expect(onlyAbsolute.size).toBeGreaterThan(0)
    expect([...onlyAbsolute.keys()].every((run) => run.includes('/pages/'))).toBe(true)
  }, 120_000)

  it('parses only the runs an edit changed: the others come from the runs parsed before', async () => {
    const text = fresh(200 * 1024)
    const parsedTexts: string[] = []
    const counting = (texts: string[]) => (parsedTexts.push(...texts), pool.parse(texts))
    const first = await parseLinksAhead(text, undefined, counting)
    expect(parsedTexts.length).toBe(first.size)

    // One paragraph edited, as a sync pushes it: one run to parse again, the rest reused.
    parsedTexts.length = 0
    const edited = text.replace(/Paragraph (u\d+) 700 /, 'Paragraph $1 700 [edited](./edited.md) ')
    expect(edited).not.toBe(text)
    const second = await parseLinksAhead(edited, undefined, counting)
    expect(parsedTexts).toHaveLength(1)
    expect(parsedTexts[0]).toContain('[edited](./edited.md)')
    expect(extractLinks(edited, undefined, second)).toEqual(extractLinks(edited))
  }, 120_000)

  it('gives the same links on this thread when its workers cannot start', async () => {
    const broken = new LinkWorkerPool({ size: 2, script: new URL('./no-such-worker.mjs', import.meta.url) })
    const text = fresh(100 * 1024)
    const parsed = await parseLinksAhead(text, undefined, broken.parse)
    expect(broken.fallbackReason).toMatch(/link worker/)
    expect(extractLinks(text, undefined, parsed)).toEqual(extractLinks(text))
    // Later calls go straight to this thread.
    const again = await broken.parse([text.slice(0, 2000)])
    expect(again).toHaveLength(1)
    await broken.close()
  }, 120_000)
})

describe('markdown remark cannot parse in time', () => {
  it('is given up after the time limit, with its worker replaced, and other runs still parse', async () => {
    const pool = new LinkWorkerPool({ size: 1, timeLimitMs: 1000 })
    try {
      // remark's time grows with the square of block quote nesting: seconds for this, however fast the machine.
      const nested = '>'.repeat(40_000) + ' [deep](./deep.md)\n'
      await expect(pool.parse([nested])).rejects.toThrow(LinkParseError)
      await expect(pool.parse([nested])).rejects.toThrow(/could not be parsed within 1 s \(nested too deeply\?\)/)
      // Not handed to this thread instead, and the pool still works.
      expect(pool.fallbackReason).toBeUndefined()
      const [ok] = await pool.parse(['A [link](./a.md).'])
      expect(ok.links.map((link) => link.target)).toEqual(['./a.md'])
    } finally {
      await pool.close()
    }
  }, 120_000)
})

/**
 * The links of a large page listed over several turns of the event loop (issue 16) are the links listed
 * in one: `extractLinksInSlices` against `extractLinks`, a rewrite handed the links `parseLinksAhead`
 * listed against one that lists them itself, and a revision's link report built in slices against one
 * built in one go.
 */
import { describe, expect, it } from 'vitest'
import { parseChunkLinksWithRemark } from '../../src/main/content/markdown/chunk-links'
import { extractLinks, extractLinksInSlices, parseLinksAhead, rewriteLinks, type RunParser } from '../../src/main/content/markdown/links'
import { batchLinkHint, batchLinkTargets, resolveBatchLinks } from '../../src/main/content/revision/batch-links'
import { TurnClock } from '../../src/main/content/markdown/turn-clock'
import { RevisionLinks } from '../../src/main/service/content-index'
import { revision } from '../content-index/fixture'
import { markdownOfSize } from '../support/large-markdown'

const ORIGIN = 'http://127.0.0.1:4000'

/** About `bytes` of markdown with every kind of link, code that holds none, and GitBook tags. */
function variedMarkdown(bytes: number): string {
  return markdownOfSize(bytes, (i) =>
    [
      `Paragraph ${i}: a [link](./new-page.md#part-${i}), ![img](../.gitbook/assets/a${i % 7}.png), https://example.com/${i} and \`[code](x.md)\`.\n\n`,
      '```js\nconst x = 1 // [not a link](./new-page.md)\n```\n\n',
      `{% content-ref url="guide/page-${i % 13}.md" %}\n[guide](guide/page-${i % 13}.md)\n{% endcontent-ref %}\n\n`,
      `<figure><img src="../.gitbook/assets/f${i}.png" alt=""></figure>\n\n`,
      `[ref ${i}]: /pages/home\n\n`,
    ][i % 5],
  )
}

const onThisThread: RunParser = async (texts) => texts.map(parseChunkLinksWithRemark)

describe('the turn clock', () => {
  it('looks at the clock every `every` items, and is due once the slice time is up, counting from the first item after', async () => {
    const clock = new TurnClock(0, 3)
    expect([clock.tick(), clock.tick(), clock.tick(), clock.tick(), clock.tick(), clock.tick()]).toEqual([false, false, true, false, false, true])
    const slow = new TurnClock(20)
    expect(slow.tick()).toBe(false)
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(slow.tick()).toBe(true)
    // The pause after a due tick does not count against the next slice.
    await new Promise((resolve) => setTimeout(resolve, 30))
    expect(slow.tick()).toBe(false)
  })
})

describe('links listed over several turns', () => {
  const body = variedMarkdown(512 * 1024)

  it('extractLinksInSlices lists what extractLinks lists, giving the event loop back many times', async () => {
    let pauses = 0
    const sliced = await extractLinksInSlices(body, undefined, undefined, async () => {
      pauses++
    })
    const whole = extractLinks(body)
    expect(whole.length).toBeGreaterThan(5_000)
    expect(sliced).toEqual(whole)
    // Seconds of remark over runs the scanner leaves (first parse of these runs here): a pause every 4 ms.
    expect(pauses).toBeGreaterThanOrEqual(2)
  })

  it('a rewrite handed the links parseLinksAhead listed writes what one listing them itself writes', async () => {
    const hint = batchLinkHint(['new-page'])
    // The key under which the links listed ahead are found: the same refs give the same function.
    expect(batchLinkHint(['new-page'])).toBe(hint)
    expect(batchLinkHint(['other', 'new-page'])).toBe(batchLinkHint(['new-page', 'other', 'new-page']))

    const tree = revision([{ id: 'home', title: 'Home', body: '# Home\n' }, { id: 'new', title: 'New page' }]).tree
    const paths = new Map([
      ['home', 'README.md'],
      ['new', 'new-page.md'],
    ])
    const targets = batchLinkTargets(tree, paths, new Map([['new-page', 'new']]), new Map())
    expect(targets.hint).toBe(hint)

    const listedItself = resolveBatchLinks(body, 'guide/README.md', targets)
    const parsed = await parseLinksAhead(body, hint, onThisThread)
    const handedLinks = resolveBatchLinks(body, 'guide/README.md', targets, parsed)
    expect(handedLinks).toBe(listedItself)
    expect(handedLinks).toContain('[link](../new-page.md#part-0)')
    expect(handedLinks).toContain('// [not a link](./new-page.md)')
    // Another hint (another function) does not take links listed with this one.
    const everyDotSlash = (text: string) => text.includes('./')
    expect(rewriteLinks(body, (link) => (link.target.startsWith('./new-page.md') ? 'x.md' : undefined), everyDotSlash, parsed)).toBe(
      rewriteLinks(body, (link) => (link.target.startsWith('./new-page.md') ? 'x.md' : undefined), everyDotSlash),
    )
  })

  it("a revision's links built in slices report what links built in one go report", async () => {
    const source = revision([
      { id: 'home', title: 'Home', body },
      { id: 'guide', title: 'Guide', body: variedMarkdown(64 * 1024), pages: [{ id: 'page-1', title: 'Page 1', body: '[home](../README.md)' }] },
    ])
    const sliced = await RevisionLinks.build(source, ORIGIN, async () => {})
    const whole = new RevisionLinks(source, ORIGIN)
    expect(sliced.occurrences).toEqual(whole.occurrences)
    for (const pageId of [undefined, 'home', 'guide', 'page-1']) {
      expect(await sliced.entriesInSlices(pageId, async () => {})).toEqual(whole.entries(pageId))
    }
    // Kept: a second report of the same page does not group its links again.
    expect(await sliced.entriesInSlices('home', async () => {})).toBe(await sliced.entriesInSlices('home', async () => {}))
  })
})

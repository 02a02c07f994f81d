/**
 * A large page read as its JSON document must not stall the service (issue 16): remark costs 1.5-2 s of
 * CPU per MB, so a 5 MB page converted on the event loop held every other request for seconds. Converted
 * in a worker now (link-workers/pool.ts `convert`), its JSON handed over as bytes and written out in
 * pieces (http/json-pieces.ts), and the answer is the one the synchronous conversion gives. Holds are
 * CPU time of the event loop's thread: the longest against that thread's CPU over the whole request (as
 * content-stall.test.ts bounds them) and under the 100 ms. The earlier answer of JSON text was
 * cloned from the worker, joined and encoded in one turn: 25-30 ms CPU for this 2 MB page (16 MB of JSON),
 * 75-90 ms at 5 MB; now ~8 ms on a quiet machine. A tighter bound meant to catch that path again (15 ms,
 * then twice the CPU of encoding the answer once) failed in CI and under load at 18 ms: this machine's CPU
 * time for one turn swings too much to tell 8 from 25 ms reliably, so only the bound is kept.
 */
// Per batch of runs, and per MB of a document: the 2 MB page gets 40 s a round (each takes 3-10 s on a
// loaded machine), the nested page (~200 KB) 20 s. 2 MB rather than 5: the hold is the same question, and
// a 5 MB page took the suite two minutes (two rounds in the worker, and the oracle's on this thread).
process.env.QUIRE_LINK_PARSE_TIME_LIMIT_MS = '20000'

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RevisionView } from '../../src/main/service/api/serializers/revision'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { arrangeSpace, editSpaceDirectly, page, type ArrangedSpace } from '../support/content-fixtures'
import { markdownOfSize } from '../support/large-markdown'
import { startTestService, type TestService } from '../support/service'
import { besideBigRequest, expectNoStall, rawAnswer } from './support/stall'

const PAGE_BYTES = 2 * 1024 * 1024

/** About `bytes` of markdown linking to another page (by id: `/pages/<id>`), its anchors, the page itself and the web. */
function linkedMarkdown(bytes: number, other: string): string {
  return markdownOfSize(bytes, (i) =>
    i % 10 === 9
      ? `> A quote with a [link](/pages/${other}) and {% content-ref url="other.md" %} text\n\n- item [x](/pages/${other}#a)\n- item two\n\n`
      : `Paragraph ${i} with **bold**, _emphasis_, a [link](/pages/${other}#part-${i}), [self](#top), https://example.com/${i} and \`code\`. Lorem ipsum dolor sit amet.\n\n`,
  )
}

/** Deeply nested block quotes: remark's time grows with the square of their depth. */
const NESTED = '# Nested\n\n' + '>'.repeat(40_000) + ' [deep](./other.md)\n' + 'padding\n'.repeat(20_000)

describe('a large page read as a document does not stall the service', () => {
  let t: TestService
  let s: ArrangedSpace
  let revisionId: string

  beforeAll(async () => {
    // Not spec-checked: checking 8 MB of answer is test-mode work on the event loop, not the service's.
    t = await startTestService({ validateResponses: false })
    s = arrangeSpace(t.service, [page('other', '# Other\n\n## Part\n'), page('big', '# Big\n'), page('nested', '# Nested\n')])
    // Edits without batch refs are stored without a parse: the first read meets the markdown.
    revisionId = editSpaceDirectly(t.service, s.spaceId, [
      { operation: 'update_page', page: s.pages.big, document: { markdown: linkedMarkdown(PAGE_BYTES, s.pages.other) } },
      { operation: 'update_page', page: s.pages.nested, document: { markdown: NESTED } },
    ])
  }, 300_000)
  afterAll(async () => {
    delete process.env.QUIRE_LINK_PARSE_TIME_LIMIT_MS
    await t.close()
  })

  // First: after 300,000 small requests and a 40 MB answer, the loopback connection of the next read was
  // reset in 2 of 2 runs (the client's, not the service's: the service answers it alone).
  it('ends a read of deeply nested quotes with a clear error within the time limit, and keeps answering', async () => {
    const started = performance.now()
    const read = await besideBigRequest(t, () => t.api.raw('GET', `/spaces/${s.spaceId}/content/page/${s.pages.nested}`))
    expect(read.res.status).toBe(422)
    expect(JSON.stringify(read.res.body)).toMatch(/the page's markdown could not be parsed within 20 s \(nested too deeply\?\)/)
    // Both rounds' limits and a worker's start at most, on a loaded machine.
    expect(performance.now() - started).toBeLessThan(60_000)
    const other = await t.api.raw('GET', `/spaces/${s.spaceId}/content/page/${s.pages.other}`)
    expect(other.status).toBe(200)
  }, 120_000)

  it('answers small requests throughout, with the document the synchronous conversion gives', async () => {
    // Read as bytes: decoding and parsing 16 MB of JSON is 50-150 ms of this thread's, the test's not the
    // service's (the last session's 0.4 s hold at 5 MB was mostly that). Small requests paced: see BesideOptions.
    const read = await besideBigRequest(t, () => rawAnswer(t, `/spaces/${s.spaceId}/content/page/${s.pages.big}`), { paceMs: 2 })
    const text = Buffer.concat(read.res.chunks).toString('utf8')
    expect(read.res.status, text.slice(0, 500)).toBe(200)
    expectNoStall(read, { maxHoldCpuMs: 100 })

    // The oracle: the page converted on this thread, as every page was before.
    const store = t.service.store
    const revision = store.repo(RevisionsRepository).get(revisionId)!
    const view = new RevisionView(store, revision, { origin: t.service.origin, metadata: true })
    const expected = JSON.parse(JSON.stringify(view.pageJson(view.findPage(s.pages.big)!, 'document')))
    // Compared as text: a failing toEqual would print both 16 MB documents.
    const body = JSON.parse(text) as { document: unknown }
    const document = JSON.stringify(body.document)
    expect(JSON.stringify(body) === JSON.stringify(expected), 'the answer differs from the synchronous conversion').toBe(true)
    expect(document).toContain(`"kind":"anchor","page":"${s.pages.other}","anchor":"part-0"`)
    expect(document).toContain(`"kind":"page","page":"${s.pages.other}"`)
  }, 300_000)
})

describe('a page whose subpages are large, read as a document', () => {
  let t: TestService

  beforeAll(async () => {
    t = await startTestService() // responses spec-checked
  })
  afterAll(() => t.close())

  // Issue 26: the answer carries the page's own document; its subpages are references (read one by one),
  // so none of their documents is converted for it, however large.
  it('answers its own document only, the subpages as references, equal to the synchronous conversion', async () => {
    const sub = (n: number) => markdownOfSize(160 * 1024, (i) => `Part ${n}, paragraph ${i} with a [link](./parent.md) and **bold** ü 😀.\n\n`, `# Sub ${n}\n\n`)
    const s = arrangeSpace(t.service, [page('parent', '# Parent\n\nSmall.\n'), page('one', sub(1), { into: 'parent' }), page('two', sub(2), { into: 'parent' })])
    const read = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.parent }, query: { format: 'document' } })
    expect(read.status).toBe(200)
    const store = t.service.store
    const view = new RevisionView(store, store.repo(RevisionsRepository).get(s.revisionId)!, { origin: t.service.origin, metadata: true })
    const expected = JSON.parse(JSON.stringify(view.pageJson(view.findPage(s.pages.parent)!, 'document')))
    expect(JSON.stringify(read.body) === JSON.stringify(expected), 'the answer differs from the synchronous conversion').toBe(true)
    expect(read.body.document.object).toBe('document')
    expect(read.body.pages.map((p: { id: string }) => p.id)).toEqual([s.pages.one, s.pages.two])
    for (const child of read.body.pages) {
      expect(child.document, 'a subpage carries no document').toBeUndefined()
      expect(child.markdown).toBeUndefined()
      expect(child.git.path).toMatch(/^parent\/sub-[12]\.md$/)
    }
    expect(JSON.stringify(read.body).length, 'the answer holds no subpage body').toBeLessThan(10_000)
  }, 120_000)
})

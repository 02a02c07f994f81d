/**
 * Markdown remark cannot parse in reasonable time (issue 16): its time grows with the square of block
 * quote nesting, so 40,000 nested `>` cost it minutes. Parsed in the link workers with a time limit
 * (1 s here, 30 s by default), an edit that needs its links is refused with a clear 400, a stored page
 * like it reports no links instead of failing the report, and the service answers meanwhile.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

process.env.QUIRE_LINK_PARSE_TIME_LIMIT_MS = '1000'

const NESTED = '# Nested\n\n' + '>'.repeat(40_000) + ' [deep](./new-page.md)\n'

describe('markdown too slow to parse', () => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [page('home', '# Home\n'), page('other', '# Other\n\n[home](README.md)\n')])
  })
  afterAll(async () => {
    delete process.env.QUIRE_LINK_PARSE_TIME_LIMIT_MS
    await t.close()
  })

  it('refuses an edit whose batch links cannot be parsed, with the reason, and answers others meanwhile', async () => {
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Nested' } })).body
    const changes = [
      { operation: 'insert_page', ref: 'new-page', title: 'New page', document: { markdown: '# New page\n' } },
      { operation: 'update_page', page: s.pages.home, document: { markdown: NESTED } },
    ]
    let done = false
    const edit = t.api.raw('POST', `/spaces/${s.spaceId}/change-requests/${cr.id}/content`, { changes }).finally(() => (done = true))
    let answered = 0
    while (!done) {
      expect((await t.api.raw('GET', '/user')).status).toBe(200)
      answered++
    }
    const res = await edit
    expect(res.status).toBe(400)
    expect(JSON.stringify(res.body)).toMatch(/a page's markdown could not be parsed within 1 s \(nested too deeply\?\)/)
    expect(answered).toBeGreaterThan(1)
    // Nothing was stored: the change request still shows the page as it was.
    const home = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${s.pages.home}?format=markdown`)
    expect((home.body as { markdown: string }).markdown).toContain('# Home')
  }, 120_000)

  it("reports a stored page's links without those of a page that cannot be parsed", async () => {
    // No batch link: stored without a parse, so the first read of the revision's links meets it.
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Stored' } })).body
    const markdown = NESTED.replace('./new-page.md', 'other.md')
    const stored = await t.api.raw('POST', `/spaces/${s.spaceId}/change-requests/${cr.id}/content`, { changes: [{ operation: 'update_page', page: s.pages.home, document: { markdown } }] })
    expect(stored.status).toBe(200)

    const nested = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${s.pages.home}/links`)
    expect(nested.status).toBe(200)
    expect((nested.body as { items: unknown[] }).items).toEqual([])
    const other = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${s.pages.other}/links`)
    expect(other.status).toBe(200)
    expect((other.body as { items: Array<{ targetReference: { page?: string } }> }).items.map((item) => item.targetReference.page)).toEqual([s.pages.home])
  }, 120_000)
})

/**
 * A large page must not stall the service (issue 16): remark takes seconds over megabytes of markdown
 * (parsed in worker threads now), and listing tens of thousands of links takes a tenth of a second, and
 * the other requests must keep being answered meanwhile, both while the edit is applied and while the
 * links of the revision it made are read. Ratios, not timings: the longest hold of the event loop, in
 * CPU time of its thread (test/support/loop-turns.ts), against that thread's CPU over the whole request,
 * both from the same run: a bound that holds on a 2-core machine kept busy by other processes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RevisionLinks } from '../../src/main/service/content-index'
import { ChangeRequestsRepository } from '../../src/main/service/store/change-requests'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { markdownOfSize } from '../support/large-markdown'
import { startTestService, type TestService } from '../support/service'
import { besideBigRequest, expectNoStall } from './support/stall'

/** About `bytes` of markdown whose every block links to the page the same batch inserts (ref `new-page`). */
function linkedMarkdown(bytes: number): string {
  return markdownOfSize(bytes, (i) =>
    i % 10 === 9
      ? '```js\nconst x = [1, 2, 3] // [not a link](./new-page.md)\n```\n\n'
      : `Paragraph ${i} with **bold**, _emphasis_, a [link](./new-page.md#part-${i}), https://example.com/${i} and \`code\`. Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n\n`,
  )
}

describe('a large page edit does not stall the service', () => {
  let t: TestService
  let s: ArrangedSpace
  let changeRequestId: string

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [page('home', '# Home\n')])
  })
  afterAll(async () => {
    await t.close()
  })

  it('answers small requests throughout a 5 MB update_page, and rewrites its links', async () => {
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Big' } })).body
    const markdown = linkedMarkdown(5 * 1024 * 1024)
    const changes = [
      { operation: 'insert_page', ref: 'new-page', title: 'New page', document: { markdown: '# New page\n' } },
      { operation: 'update_page', page: s.pages.home, document: { markdown } },
    ]

    changeRequestId = cr.id
    const edit = await besideBigRequest(t, () => t.api.raw('POST', `/spaces/${s.spaceId}/change-requests/${cr.id}/content`, { changes }))
    expect(edit.res.status, JSON.stringify(edit.res.body).slice(0, 500)).toBe(200)
    expectNoStall(edit)

    const read = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${s.pages.home}?format=markdown`)
    const body = (read.body as { markdown: string }).markdown
    expect(body.length).toBeGreaterThan(5_000_000)
    expect(body).toContain('[link](new-page.md#part-0)')
    expect(body).not.toContain('](./new-page.md#')
    expect(body).toContain('// [not a link](./new-page.md)')
  }, 300_000)

  it("answers small requests while the 5 MB page's links are read, and reports them as a parse on one thread does", async () => {
    const path = `/spaces/${s.spaceId}/change-requests/${changeRequestId}/content/page/${s.pages.home}/links`
    const read = await besideBigRequest(t, () => t.api.raw('GET', `${path}?limit=1000`))
    expect(read.res.status, JSON.stringify(read.res.body).slice(0, 500)).toBe(200)
    expectNoStall(read)

    // The oracle: the revision's links worked out in this thread, every body parsed here by remark.
    const store = t.service.store
    const head = store.repo(RevisionsRepository).get(store.repo(ChangeRequestsRepository).get(changeRequestId)!.revisionId)!
    const revisions = store.repo(RevisionsRepository)
    const oracle = new RevisionLinks({ tree: head.tree, readBlob: (oid) => revisions.blob(oid)?.toString('utf8') }, t.service.origin).entries(s.pages.home)
    const report = read.res.body as { items: unknown[]; stats: { total: number; broken: { total: number } } }
    expect(report.stats.total).toBe(oracle.length)
    expect(report.stats.broken.total).toBe(oracle.filter((entry) => entry.status === 'broken').length)
    // Every paragraph links to an anchor of the new page and to a URL of its own.
    expect(oracle.length).toBeGreaterThan(40_000)
    expect(report.items.length).toBe(1000)
  }, 300_000)
})

/**
 * A large content batch is parsed, applied and stored over several turns of the event loop, so that
 * other requests are answered in between (issue 16). Writes to the same change request that land
 * between its turns must not be lost: the large batch is applied again to the head they made.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { markdownOfSize } from '../support/large-markdown'
import { startTestService, type TestService } from '../support/service'

/** About `bytes` of plain markdown (ordinary relative links, nothing for the batch to resolve). */
function plainMarkdown(bytes: number): string {
  return markdownOfSize(bytes, (i) => `Paragraph ${i} with a [link](other-${i % 20}.md) and some words to fill the line.\n\n`, '# Large\n\n')
}

describe('a large batch written in steps', () => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [page('home', '# Home\n'), page('notes', '# Notes\n')])
  })
  afterAll(async () => {
    await t.close()
  })

  it('keeps the small writes that land between its steps', async () => {
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Steps' } })).body
    const markdown = plainMarkdown(2 * 1024 * 1024)
    const content = `/spaces/${s.spaceId}/change-requests/${cr.id}/content`
    const large = t.api.raw('POST', content, { changes: [{ operation: 'update_page', page: s.pages.home, document: { markdown } }] })
    // Small writes one after another while the large one is in flight: some land between its turns.
    const titles: string[] = []
    let settled = false
    void large.finally(() => (settled = true))
    for (let i = 0; !settled || i < 3; i++) {
      const title = `Small ${i}`
      const res = await t.api.raw('POST', content, { changes: [{ operation: 'insert_page', title, document: { markdown: `# ${title}\n` } }] })
      expect(res.status).toBe(200)
      titles.push(title)
    }
    expect((await large).status).toBe(200)

    const pages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages as Array<{ title: string }>
    expect(pages.map((p) => p.title)).toEqual(expect.arrayContaining(titles))
    const home = await t.api.call('getPageInChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id, pageId: s.pages.home }, query: { format: 'markdown' } })
    expect(home.body.markdown).toBe(markdown)
  }, 60_000)
})

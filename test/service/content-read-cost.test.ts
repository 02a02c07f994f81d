/**
 * Reading one page must not walk the whole space (issue 16: a 799-page space cost the service ~6 CPU
 * minutes to mirror). Counted, not timed: Git paths are computed once per revision, however many
 * pages are read from it, and reads by id, by path and with stable refs still answer the right page.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { computeGitPaths } from '../../src/main/content/gitsync/paths'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

vi.mock('../../src/main/content/gitsync/paths', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/main/content/gitsync/paths')>()
  return { ...actual, computeGitPaths: vi.fn(actual.computeGitPaths) }
})

const PAGES = 40

describe('page reads cost the page, not the space', () => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [
      page('guide', '# Guide\n\nSee [the last page](guide/topic-39.md).\n'),
      ...Array.from({ length: PAGES }, (_, i) => page(`topic-${i}`, `# Topic ${i}\n\nBack to [the guide](../README.md) or [next](topic-${(i + 1) % PAGES}.md).\n`, { into: 'guide' })),
    ])
  })
  afterAll(async () => {
    await t.close()
  })

  it('computes the revision Git paths once for many page reads', async () => {
    const first = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages['topic-0'] }, query: { format: 'markdown' } })
    expect(first.status).toBe(200)
    const counted = vi.mocked(computeGitPaths)
    counted.mockClear()

    for (let i = 0; i < PAGES; i++) {
      const res = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages[`topic-${i}`] }, query: { format: 'markdown', 'format.markdown.refs': 'stable' } })
      expect(res.status).toBe(200)
      expect(res.body.title).toBe(`Topic ${i}`)
      expect(res.body.git.path).toBe(`guide/topic-${i}.md`)
      expect(res.body.markdown).toContain(`[next](/pages/${s.pages[`topic-${(i + 1) % PAGES}`]})`)
    }
    const byPath = await t.api.call('getPageByPath', { params: { spaceId: s.spaceId, pagePath: 'guide/topic-7' }, query: { format: 'markdown' } })
    expect(byPath.body.id).toBe(s.pages['topic-7'])
    const document = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.guide } })
    expect(JSON.stringify(document.body.document)).toContain(s.pages['topic-39'])

    expect(counted.mock.calls.length, `computeGitPaths ran ${counted.mock.calls.length} times for ${PAGES + 2} reads`).toBe(0)
  })
})

/**
 * Reading one page must not walk the whole space (issue 16: a 799-page space cost the service ~6 CPU
 * minutes to mirror). Counted, not timed: Git paths are computed once per revision, however many
 * pages are read from it, and reads by id, by path and with stable refs still answer the right page;
 * the read after several writes in a row with no read between builds no revision index in full.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { computeGitPaths } from '../../src/main/content/gitsync/paths'
import { serializePageMarkdown } from '../../src/main/content/markdown/page-file'
import { revisionIndexesBuiltInFull } from '../../src/main/service/api/serializers/revision-index'
import { arrangeSpace, editSpaceDirectly, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

vi.mock('../../src/main/content/gitsync/paths', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/main/content/gitsync/paths')>()
  return { ...actual, computeGitPaths: vi.fn(actual.computeGitPaths) }
})

vi.mock('../../src/main/content/markdown/page-file', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../../src/main/content/markdown/page-file')>()
  return { ...actual, serializePageMarkdown: vi.fn(actual.serializePageMarkdown) }
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

  it('reads after writes in a row, none read between, without building the revision index in full', async () => {
    const cr = await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'writes in a row' } })
    expect(cr.status).toBe(201)
    const params = { spaceId: s.spaceId, changeRequestId: cr.body.id as string }
    const read = (pageId: string) => t.api.call('getPageInChangeRequestById', { params: { ...params, pageId }, query: { format: 'markdown' } })
    // The change request's first revision read: its index is built (or derived from the space's).
    expect((await read(s.pages['topic-0'])).status).toBe(200)
    const before = revisionIndexesBuiltInFull()
    const WRITES = 6
    for (let i = 0; i < WRITES; i++) {
      const pageId = s.pages[`topic-${i * 5}`]
      const write = await t.api.call('updateChangeRequestContent', { params, body: { changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Topic ${i * 5}\n\nWrite ${i} of a row.\n` } }] } })
      expect(write.status).toBe(200)
    }
    // Every page written reads back, by id and by path, and the section lists them all, without a full build.
    for (let i = 0; i < WRITES; i++) {
      const page = await read(s.pages[`topic-${i * 5}`])
      expect(page.body.markdown).toBe(`# Topic ${i * 5}\n\nWrite ${i} of a row.\n`)
      expect(page.body.git.path).toBe(`guide/topic-${i * 5}.md`)
    }
    const guide = await read(s.pages.guide)
    expect(guide.body.pages).toHaveLength(PAGES)
    const byPath = await t.api.call('getPageInChangeRequestByPath', { params: { ...params, pagePath: 'guide/topic-25' }, query: { format: 'markdown' } })
    expect(byPath.body.id).toBe(s.pages['topic-25'])
    const built = revisionIndexesBuiltInFull() - before
    expect(built, `revision indexes built in full for ${WRITES} writes in a row and the reads after them`).toBe(0)
  })

  it('serializes a page file once per revision, however often the tree and the page are read', async () => {
    const serialized = vi.mocked(serializePageMarkdown)
    const tree = await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })
    expect(tree.status).toBe(200)
    serialized.mockClear()

    const again = await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })
    expect(again.body).toEqual(tree.body)
    // The guide's answer names its 40 children (references with their git oid, no markdown: issue 26).
    for (let i = 0; i < 5; i++) {
      const guide = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.guide }, query: { format: 'markdown' } })
      expect(guide.body.pages).toHaveLength(PAGES)
      expect(guide.body.markdown).toContain('[the last page](guide/topic-39.md)')
    }
    expect(serialized.mock.calls.length, `page files serialized ${serialized.mock.calls.length} times on reads of a revision already read`).toBe(0)

    // A new revision is serialized afresh: what is kept is a revision's, never a space's.
    const edited = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages['topic-3'] }, query: { format: 'markdown' } })
    editSpaceDirectly(t.service, s.spaceId, [{ operation: 'update_page', page: s.pages['topic-3'], document: { markdown: '# Topic 3\n\nChanged.\n' } }])
    const after = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages['topic-3'] }, query: { format: 'markdown' } })
    expect(after.body.markdown).toBe('# Topic 3\n\nChanged.\n')
    expect(after.body.git.oid).not.toBe(edited.body.git.oid)
  })
})


/**
 * `getRevisionSemanticChanges` (issue 29): what a revision changed against its parent, in both
 * profiles; every answer is checked against the published spec by `api.call`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, editSpaceDirectly, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

describe.each(['friendly', 'hosted'] as const)('revision changes (%s profile)', (profile) => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService({ profile })
    s = arrangeSpace(t.service, [page('home', '# Welcome\n\nStart here.\n'), page('guide', '# Guide\n\nRead on.\n'), page('install', '# Install\n\nRun it.\n', { into: 'guide' })])
  })
  afterAll(() => t.close())

  const changesOf = async (revisionId: string, query: Record<string, number> = {}) =>
    (await t.api.call('getRevisionSemanticChanges', { params: { spaceId: s.spaceId, revisionId }, query })).body as { changes: Array<Record<string, any>>; more?: number }

  it('names an edited page, and nothing else', async () => {
    const revision = editSpaceDirectly(t.service, s.spaceId, [{ operation: 'update_page', page: s.pages.install, document: { markdown: '# Install\n\nRun it twice.\n' } }])
    const answer = await changesOf(revision)
    expect(answer.changes).toEqual([{ type: 'page_edited', page: expect.objectContaining({ id: s.pages.install, type: 'document', title: 'Install' }), attributes: { document: expect.any(Object) } }])
    expect(answer.more).toBeUndefined()
  })

  it('names created, moved and deleted pages and files; limit and more', async () => {
    const revision = editSpaceDirectly(t.service, s.spaceId, [
      page('faq', '# FAQ\n\nAsk.\n'),
      { operation: 'update_page', page: s.pages.install, into: null },
      { operation: 'delete_page', page: s.pages.home },
      { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('notes\n').toString('base64') }] },
    ])
    const all = await changesOf(revision, { limit: 50 })
    const types = all.changes.map((c) => c.type).sort()
    expect(types).toEqual(['file_created', 'page_created', 'page_deleted', 'page_moved'])
    expect(all.changes.find((c) => c.type === 'page_deleted')?.page.id).toBe(s.pages.home)
    expect(all.changes.find((c) => c.type === 'page_moved' && c.page.id === s.pages.install)?.parent.before.id).toBe(s.pages.guide)
    const two = await changesOf(revision, { limit: 2 })
    expect(two.changes).toHaveLength(2)
    expect(two.more).toBe(all.changes.length - 2)

  })
})

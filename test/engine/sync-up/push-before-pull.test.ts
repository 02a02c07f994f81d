import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * The writer pushes an edit of a page before syncing down a merged edit of the same page by someone
 * else: the change request (opened after that merge) must not carry a version that drops it (P2).
 */

const t = serviceForFile()
let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

describe('push before pull', () => {
  it("a change request opened after someone else's merge never undoes it when merged", async () => {
    const seeded = await seedSpace(t)
    ws = new Workstation(t, seeded, tempDir('quire-pbp-'))
    await ws.pull()
    const faq = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    ws.write('faq.md', '# FAQ\n\nQuestions.\n\nThe writer added this.\n')

    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Other' } })).body as ChangeRequest
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: seeded.spaceId, changeRequestId: other.id },
      body: { changes: [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nQuestions.\n\nSomeone else added this.\n' } }] },
    })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')

    await ws.push() // before any pull: the writer's Quire has not seen the merge
    for (let round = 0; round < 3; round++) {
      await ws.pull()
      await ws.push()
    }
    const crId = ws.outbox.session(seeded.spaceId)!.changeRequestId!
    expect(await ws.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    const served = (await t.api.call('getPageById', { params: { spaceId: seeded.spaceId, pageId: faq }, query: { format: 'markdown' } })).body.markdown
    expect(served).toContain('Someone else added this.')
    expect(served).toContain('The writer added this.')
  })
})

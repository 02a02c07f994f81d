import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * A page created on main after the writer's change request was opened is not in that change request's
 * content: an edit of it is sent after updating the change request from main, never refused and parked.
 */

const t = serviceForFile()
let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

describe('a page newer than the change request', () => {
  it('an edit of a page someone created after the change request was opened reaches the change request', async () => {
    const seeded = await seedSpace(t)
    ws = new Workstation(t, seeded, tempDir('quire-newer-'))
    await ws.pull()
    ws.write('faq.md', '# FAQ\n\nAn edit that opens the change request.\n')
    await ws.push()
    const crId = ws.outbox.session(seeded.spaceId)!.changeRequestId!

    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'New page' } })).body as ChangeRequest
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: seeded.spaceId, changeRequestId: other.id },
      body: { changes: [{ operation: 'insert_page', document: { markdown: '# Later\n\nWritten after.\n' }, slug: 'later' }] },
    })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')
    await ws.pull()
    expect(ws.read('later.md')).toContain('Written after.')

    ws.write('later.md', '# Later\n\nWritten after, then edited by the writer.\n')
    const pushed = await ws.push()
    expect(pushed.failures).toEqual([])
    expect(ws.outbox.failures(seeded.spaceId)).toEqual([])
    const later = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'later.md')![0]
    const inCr = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: crId, pageId: later }, query: { format: 'markdown' } })).body
    expect(inCr.markdown).toBe('# Later\n\nWritten after, then edited by the writer.\n')
  })
})

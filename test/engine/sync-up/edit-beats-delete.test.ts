import fs from 'node:fs'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * An edit beats a delete, also when the delete is the writer's: a page someone changed in the space
 * since the writer's last sync is not deleted by the writer's removal of its file (P2: their merged edit
 * would be undone); the writer is told, and the file comes back with their version.
 */

const t = serviceForFile()
let stations: Workstation[] = []
afterEach(() => {
  for (const ws of stations) removeWorkstation(ws)
  stations = []
})

describe('edit beats delete', () => {
  it("the writer deletes a file whose page someone else changed since: no deletion is sent, the page comes back with their edit", async () => {
    const seeded = await seedSpace(t)
    const writer = new Workstation(t, seeded, tempDir('quire-del-'))
    stations = [writer]
    await writer.pull()
    const faq = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]

    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Other' } })).body as ChangeRequest
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: seeded.spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nAn answer someone else wrote.\n' } }] },
    })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')

    fs.rmSync(writer.file('faq.md'))
    writer.write('guide/install.md', '# Install\n\nAn unrelated edit.\n')
    await writer.pull() // main moves on while the deletion is not pushed yet
    const pushed = await writer.push()
    expect(pushed.reports.map((r) => r.kind)).toContain('edit-beats-delete')
    const session = writer.outbox.session(seeded.spaceId)!
    expect(await writer.pusher.merge(session.changeRequestId!)).toMatchObject({ result: 'merge' })
    const served = (await t.api.call('getPageById', { params: { spaceId: seeded.spaceId, pageId: faq }, query: { format: 'markdown' } })).body.markdown
    expect(served).toContain('An answer someone else wrote.')

    await writer.pull()
    expect(writer.read('faq.md')).toContain('An answer someone else wrote.')
  })

  it('the writer edits a page someone deleted after the writer\'s change request was opened: the edit comes back as the page, nothing is refused', async () => {
    const seeded = await seedSpace(t)
    const writer = new Workstation(t, seeded, tempDir('quire-del-'))
    stations = [writer]
    await writer.pull()
    const faq = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    // The writer's change request is opened on today's main.
    writer.write('guide/install.md', '# Install\n\nAn unrelated edit.\n')
    await writer.push()

    // Someone deletes faq on main; the writer has not synced and edits it.
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Delete' } })).body as ChangeRequest
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: other.id }, body: { changes: [{ operation: 'delete_page', page: faq }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')
    writer.write('faq.md', '# FAQ\n\nQuestions.\n\nThe writer\'s answer.\n')
    await writer.pull() // sees the deletion; the edited file is held
    const pushed = await writer.push()
    // The change request still held faq (its base predates the deletion): the batch that brings the page back is
    // sent again after an update from main instead of being refused for the slug.
    expect(pushed.failures).toEqual([])
    expect(writer.outbox.failures(seeded.spaceId)).toEqual([])
    const session = writer.outbox.session(seeded.spaceId)!
    expect(await writer.pusher.merge(session.changeRequestId!)).toMatchObject({ result: 'merge' })
    const back = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')
    expect(back).toBeDefined()
    const served = (await t.api.call('getPageById', { params: { spaceId: seeded.spaceId, pageId: back![0] }, query: { format: 'markdown' } })).body.markdown
    expect(served).toContain("The writer's answer.")
    await writer.pull()
    expect(writer.read('faq.md')).toContain("The writer's answer.")
  })
  it('a comment marker is no edit: the page someone deleted stays deleted, the marker is kept in a conflicted copy', async () => {
    // What the randomized test's paragraph-level sequences allow (seed 26128): the copy keeps the marker's text (P1)
    // though no paragraph was changed on both sides.
    const seeded = await seedSpace(t)
    const writer = new Workstation(t, seeded, tempDir('quire-del-'))
    stations = [writer]
    await writer.pull()
    const install = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'guide/install.md')![0]
    writer.write('guide/install.md', '# Install\n\n<!-- comment: Still true? -->\n\nRun the installer.\n')
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Delete' } })).body as ChangeRequest
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: other.id }, body: { changes: [{ operation: 'delete_page', page: install }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')
    const pushed = await writer.push()
    expect(pushed.failures).toEqual([])
    expect(writer.outbox.session(seeded.spaceId)?.changeRequestId).toBeUndefined() // nothing to send: no page comes back
    const [copy] = writer.outbox.conflicts(seeded.spaceId)
    expect(copy).toMatchObject({ pageId: install, remoteOid: '' })
    expect(writer.read(copy.copyPath)).toContain('<!-- comment: Still true? -->')
    await writer.pull()
    expect(fs.existsSync(writer.file('guide/install.md'))).toBe(false)
  })
})

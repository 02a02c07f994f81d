import fs from 'node:fs'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * The writer's change request is merged while main holds more of a page than it carried (someone
 * else's edit merged beside the writer's rename), and the writer edits the page again before syncing:
 * the next change request carries the writer's edit merged with main's, never the file over main's
 * gain (P2, seed 9106 of the randomized test).
 */

const t = serviceForFile()
let stations: Workstation[] = []
afterEach(() => {
  for (const ws of stations) removeWorkstation(ws)
  stations = []
})

describe('a merged change request, then an edit before the next sync', () => {
  it("keeps someone else's edit that was merged beside the writer's rename", async () => {
    const seeded = await seedSpace(t)
    const writer = new Workstation(t, seeded, tempDir('quire-settle-'))
    stations = [writer]
    await writer.pull()
    const configure = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'guide/configure.md')![0]

    // The writer renames the page; the change request carries the move only.
    fs.renameSync(writer.file('guide/configure.md'), writer.file('settings.md'))
    await writer.push()

    // Someone else adds a paragraph to the page on main.
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Other' } })).body as ChangeRequest
    const theirs = '# Configure\n\nEdit the settings.\n\n![Logo](../.gitbook/assets/logo.png)\n\nA paragraph someone else added.\n'
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: other.id }, body: { changes: [{ operation: 'update_page', page: configure, document: { markdown: theirs } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')

    // A reviewer merges the writer's change request; the writer edits the page before syncing.
    const session = writer.outbox.session(seeded.spaceId)!
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: session.changeRequestId! } })).body.result).toBe('merge')
    writer.write('settings.md', `${writer.read('settings.md').trimEnd()}\n\nThe writer's new paragraph.\n`)

    const settled = await writer.push()
    expect(settled.settled?.status).toBe('merged')
    await writer.pull()
    const pushed = await writer.push()
    expect(pushed.conflicts).toEqual([])
    const next = writer.outbox.session(seeded.spaceId)!
    expect(next.changeRequestId).toBeDefined()
    const carried = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: next.changeRequestId!, pageId: configure }, query: { format: 'markdown' } })).body.markdown
    expect(carried).toContain('A paragraph someone else added.')
    expect(carried).toContain("The writer's new paragraph.")
    expect(writer.read('settings.md')).toContain('A paragraph someone else added.')
    expect(writer.read('settings.md')).toContain("The writer's new paragraph.")
  })

  it("keeps someone else's edit merged after the writer's change request, when the writer edits the page before syncing", async () => {
    const seeded = await seedSpace(t)
    const writer = new Workstation(t, seeded, tempDir('quire-settle-'))
    stations = [writer]
    await writer.pull()
    const install = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'guide/install.md')![0]
    writer.write('guide/install.md', '# Install\n\nRun the installer.\n\nThe writer\'s first paragraph.\n')
    await writer.push()
    const session = writer.outbox.session(seeded.spaceId)!
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: session.changeRequestId! } })).body.result).toBe('merge')

    // After the merge, someone else adds to the page on main; the writer has not synced.
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Other' } })).body as ChangeRequest
    const theirs = "# Install\n\nSomeone else's opening.\n\nRun the installer.\n\nThe writer's first paragraph.\n"
    await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: other.id }, body: { changes: [{ operation: 'update_page', page: install, document: { markdown: theirs } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: other.id } })).body.result).toBe('merge')

    expect((await writer.push()).settled?.status).toBe('merged')
    writer.write('guide/install.md', `${writer.read('guide/install.md').trimEnd()}\n\nThe writer's second paragraph.\n`)
    const pushed = await writer.push()
    expect(pushed.conflicts).toEqual([])
    const next = writer.outbox.session(seeded.spaceId)!
    const carried = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: next.changeRequestId!, pageId: install }, query: { format: 'markdown' } })).body.markdown
    expect(carried).toContain("Someone else's opening.")
    expect(carried).toContain("The writer's second paragraph.")
  })
})

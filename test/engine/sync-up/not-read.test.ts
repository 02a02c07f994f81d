import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { holdOf } from '../../../src/main/engine/push/hold'
import { contentKind } from '../../../src/main/engine/workspace/content-names'
import type { TestService } from '../../support/service'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, tempDir, Workstation } from './support/workspace'

/**
 * Issue 9, finding 2: a push deletes a page only when the writer removed its file (nothing at all at
 * its path). Files the scan will not read — under names sync down itself used to create from server
 * slugs, symlinks, pages over 8 MB — hold their pages as they are and are reported.
 */

const t = serviceForFile()

let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t)
})
afterEach(() => removeWorkstation(ws))

/** Merges one change request with `changes` into the space's main content. */
async function merge(service: TestService, spaceId: string, changes: unknown[]) {
  const cr = (await service.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Setup' } })).body as ChangeRequest
  const put = await service.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  expect(put.status).toBeLessThan(300)
  const merged = await service.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  expect(merged.body.result).toBe('merge')
}

const idOfPath = async (gitPath: string) => [...pagesOf(await mainRevision(t.api, ws.seeded.spaceId))].find(([, p]) => p.path === gitPath)![0]

/** Every page file path the journal holds. */
const journalPages = () =>
  ws.cache
    .journal(ws.seeded.spaceId)
    .filter((j) => j.kind === 'page')
    .map((j) => j.path)

/** The content operations of the writer's open change request, as the outbox holds them. */
const queuedOperations = () =>
  ws.outbox
    .ops(ws.seeded.spaceId, 1000)
    .flatMap((op) => (op.kind === 'content' ? (op.payload.changes as Array<{ operation: string }>).map((c) => c.operation) : []))

describe('pages whose files the scan does not read are held, never deleted', () => {
  it('slugs named like hidden or editor files become visible folders that sync up reads; an unrelated edit deletes nothing', async () => {
    const slugs = ['.notes', 'drafts~', '4913', 'x.swp', 'work.tmp', '.git']
    await merge(
      t,
      ws.seeded.spaceId,
      slugs.flatMap((slug, i) => [
        { operation: 'insert_page', document: { markdown: `# Folder ${i}\n\nHas a subpage.\n` }, slug, ref: `f${i}` },
        { operation: 'insert_page', document: { markdown: `# Child ${i}\n\nInside.\n` }, slug: 'child', into: `f${i}` },
      ]),
    )
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    const paths = journalPages()
    // Every page file sync down wrote is content by the one rule sync up reads with.
    for (const p of paths) expect(contentKind(p), p).toBe('page')
    expect(paths).toEqual(expect.arrayContaining(['_.notes/README.md', 'drafts~_/child.md', '_4913/README.md', 'x.swp_/child.md', 'work.tmp_/README.md', '_.git/child.md']))
    expect(fs.readdirSync(ws.folder).filter((n) => n.startsWith('.'))).toEqual(['.gitbook'])

    const main = await mainRevision(t.api, ws.seeded.spaceId)
    ws.write('faq.md', '# FAQ\n\nQuestions and answers.\n')
    const pushed = await ws.push()
    expect(pushed.failures).toEqual([])
    expect(pushed.planned).toBe(1)
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect(changedPages(main, await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id))).toEqual({ changed: [await idOfPath('faq.md')], added: [], removed: [] })
  })

  it('a hidden folder an earlier version wrote is held until the next pass moves it to its visible name', async () => {
    await merge(t, ws.seeded.spaceId, [
      { operation: 'insert_page', document: { markdown: '# Notes\n\nKept.\n' }, slug: '.notes', ref: 'n' },
      { operation: 'insert_page', document: { markdown: '# Child\n\nInside.\n' }, slug: 'child', into: 'n' },
    ])
    await ws.pull()
    // The folder as sync down named it before: `.notes/`, with the journal to match.
    fs.renameSync(ws.file('_.notes'), ws.file('.notes'))
    for (const j of ws.cache.journal(ws.seeded.spaceId)) if (j.path.startsWith('_.notes/')) ws.cache.recordJournal(ws.seeded.spaceId, { ...j, path: j.path.replace('_.notes/', '.notes/') })

    const held = await ws.push()
    expect(held.planned).toBe(0)
    expect(held.reports.map((r) => r.message)).toEqual(['.notes/ is hidden, which Quire does not read: its 2 pages stay as in the space, not deleted'])

    // The space changes: the pass moves the folder to the name sync up reads, and nothing is deleted.
    await merge(t, ws.seeded.spaceId, [{ operation: 'update_page', page: await idOfPath('faq.md'), document: { markdown: '# FAQ\n\nMore questions.\n' } }])
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    expect(fs.existsSync(ws.file('.notes'))).toBe(false)
    expect(ws.read('_.notes/child.md')).toBe('# Child\n\nInside.\n')
    const after = await ws.push()
    expect(after.planned).toBe(0)
    expect(after.reports).toEqual([])
  })

  it('a folder or page file replaced by a symlink, and a page over 8 MB, keep their pages and are reported; removing the file deletes', async () => {
    await ws.pull()
    const outside = tempDir('quire-outside-')
    try {
      // guide/ (3 pages) becomes a symlink to a copy outside the space folder.
      fs.cpSync(ws.file('guide'), path.join(outside, 'guide'), { recursive: true })
      fs.rmSync(ws.file('guide'), { recursive: true })
      fs.symlinkSync(path.join(outside, 'guide'), ws.file('guide'))
      // faq.md becomes a symlink to a copy of itself.
      fs.copyFileSync(ws.file('faq.md'), path.join(outside, 'faq.md'))
      fs.rmSync(ws.file('faq.md'))
      fs.symlinkSync(path.join(outside, 'faq.md'), ws.file('faq.md'))
      // getting-started.md grows past the page size limit.
      ws.write('getting-started.md', `# Getting started\n\n${'x'.repeat(9 * 1024 * 1024)}\n`)

      const main = await mainRevision(t.api, ws.seeded.spaceId)
      ws.write('README.md', '# Home\n\nWelcome to the new guide.\n')
      const pushed = await ws.push()
      expect(pushed.failures).toEqual([])
      expect(pushed.planned).toBe(1)
      expect(queuedOperations()).not.toContain('delete_page')
      const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
      expect(changedPages(main, await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id))).toEqual({ changed: [await idOfPath('README.md')], added: [], removed: [] })
      const reports = pushed.reports.filter((r) => r.kind === 'not-read')
      expect(reports.map((r) => r.path).sort()).toEqual(['faq.md', 'getting-started.md', 'guide'])
      expect(reports.find((r) => r.path === 'guide')!.message).toBe('guide/ is a symbolic link, which Quire does not follow: its 3 pages stay as in the space, not deleted')
      expect(reports.find((r) => r.path === 'getting-started.md')!.message).toMatch(/over 8 MB/)

      // The hold of sync down agrees: none of these pages is missing.
      expect(holdOf(ws.cache, ws.outbox, ws.seeded.spaceId, ws.folder)).toEqual(new Set())

      // Removing the link is the writer's deletion.
      fs.rmSync(ws.file('faq.md'))
      const again = await ws.push()
      expect(again.failures).toEqual([])
      expect(changedPages(main, await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id)).removed).toEqual([await idOfPath('faq.md')])
    } finally {
      fs.rmSync(outside, { recursive: true, force: true })
    }
  })

  it('a space folder gone as a whole (moved, unmounted) deletes nothing', async () => {
    await ws.pull()
    fs.renameSync(ws.folder, `${ws.folder}-moved`)
    const pushed = await ws.push()
    expect(pushed.planned).toBe(0)
    expect(pushed.reports.map((r) => r.message)).toEqual(['the space folder cannot be read: its 6 pages stay as in the space, not deleted'])
    expect(await openChangeRequests(t.api, ws.seeded.spaceId)).toEqual([])
    // Sync down agrees: nothing is held, the next pass puts the folder back whole.
    expect(holdOf(ws.cache, ws.outbox, ws.seeded.spaceId, ws.folder)).toEqual(new Set())
    await ws.pull()
    expect(ws.read('guide/install.md')).toBe(fs.readFileSync(`${ws.folder}-moved/guide/install.md`, 'utf8'))
    expect((await ws.push()).planned).toBe(0)
  })

  it('a dangling symlink at a page path is no deletion, for the planner and for the hold of sync down alike', async () => {
    await ws.pull()
    fs.rmSync(ws.file('faq.md'))
    fs.symlinkSync(path.join(ws.dir, 'nowhere.md'), ws.file('faq.md'))
    expect(holdOf(ws.cache, ws.outbox, ws.seeded.spaceId, ws.folder)).toEqual(new Set())
    const pushed = await ws.push()
    expect(pushed.planned).toBe(0)
    expect(pushed.reports.map((r) => [r.kind, r.path])).toEqual([['not-read', 'faq.md']])
    fs.rmSync(ws.file('faq.md'))
    expect(holdOf(ws.cache, ws.outbox, ws.seeded.spaceId, ws.folder)).toEqual(new Set([await idOfPath('faq.md')]))
  })
})

import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { AppWorkstation } from './support/app-workstation'
import { serviceForFile } from './support/hooks'
import { changeRequestRevision, FolderFiles, mainRevision, pagesOf, remoteOf, seedSpace, tempDir, Workstation, type SeededSpace } from './support/workspace'

/**
 * Recovery without a journal (issue 24 item 5, issue 25 item 5): a deleted cache, deleted journal rows,
 * a first sync into a folder that already holds the space's files. Files are matched to the service's
 * pages by path, oid, then similarity before anything counts as new: an edited file becomes an edit of
 * its page (same id, update_page), never a second page, and no writer's file is overwritten.
 */

const t = serviceForFile()
const dirs: string[] = []
const open: Array<{ close(): void | Promise<void> }> = []
afterEach(async () => {
  for (const w of open.splice(0)) await w.close()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function dir(prefix: string): string {
  const d = tempDir(prefix)
  dirs.push(d)
  return d
}

function workstation(seeded: SeededSpace, at: string): Workstation {
  const ws = new Workstation(t, seeded, at)
  open.push(ws)
  return ws
}

function removeCache(at: string) {
  for (const suffix of ['', '-wal', '-shm']) fs.rmSync(path.join(at, `cache.db${suffix}`), { force: true })
}

/** The pages of the writer's change request: title and path by id. */
async function changeRequestPages(ws: { outbox: Workstation['outbox']; seeded: SeededSpace }) {
  const crId = ws.outbox.session(ws.seeded.spaceId)?.changeRequestId
  if (!crId) throw new Error('no change request was opened')
  return { crId, pages: pagesOf(await changeRequestRevision(t.api, ws.seeded.spaceId, crId)) }
}

async function markdownIn(spaceId: string, crId: string, pageId: string): Promise<string> {
  return (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: crId, pageId }, query: { format: 'markdown' } })).body.markdown as string
}

const EDITED_FAQ = '# FAQ\n\nQuestions.\n\nAnswered after the cache was lost.\n'

describe('recovery without a journal', () => {
  it('a lost cache with an edited file: one FAQ page, the same id, the edit sent as its update', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const at = dir('quire-recover-')
    const first = workstation(seeded, at)
    await first.pull()
    const faqId = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    first.write('faq.md', EDITED_FAQ)
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)

    const ws = workstation(seeded, at)
    // Before any pass the journal knows no file: a push now would take every file for a new page.
    expect((await ws.push()).skipped).toMatch(/not matched to its pages yet/)
    await ws.pull()
    expect(ws.read('faq.md')).toBe(EDITED_FAQ) // never overwritten
    await ws.push()

    const { crId, pages } = await changeRequestPages(ws)
    expect([...pages.values()].filter((p) => p.title === 'FAQ')).toHaveLength(1)
    expect(pages.get(faqId)?.path).toBe('faq.md')
    expect(await markdownIn(seeded.spaceId, crId, faqId)).toContain('Answered after the cache was lost.')
    expect(pages.size).toBe(pagesOf(await mainRevision(t.api, seeded.spaceId)).size)
  })

  it('deleted journal rows: no duplicate home page, the edit goes to the same page', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const ws = workstation(seeded, dir('quire-rows-'))
    await ws.pull()
    const main = pagesOf(await mainRevision(t.api, seeded.spaceId))
    const [homeId, home] = [...main].find(([, p]) => p.title === 'Home')!
    ws.write(home.path, '# Home\n\nWelcome to the guide, edited.\n')
    // Rows lost: the home page's row as a whole, and every other page's journal columns.
    const db = (ws.cache as unknown as { db: import('better-sqlite3').Database }).db
    db.prepare('DELETE FROM pages WHERE space_id = ? AND id = ?').run(seeded.spaceId, homeId)
    db.prepare('UPDATE pages SET local_path = NULL, synced_oid = NULL, base_hash = NULL WHERE space_id = ?').run(seeded.spaceId)

    await ws.pull()
    await ws.push()
    const { crId, pages } = await changeRequestPages(ws)
    expect([...pages.values()].filter((p) => p.title === 'Home')).toHaveLength(1)
    expect(pages.size).toBe(main.size)
    expect(await markdownIn(seeded.spaceId, crId, homeId)).toContain('edited')
  })

  it('first sync into a non-empty folder holding the space files, one edited, one moved, one moved and edited', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    // The folder as another machine (or a git clone) left it: written by a first workstation, whose cache goes.
    const source = workstation(seeded, dir('quire-clone-'))
    await source.pull()
    const main = pagesOf(await mainRevision(t.api, seeded.spaceId))
    const idOf = (p: string) => [...main].find(([, page]) => page.path === p)![0]
    const folder = new FolderFiles(path.join(dir('quire-first-'), 'workspace', 'Acme', 'Docs'))
    fs.cpSync(source.folder, folder.folder, { recursive: true })
    folder.write('faq.md', EDITED_FAQ)
    fs.renameSync(folder.file('guide/install.md'), folder.file('installing.md'))
    const configure = folder.read('guide/configure.md')
    fs.rmSync(folder.file('guide/configure.md'))
    folder.write('setup.md', `${configure}\nOne more line of setup.\n`)

    const ws = workstation(seeded, path.dirname(path.dirname(path.dirname(folder.folder))))
    await ws.pull()
    expect(ws.read('faq.md')).toBe(EDITED_FAQ)
    expect(fs.existsSync(ws.file('guide/install.md'))).toBe(false) // the writer's move is not undone by a copy
    expect(fs.existsSync(ws.file('guide/configure.md'))).toBe(false)
    await ws.push()

    const { crId, pages } = await changeRequestPages(ws)
    expect(pages.size).toBe(main.size) // nothing inserted, nothing deleted
    expect(await markdownIn(seeded.spaceId, crId, idOf('faq.md'))).toContain('Answered after the cache was lost.')
    expect(pages.get(idOf('guide/install.md'))?.path).toBe('installing.md')
    expect(await markdownIn(seeded.spaceId, crId, idOf('guide/configure.md'))).toContain('One more line of setup.')
    expect(ws.read('setup.md')).toContain('One more line of setup.')
  })

  it("through the app's backend: a lost cache with an edited file gives one page, the same id", { timeout: 90_000 }, async () => {
    const seeded = await seedSpace(t)
    const dataDir = dir('quire-app-recover-')
    const quietly = (work: () => Promise<void>) => work()
    const gateway = { maxAttempts: 2, timeoutMs: 10_000 }
    const app = await AppWorkstation.open(remoteOf(t), seeded, dataDir, gateway, quietly)
    await app.pull()
    const faqId = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    app.write('faq.md', EDITED_FAQ)
    await app.close()
    removeCache(dataDir)

    const again = await AppWorkstation.open(remoteOf(t), seeded, dataDir, gateway, quietly)
    open.push(again)
    await again.pull()
    expect(again.read('faq.md')).toBe(EDITED_FAQ)
    await again.push()
    const { crId, pages } = await changeRequestPages(again)
    expect([...pages.values()].filter((p) => p.title === 'FAQ')).toHaveLength(1)
    expect(await markdownIn(seeded.spaceId, crId, faqId)).toContain('Answered after the cache was lost.')
  })

  it("a lost cache over a file as the writer's merged change request carried it: taken as that version, not an edit that undoes what main merged beside it", { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const at = dir('quire-merged-head-')
    const first = workstation(seeded, at)
    await first.pull()
    const faqId = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    first.write('faq.md', '# FAQ\n\nQuestions, changed by the writer.\n')
    await first.push()
    const mine = first.outbox.session(spaceId)!.changeRequestId!
    // A collaborator adds a paragraph inside it: the file holds the writer's batch, not the change request's head.
    const carried = (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: mine, pageId: faqId }, query: { format: 'markdown' } })).body.markdown as string
    await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: mine }, body: { changes: [{ operation: 'update_page', page: faqId, document: { markdown: `${carried}\nA collaborator's line.\n` } }] } })
    // Someone merges a paragraph in the same page; then the writer's change request is merged beside it.
    const theirs = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Theirs' } })).body as { id: string }
    const main = (await t.api.call('getPageById', { params: { spaceId, pageId: faqId }, query: { format: 'markdown' } })).body.markdown as string
    await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: theirs.id }, body: { changes: [{ operation: 'update_page', page: faqId, document: { markdown: `${main}\nMerged beside it.\n` } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: theirs.id } })).body.result).toBe('merge')
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: mine } })).body.result).toBe('merge')
    // The cache goes before the writer's Quire saw either merge: the file still holds the change request's version.
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)

    const ws = workstation(seeded, at)
    await ws.pull()
    const merged = (await t.api.call('getPageById', { params: { spaceId, pageId: faqId }, query: { format: 'markdown' } })).body.markdown as string
    expect(merged).toContain('changed by the writer')
    expect(merged).toContain('Merged beside it.')
    expect(merged).toContain("A collaborator's line.")
    expect(ws.read('faq.md')).toBe(merged)
    const pushed = await ws.push()
    expect(pushed.sent).toBe(0)
    expect(ws.outbox.session(spaceId)?.changeRequestId).toBeUndefined()
  })

  it('a lost cache over a file whose only edit is a comment marker, its page changed in main since: once the marker is posted, the next pass brings main\'s version', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const at = dir('quire-marker-only-')
    const first = workstation(seeded, at)
    await first.pull()
    const faqId = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    first.write('faq.md', `${first.read('faq.md')}\n<!-- comment: Is this still true? -->\n`)
    const theirs = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Theirs' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: theirs.id }, body: { changes: [{ operation: 'update_page', page: faqId, document: { markdown: '# FAQ\n\nQuestions.\n\nMerged meanwhile.\n' } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: theirs.id } })).body.result).toBe('merge')
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)

    const ws = workstation(seeded, at)
    await ws.pull()
    await ws.push() // posts the marker and takes it out of the file: the file is the version it was edited from
    await ws.pull()
    const main = (await t.api.call('getPageById', { params: { spaceId, pageId: faqId }, query: { format: 'markdown' } })).body.markdown as string
    expect(main).toContain('Merged meanwhile.')
    expect(ws.read('faq.md')).toBe(main)
  })

  it("a lost cache, then SUMMARY.md edited before the first pass: the pass keeps the writer's order and the push sends it as moves of the same pages", { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const at = dir('quire-summary-lost-')
    const first = workstation(seeded, at)
    await first.pull()
    const summary = first.read('SUMMARY.md')
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)

    const ws = workstation(seeded, at)
    // Install and Configure, two siblings under Guide, swapped.
    const swapped = summary.replace('  * [Install](guide/install.md)\n  * [Configure](guide/configure.md)\n', '  * [Configure](guide/configure.md)\n  * [Install](guide/install.md)\n')
    expect(swapped).not.toBe(summary)
    ws.write('SUMMARY.md', swapped)
    await ws.pull()
    expect(ws.read('SUMMARY.md')).toBe(swapped) // never overwritten
    expect((await ws.push()).failures).toEqual([])
    const { pages } = await changeRequestPages(ws)
    const main = pagesOf(await mainRevision(t.api, seeded.spaceId))
    expect(new Set(pages.keys())).toEqual(new Set(main.keys())) // moves of the same pages, none added
    const guideId = [...pages].find(([, p]) => p.path === 'guide/README.md')![0]
    // pagesOf lists a parent's pages in their order.
    expect([...pages.values()].filter((p) => p.parent === guideId).map((p) => p.title)).toEqual(['Configure', 'Install'])
  })

  /** Someone else's change request, merged: Configure moved before Install on main. */
  async function mergeConfigureFirstOnMain(spaceId: string) {
    const configureId = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'guide/configure.md')![0]
    const theirs = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Theirs' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: theirs.id }, body: { changes: [{ operation: 'update_page', page: configureId, at: 0 }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: theirs.id } })).body.result).toBe('merge')
  }

  it('a lost cache over an unedited SUMMARY.md, main reordered since: the pass brings main\'s, the push sends no move undoing the reorder', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const at = dir('quire-summary-old-')
    const first = workstation(seeded, at)
    await first.pull()
    const old = first.read('SUMMARY.md')
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)
    await mergeConfigureFirstOnMain(spaceId)

    const ws = workstation(seeded, at)
    await ws.pull()
    expect(ws.read('SUMMARY.md')).not.toBe(old)
    expect(ws.read('SUMMARY.md').indexOf('guide/configure.md')).toBeLessThan(ws.read('SUMMARY.md').indexOf('guide/install.md'))
    expect((await ws.push()).planned).toBe(0)
  })

  it('a lost cache over a SUMMARY.md edited from the one Quire wrote, main reordered since: the push sends the writer\'s move and keeps main\'s reorder', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const at = dir('quire-summary-behind-')
    const first = workstation(seeded, at)
    await first.pull()
    // The writer moves FAQ before Getting started; main meanwhile puts Configure before Install.
    const edited = first.read('SUMMARY.md').replace('* [FAQ](faq.md)\n', '').replace('* [Getting started](getting-started.md)\n', '* [FAQ](faq.md)\n* [Getting started](getting-started.md)\n')
    first.write('SUMMARY.md', edited)
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)
    await mergeConfigureFirstOnMain(spaceId)

    const ws = workstation(seeded, at)
    await ws.pull()
    expect(ws.read('SUMMARY.md')).toBe(edited) // never overwritten
    expect((await ws.push()).failures).toEqual([])
    const { pages } = await changeRequestPages(ws)
    const titles = (parent?: string) => [...pages.values()].filter((p) => p.parent === parent).map((p) => p.title)
    expect(titles(undefined)).toEqual(['Home', 'FAQ', 'Getting started', 'Guide'])
    expect(titles([...pages].find(([, p]) => p.path === 'guide/README.md')![0])).toEqual(['Configure', 'Install'])
  })

  it("a lost cache over an edited old copy, saved again during the first pass: the next pass still merges it from the version it was edited from, not over main's edit", { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const at = dir('quire-recover-twice-')
    const first = workstation(seeded, at)
    await first.pull()
    const faqId = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    first.write('faq.md', '# FAQ\n\nQuestions.\n\nThe writer\'s line.\n')
    // Someone merges another paragraph of the page while the writer's cache is lost.
    const theirs = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Theirs' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: theirs.id }, body: { changes: [{ operation: 'update_page', page: faqId, document: { markdown: '# FAQ\n\nMerged meanwhile.\n\nQuestions.\n' } }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: theirs.id } })).body.result).toBe('merge')
    first.close()
    open.splice(open.indexOf(first), 1)
    removeCache(at)

    // The writer saves the file again while the first pass reads the earlier revisions (the hosted
    // service's page reads leave time for it): that pass's recovery of the file is skipped.
    let saved = false
    const files = new FolderFiles(path.join(at, 'workspace', 'Acme', 'Docs'))
    const saving: typeof fetch = async (input, init) => {
      if (!saved && /\/revisions\/[^/]+$/.test(new URL(String(input instanceof Request ? input.url : input)).pathname)) {
        saved = true
        files.write('faq.md', '# FAQ\n\nQuestions.\n\nThe writer\'s line.\n\nSaved during the pass.\n')
      }
      return fetch(input, init)
    }
    const ws = new Workstation(t, seeded, at, { gateway: { fetch: saving } })
    open.push(ws)
    await ws.pull()
    expect(saved).toBe(true)
    await ws.pull()
    expect((await ws.push()).failures).toEqual([])
    const { crId } = await changeRequestPages(ws)
    const sent = await markdownIn(spaceId, crId, faqId)
    expect(sent).toContain('Saved during the pass.')
    expect(sent).toContain('Merged meanwhile.')
  })
})

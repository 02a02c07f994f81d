import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { SpacePusher, type SpacePusherOptions } from '../../../src/main/engine/push/space-pusher'
import { serviceForFile } from './support/hooks'
import { A1, aMergesParagraphOne, changeRequestMarkdown, INSTALL_PAGE as PAGE, mainMarkdown, paragraphs, twoWritersPerTest } from './support/two-writers'
import { tempDir, Workstation } from './support/workspace'

/**
 * Merge, don't copy (issue 15): when the writer and main both changed a page since the writer's merge
 * base, the push merges them block by block. A changes paragraph 1 and merges; B, synced before, changes
 * paragraph 7 and pushes: B's file and B's change request get both paragraphs, no conflicted copy, and
 * merging B's change request keeps A's paragraph. The file is rewritten only while it still holds what
 * the merge was made from: a save made meanwhile is never replaced.
 */

const t = serviceForFile()

const B7 = 'Paragraph 7 as B rewrote it.'

const { twoWriters, keep } = twoWritersPerTest(t)

/** A second pusher of B's, with hooks at the rewrite of a merged page. */
function pusherWith(b: Workstation, rewriteHooks: SpacePusherOptions['rewriteHooks']): SpacePusher {
  return new SpacePusher({ gateway: b.gateway, cache: b.cache, outbox: b.outbox, comments: b.comments, spaceId: b.seeded.spaceId, folder: b.folder, userId: t.service.ownerId, rewriteHooks })
}

const copiesIn = (ws: Workstation) => fs.readdirSync(ws.file('guide')).filter((name) => name.includes('conflicted copy'))

describe('a page both sides changed merges block by block', () => {
  it('A edits paragraph 1 and merges, B edits paragraph 7: both paragraphs in B\'s file, change request and merged main, no copy', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    const baseOid = b.cache.journal(spaceId).find((j) => j.id === install)!.oid
    expect(b.cache.pageBases.text(spaceId, baseOid)).toBe(paragraphs())
    await aMergesParagraphOne(a)

    b.write(PAGE, paragraphs({ 7: B7 }))
    b.write('faq.md', '# FAQ\n\nB also answered a question.\n')
    await b.pull() // the remote change waits: the file is edited here
    const pushed = await b.push()
    expect(pushed.conflicts).toEqual([])
    expect(copiesIn(b)).toEqual([])
    expect(b.read(PAGE)).toBe(paragraphs({ 1: A1, 7: B7 }))

    // The merge base is main's version now: the merged file still counts as B's edit, nothing more to send.
    const mainNow = await mainMarkdown(t.api, spaceId, install)
    const journaled = b.cache.journal(spaceId).find((j) => j.id === install)!
    expect(journaled.baseHash).toBe(gitBlobOid(mainNow))
    expect(b.cache.pageBases.text(spaceId, journaled.oid)).toBe(mainNow)
    expect(b.cache.pageBases.text(spaceId, baseOid)).toBeUndefined()
    expect((await b.push()).planned).toBe(0)

    const crId = b.outbox.session(spaceId)!.changeRequestId!
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(paragraphs({ 1: A1, 7: B7 }))
    expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    expect(await mainMarkdown(t.api, spaceId, install)).toBe(paragraphs({ 1: A1, 7: B7 }))
    await b.pull()
    expect(b.read(PAGE)).toBe(paragraphs({ 1: A1, 7: B7 }))
    expect(b.read('faq.md')).toContain('B also answered a question.')
  })

  it("B's change request already carried an earlier edit of the page: it now carries the merge of all three", async () => {
    const { a, b, install, spaceId } = await twoWriters()
    b.write(PAGE, paragraphs({ 5: 'Paragraph 5 as B first rewrote it.' }))
    await b.push()
    const crId = b.outbox.session(spaceId)!.changeRequestId!

    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 5: 'Paragraph 5 as B first rewrote it.', 7: B7 }))
    await b.pull()
    const pushed = await b.push()
    expect(pushed.conflicts).toEqual([])
    const all = paragraphs({ 1: A1, 5: 'Paragraph 5 as B first rewrote it.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(all)
    expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    expect(await mainMarkdown(t.api, spaceId, install)).toBe(all)
  })

  it("after B's own change request is merged, B's next edit of the page still merges with a later main", async () => {
    const { a, b, install, spaceId } = await twoWriters()
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.push()
    expect(await b.pusher.merge(b.outbox.session(spaceId)!.changeRequestId!)).toMatchObject({ result: 'merge' })
    await b.pull()
    await a.pull()
    a.write(PAGE, paragraphs({ 1: A1, 7: B7 }))
    await a.push()
    expect(await a.pusher.merge(a.outbox.session(spaceId)!.changeRequestId!)).toMatchObject({ result: 'merge' })

    b.write(PAGE, paragraphs({ 3: 'Paragraph 3 as B rewrote it.', 7: B7 }))
    await b.pull()
    const pushed = await b.push()
    expect(pushed.conflicts).toEqual([])
    const all = paragraphs({ 1: A1, 3: 'Paragraph 3 as B rewrote it.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    const crId = b.outbox.session(spaceId)!.changeRequestId!
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(all)
  })

  it('main moved on again since B last synced: B merges with main as it is now', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.pull() // B's cache sees A's paragraph 1, not what A merges next
    await a.pull()
    a.write(PAGE, paragraphs({ 1: A1, 3: 'Paragraph 3 as A rewrote it.' }))
    await a.push()
    expect(await a.pusher.merge(a.outbox.session(spaceId)!.changeRequestId!)).toMatchObject({ result: 'merge' })

    const pushed = await b.push()
    expect(pushed.conflicts).toEqual([])
    const all = paragraphs({ 1: A1, 3: 'Paragraph 3 as A rewrote it.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    expect(await changeRequestMarkdown(t.api, spaceId, b.outbox.session(spaceId)!.changeRequestId!, install)).toBe(all)
    await b.pull()
    expect(b.read(PAGE)).toBe(all)
    expect((await b.push()).planned).toBe(0)
  })

  it('a page adopted by a first sync into a folder that already had it merges too', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    const c = keep(new Workstation(t, b.seeded, tempDir('quire-c-')))
    fs.cpSync(b.folder, c.folder, { recursive: true })
    await c.pull()
    await aMergesParagraphOne(a)

    c.write(PAGE, paragraphs({ 7: B7 }))
    await c.pull()
    const pushed = await c.push()
    expect(pushed.conflicts).toEqual([])
    expect(c.read(PAGE)).toBe(paragraphs({ 1: A1, 7: B7 }))
    expect(await changeRequestMarkdown(t.api, spaceId, c.outbox.session(spaceId)!.changeRequestId!, install)).toBe(paragraphs({ 1: A1, 7: B7 }))
  })

  it('the same paragraph on both sides: a conflicted copy as before, main keeps its paragraph', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 1: 'Paragraph 1 as B rewrote it.', 7: B7 }))
    await b.pull()
    const pushed = await b.push()
    expect(pushed.conflicts).toHaveLength(1)
    expect(b.read(pushed.conflicts[0])).toBe(paragraphs({ 1: 'Paragraph 1 as B rewrote it.', 7: B7 }))
    expect(b.read(PAGE)).toBe(paragraphs({ 1: A1 }))
    const crId = b.outbox.session(spaceId)?.changeRequestId
    if (crId) {
      expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    }
    expect(await mainMarkdown(t.api, spaceId, install)).toBe(paragraphs({ 1: A1 }))
  })
})

describe('the rewrite of a merged page never replaces a save', () => {
  it('a save made between planning and the rewrite stays; the next push merges it too', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.pull()
    const later = paragraphs({ 3: 'Paragraph 3 saved during the push.', 7: B7 })
    const pusher = pusherWith(b, { before: () => b.write(PAGE, later) })
    const pushed = await pusher.push()
    expect(pushed.conflicts).toEqual([])
    expect(copiesIn(b)).toEqual([])
    expect(b.read(PAGE)).toBe(later)
    const crId = b.outbox.session(spaceId)!.changeRequestId!
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(paragraphs({ 1: A1, 7: B7 }))

    await b.push()
    const all = paragraphs({ 1: A1, 3: 'Paragraph 3 saved during the push.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(all)
  })

  it('a save inside the final window is put back in place', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.pull()
    const later = paragraphs({ 7: B7, 4: 'Paragraph 4 saved in the window.' })
    // An in-place save (same inode) right before the rename: the pusher reads it back and restores it.
    const pusher = pusherWith(b, { inWindow: () => fs.writeFileSync(b.file(PAGE), later) })
    await pusher.push()
    expect(b.read(PAGE)).toBe(later)
    expect(copiesIn(b)).toEqual([])

    await b.push()
    const all = paragraphs({ 1: A1, 4: 'Paragraph 4 saved in the window.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    expect(await changeRequestMarkdown(t.api, spaceId, b.outbox.session(spaceId)!.changeRequestId!, install)).toBe(all)
  })

  it('a save begun before the rewrite and written after it (into the replaced file) is put back in place and merged by the next push', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.pull()
    const later = paragraphs({ 7: B7, 4: 'Paragraph 4 saved after the rewrite.' })
    let wrote = false
    // The writer opens the file right before the rename and writes once the rename is done: its bytes
    // reach the replaced file, which no name holds any more.
    const pusher = pusherWith(b, {
      inWindow: () => {
        const fd = fs.openSync(b.file(PAGE), 'r+')
        setImmediate(() => {
          fs.ftruncateSync(fd, 0)
          fs.writeSync(fd, later, 0)
          fs.closeSync(fd)
          wrote = true
        })
      },
    })
    await pusher.push()
    expect(wrote).toBe(true)
    expect(b.read(PAGE)).toBe(later)
    expect(copiesIn(b)).toEqual([])

    await b.push()
    const all = paragraphs({ 1: A1, 4: 'Paragraph 4 saved after the rewrite.', 7: B7 })
    expect(b.read(PAGE)).toBe(all)
    expect(await changeRequestMarkdown(t.api, spaceId, b.outbox.session(spaceId)!.changeRequestId!, install)).toBe(all)
  })

  it('a crash after the plan is written and before the rewrite: the next push rewrites, sending nothing twice', async () => {
    const { a, b, install, spaceId } = await twoWriters()
    await aMergesParagraphOne(a)
    b.write(PAGE, paragraphs({ 7: B7 }))
    await b.pull()
    const crashing = pusherWith(b, {
      before: () => {
        throw new Error('killed before the rewrite')
      },
    })
    await expect(crashing.push()).rejects.toThrow('killed before the rewrite')
    expect(b.read(PAGE)).toBe(paragraphs({ 7: B7 }))

    const again = await b.push()
    expect(again.planned).toBe(0)
    expect(again.conflicts).toEqual([])
    expect(b.read(PAGE)).toBe(paragraphs({ 1: A1, 7: B7 }))
    const crId = b.outbox.session(spaceId)!.changeRequestId!
    expect(await changeRequestMarkdown(t.api, spaceId, crId, install)).toBe(paragraphs({ 1: A1, 7: B7 }))
    expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    expect(await mainMarkdown(t.api, spaceId, install)).toBe(paragraphs({ 1: A1, 7: B7 }))
  })
})

import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { serviceForFile } from './support/hooks'
import { aMergesParagraphOne, changeRequestMarkdown, mainMarkdown, paragraphs, twoWritersPerTest } from './support/two-writers'

/**
 * A merged edit is never undone by another writer's conflict (issue 9, finding 5): A changes paragraph 1
 * of a page and A's change request is merged; B, synced before that, changes paragraph 1 too. B gets a
 * conflicted copy, and B's change request keeps main's version of the page (with A's paragraph), so
 * merging it cannot remove A's edit. B's own words stay in the conflicted copy until B saves the file.
 * (Edits of different paragraphs merge instead: merge-with-main.test.ts.)
 */

const t = serviceForFile()

const { twoWriters } = twoWritersPerTest(t)

describe("another writer's conflict never undoes a merged edit", () => {
  it('B, synced before A merged, edits paragraph 1 too: B gets a conflicted copy and A keeps paragraph 1 in main', async () => {
    const { a, b, seeded, install } = await twoWriters()
    await aMergesParagraphOne(a)

    b.write('guide/install.md', paragraphs({ 1: 'Paragraph 1 as B rewrote it.', 7: 'Paragraph 7 as B rewrote it.' }))
    // B's edit of another page goes in the same change request.
    b.write('faq.md', '# FAQ\n\nB also answered a question.\n')
    await b.pull() // the remote change waits: the file is edited here
    const pushed = await b.push()
    expect(pushed.conflicts).toHaveLength(1)
    const copy = pushed.conflicts[0]
    expect(b.read(copy)).toContain('Paragraph 1 as B rewrote it.')
    expect(b.read(copy)).toContain('Paragraph 7 as B rewrote it.')
    expect(b.read('guide/install.md')).toContain('Paragraph 1 as A rewrote it.')
    expect(b.read('guide/install.md')).not.toContain('Paragraph 1 as B rewrote it.')

    const crId = b.outbox.session(seeded.spaceId)!.changeRequestId!
    expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    const merged = await mainMarkdown(t.api, seeded.spaceId, install)
    expect(merged).toContain('Paragraph 1 as A rewrote it.')
    expect(merged).not.toContain('Paragraph 1 as B rewrote it.')
    expect(merged).toContain('Paragraph 7 as first written.')

    // B resolves by taking both into the file and removing the copy: both edits reach main.
    b.write('guide/install.md', paragraphs({ 1: 'Paragraph 1 as A rewrote it.', 7: 'Paragraph 7 as B rewrote it.' }))
    fs.rmSync(b.file(copy))
    await b.pull()
    const resolved = await b.push()
    expect(resolved.conflicts).toEqual([])
    const next = b.outbox.session(seeded.spaceId)!.changeRequestId!
    expect(await b.pusher.merge(next)).toMatchObject({ result: 'merge' })
    const final = await mainMarkdown(t.api, seeded.spaceId, install)
    expect(final).toContain('Paragraph 1 as A rewrote it.')
    expect(final).toContain('Paragraph 7 as B rewrote it.')
  })

  it("B's change request already carried an earlier edit of the page: it is reverted to main's version, B's words kept in the copy", async () => {
    const { a, b, seeded, install } = await twoWriters()
    b.write('guide/install.md', paragraphs({ 1: 'Paragraph 1 as B first rewrote it.' }))
    await b.push()
    const crId = b.outbox.session(seeded.spaceId)!.changeRequestId!

    await aMergesParagraphOne(a)
    b.write('guide/install.md', paragraphs({ 1: 'Paragraph 1 as B first rewrote it.', 7: 'Paragraph 7 as B rewrote it.' }))
    await b.pull()
    const pushed = await b.push()
    expect(pushed.conflicts).toHaveLength(1)
    expect(b.read(pushed.conflicts[0])).toContain('Paragraph 1 as B first rewrote it.')
    expect(b.read(pushed.conflicts[0])).toContain('Paragraph 7 as B rewrote it.')

    expect(await b.pusher.merge(crId)).toMatchObject({ result: 'merge' })
    const merged = await mainMarkdown(t.api, seeded.spaceId, install)
    expect(merged).toContain('Paragraph 1 as A rewrote it.')
    expect(merged).not.toContain('Paragraph 1 as B first rewrote it.')
    // Nothing more is sent for the page until B saves it.
    await b.pull()
    expect((await b.push()).planned).toBe(0)
  })

  it('B keeps their version after the conflict (the copy back into the file): the same text goes to the change request again, not dropped as already sent', async () => {
    const { a, b, seeded, install } = await twoWriters()
    const mine = paragraphs({ 1: 'Paragraph 1 as B first rewrote it.' })
    b.write('guide/install.md', mine)
    await b.push()
    const crId = b.outbox.session(seeded.spaceId)!.changeRequestId!
    await aMergesParagraphOne(a)
    await b.pull()
    const pushed = await b.push()
    expect(pushed.conflicts).toHaveLength(1)
    const copy = pushed.conflicts[0]
    expect(b.read(copy)).toBe(mine)

    // "Keep mine": the copy replaces the file.
    b.write('guide/install.md', b.read(copy))
    fs.rmSync(b.file(copy))
    const kept = await b.push()
    expect(kept.planned).toBeGreaterThan(0)
    const carried = await changeRequestMarkdown(t.api, seeded.spaceId, crId, install)
    expect(carried).toContain('Paragraph 1 as B first rewrote it.')
  })
})

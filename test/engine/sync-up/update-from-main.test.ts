import fs from 'node:fs'
import { describe, expect, it } from 'vitest'
import { Workstation } from './support/workspace'
import { serviceForFile } from './support/hooks'
import { changeRequestMarkdown, INSTALL_PAGE, mainMarkdown, paragraphs, twoWritersPerTest } from './support/two-writers'

/**
 * "Update from main" never drops main's side (issue 25, item 3): B's change request is merged, A's is
 * refused for conflicts, a reviewer updates A's from main. The service refuses the update (409 naming
 * the page) instead of keeping A's version of the block both changed; A's Quire turns it into a
 * conflicted copy (main's version in the change request and the file); then the update and the merge go
 * through and B's merged text is still in main.
 */

const t = serviceForFile()
const { twoWriters, keep } = twoWritersPerTest(t)

const A3 = 'Paragraph 3 as A rewrote it.'
const B3 = 'Paragraph 3 as B rewrote it.'
const B5 = 'Paragraph 5 as B rewrote it.'
const A6 = 'Paragraph 6 as A rewrote it.'

describe('update from main after a conflicting merge', () => {
  it("B merged, A conflicting, update from main, merge A: B's text stays in main and A's version is in A's conflicted copy", async () => {
    const { a, b, spaceId, install } = await twoWriters()
    const mine = paragraphs({ 3: A3, 6: A6 })
    a.write(INSTALL_PAGE, mine)
    await a.push()
    const aCr = a.outbox.session(spaceId)!.changeRequestId!
    b.write(INSTALL_PAGE, paragraphs({ 3: B3, 5: B5 }))
    await b.push()
    expect(await b.merge(b.outbox.session(spaceId)!.changeRequestId!)).toBe('merge')

    // The reviewer: merging A's is refused for conflicts; "update from main" is refused too, naming the page.
    const params = { spaceId, changeRequestId: aCr }
    expect((await t.api.call('mergeChangeRequest', { params })).body.result).toBe('conflicts')
    const update = await t.api.call('updateChangeRequest', { params })
    expect(update.status).toBe(409)
    expect(update.body.error.message).toContain('"Install"')
    expect(await changeRequestMarkdown(t.api, spaceId, aCr, install)).toContain(A3)

    // A's Quire: the page both changed goes to a conflicted copy; the change request keeps main's version.
    const pushed = await a.push()
    expect(pushed.conflicts).toHaveLength(1)
    expect(a.read(pushed.conflicts[0])).toBe(mine)
    expect(await changeRequestMarkdown(t.api, spaceId, aCr, install)).not.toContain(A3)

    expect((await t.api.call('updateChangeRequest', { params })).body.result).toBe('update')
    expect((await t.api.call('mergeChangeRequest', { params })).body.result).toBe('merge')
    const main = await mainMarkdown(t.api, spaceId, install)
    expect(main).toContain(B3)
    expect(main).toContain(B5)
    expect(main).not.toContain(A3)
  })

  it("after the conflict flow and the merge, the writer's next edit of that page is sent (the reverted page's journal is not emptied)", { timeout: 60_000 }, async () => {
    const { a, b, spaceId, install } = await twoWriters()
    a.write(INSTALL_PAGE, paragraphs({ 3: A3 }))
    await a.push()
    const aCr = a.outbox.session(spaceId)!.changeRequestId!
    b.write(INSTALL_PAGE, paragraphs({ 3: B3 }))
    await b.push()
    expect(await b.merge(b.outbox.session(spaceId)!.changeRequestId!)).toBe('merge')
    // quire cr update: refused, the push keeps A's version in a conflicted copy, updated again.
    expect(await a.updateFromMain(aCr)).toMatch(/^refused, then conflicts \(1 conflicted copies\)/)
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: aCr } })).body.result).toBe('merge')
    // A edits the page again before A's Quire has seen the merge: the push settles the merged change request, then plans.
    const later = `${a.read(INSTALL_PAGE).trimEnd()}\n\nWritten after the merge.\n`
    a.write(INSTALL_PAGE, later)
    await a.push()
    await a.pull()
    await a.push()
    const next = a.outbox.session(spaceId)?.changeRequestId
    expect(next).toBeDefined()
    expect(next).not.toBe(aCr)
    expect(await changeRequestMarkdown(t.api, spaceId, next!, install)).toContain('Written after the merge.')
  })

  it('two conflicts of one page within the same second: the second version of the writer gets a copy of its own, none is lost', { timeout: 60_000 }, async () => {
    const { a, b, seeded, spaceId } = await twoWriters()
    const at = new Date(2026, 11, 1, 22, 15, 0)
    const writer = keep(new Workstation(t, seeded, a.dir, { now: () => at }))
    const round = async (mine: string, theirs: string) => {
      writer.write(INSTALL_PAGE, paragraphs({ 3: mine }))
      await b.pull()
      b.write(INSTALL_PAGE, paragraphs({ 3: theirs }))
      await b.push()
      expect(await b.merge(b.outbox.session(spaceId)!.changeRequestId!)).toBe('merge')
      return (await writer.push()).conflicts
    }
    const first = await round(A3, B3)
    const second = await round('Paragraph 3 as A rewrote it again.', 'Paragraph 3 as B rewrote it again.')
    expect(first).toEqual(['guide/install (conflicted copy 2026-12-01 221500).md'])
    expect(second).toContain('guide/install (conflicted copy 2026-12-01 221500 2).md')
    const copies = fs.readdirSync(writer.file('guide')).filter((f) => f.includes('conflicted copy')).map((f) => fs.readFileSync(writer.file(`guide/${f}`), 'utf8'))
    expect(copies.length, JSON.stringify({ copies, first, second })).toBe(2)
    expect(copies.some((c) => c.includes(A3))).toBe(true)
    expect(copies.some((c) => c.includes('Paragraph 3 as A rewrote it again.'))).toBe(true)
  })
})

import { describe, expect, it } from 'vitest'
import { serviceForFile } from './support/hooks'
import { LossyNetwork } from './support/lossy-network'
import { changeRequestMarkdown, INSTALL_PAGE, paragraphs, twoWritersPerTest } from './support/two-writers'
import { Workstation } from './support/workspace'

/**
 * Reconcile by merging, never by resending blindly (issue 25, item 1): the writer's batch is sent and its
 * answer lost (applied or not); before the writer's Quire is back, someone else changes the same page
 * inside the writer's change request. Sending the stored batch again as it was put the writer's whole
 * page over theirs (their paragraph gone, 9 of 9). Now the batch is rebuilt as the block merge of what
 * it was sent against, the writer's text and theirs; where both changed the same block, theirs stays and
 * the writer's version goes to a conflicted copy, as in a push.
 */

const t = serviceForFile()
const { twoWriters, keep } = twoWritersPerTest(t)

const MINE = 'Paragraph 2 as the writer rewrote it.'
const APPENDED = 'A paragraph a collaborator appended inside the change request.'

async function lostBatch(mode: 'before' | 'after') {
  const { a, seeded, spaceId, install } = await twoWriters()
  const network = new LossyNetwork()
  const writer = keep(new Workstation(t, seeded, a.dir, { gateway: { fetch: network.fetch } }))
  // The change request exists and carries the page (an earlier edit), so the lost batch is an update of it.
  writer.write(INSTALL_PAGE, paragraphs({ 7: 'Paragraph 7, first edit.' }))
  expect((await writer.push()).failures).toEqual([])
  const crId = writer.outbox.session(spaceId)!.changeRequestId!
  network.next = mode
  const edited = paragraphs({ 2: MINE, 7: 'Paragraph 7, first edit.' })
  writer.write(INSTALL_PAGE, edited)
  const lost = await writer.push()
  expect(lost.stopped).toBeDefined()
  expect(writer.outbox.unfinished(spaceId).map((op) => op.state)).toEqual(['sending'])
  return { writer, network, spaceId, install, crId, edited }
}

/** Someone else changes the page inside the writer's change request, from what it holds now. */
async function collaborator(spaceId: string, crId: string, page: string, change: (markdown: string) => string) {
  const now = await changeRequestMarkdown(t.api, spaceId, crId, page)
  const written = await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: crId }, body: { changes: [{ operation: 'update_page', page, document: { markdown: change(now) } }] } })
  expect(written.status).toBe(200)
}

describe('a lost answer, then a collaborator edits the same page inside the change request', () => {
  for (const mode of ['before', 'after'] as const) {
    it(`our batch ${mode === 'after' ? 'applied' : 'not applied'}: the collaborator's paragraph and the writer's edit are both in the change request`, async () => {
      const { writer, network, spaceId, install, crId } = await lostBatch(mode)
      await collaborator(spaceId, crId, install, (markdown) => `${markdown.trimEnd()}\n\n${APPENDED}\n`)
      const posts = network.contentPosts
      const back = await writer.push()
      expect(back.failures).toEqual([])
      expect(back.conflicts).toEqual([])
      expect(writer.outbox.unfinished(spaceId)).toEqual([])
      const carried = await changeRequestMarkdown(t.api, spaceId, crId, install)
      expect(carried).toContain(APPENDED)
      expect(carried).toContain(MINE)
      expect(carried).toContain('Paragraph 7, first edit.')
      // Arrived, then edited after: nothing was sent again.
      if (mode === 'after') expect(network.contentPosts).toBe(posts)
      // A later save of the writer's is merged with theirs too.
      writer.write(INSTALL_PAGE, paragraphs({ 2: MINE, 4: 'Paragraph 4, a later save.', 7: 'Paragraph 7, first edit.' }))
      expect((await writer.push()).failures).toEqual([])
      const later = await changeRequestMarkdown(t.api, spaceId, crId, install)
      expect(later).toContain(APPENDED)
      expect(later).toContain('Paragraph 4, a later save.')
    })

    it(`our batch ${mode === 'after' ? 'applied' : 'not applied'}, the collaborator rewrote the writer's paragraph: theirs stays, the writer's version goes to a conflicted copy`, async () => {
      const { writer, spaceId, install, crId, edited } = await lostBatch(mode)
      const THEIRS = 'Paragraph 2 as the collaborator rewrote it.'
      await collaborator(spaceId, crId, install, (markdown) => markdown.replace(/Paragraph 2 [^\n]*/, THEIRS))
      const back = await writer.push()
      expect(back.failures).toEqual([])
      const carried = await changeRequestMarkdown(t.api, spaceId, crId, install)
      expect(carried).toContain(THEIRS)
      expect(carried).toContain('Paragraph 7, first edit.')
      if (mode === 'after') {
        // Arrived before their edit: their rewrite of the writer's paragraph stands, nothing to keep apart.
        expect(back.conflicts).toEqual([])
        return
      }
      expect(back.conflicts).toHaveLength(1)
      expect(writer.read(back.conflicts[0])).toBe(edited)
      expect(writer.read(INSTALL_PAGE)).toBe(carried)
    })
  }

  it("a page the change request created, the same paragraph rewritten by the collaborator: theirs stays, the writer's version goes to a conflicted copy", async () => {
    const { a, seeded, spaceId } = await twoWriters()
    const network = new LossyNetwork()
    const writer = keep(new Workstation(t, seeded, a.dir, { gateway: { fetch: network.fetch } }))
    writer.write('notes.md', '# Notes\n\nLine one.\n\nLine two.\n')
    expect((await writer.push()).failures).toEqual([])
    const crId = writer.outbox.session(spaceId)!.changeRequestId!
    const notes = writer.outbox.entries(spaceId).find((e) => e.path === 'notes.md')!.pageId!
    network.next = 'before'
    const mine = "# Notes\n\nLine one, the writer's.\n\nLine two.\n"
    writer.write('notes.md', mine)
    await writer.push()
    expect(writer.outbox.unfinished(spaceId).map((op) => op.state)).toEqual(['sending'])
    await collaborator(spaceId, crId, notes, (markdown) => markdown.replace('Line one.', "Line one, the collaborator's."))
    const back = await writer.push()
    expect(back.failures).toEqual([])
    expect(await changeRequestMarkdown(t.api, spaceId, crId, notes)).toContain("Line one, the collaborator's.")
    expect(back.conflicts).toHaveLength(1)
    expect(writer.read(back.conflicts[0])).toBe(mine)
  })

  it("the answer lost, the resend's connection refused, then a collaborator's paragraph: the batch is reconciled again and merged, not sent over theirs", async () => {
    const { a, seeded, spaceId, install } = await twoWriters()
    // Content writes meet a reset before any answer (never arrived; retried at once), then refused connections.
    const faults = ['ECONNRESET']
    let faulty = false
    const network: typeof fetch = async (input, init) => {
      const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
      const code = faulty && (init?.method ?? 'GET').toUpperCase() === 'POST' && /\/change-requests\/[^/]+\/content/.test(url) ? (faults.shift() ?? 'ECONNREFUSED') : undefined
      if (code) throw new TypeError('fetch failed', { cause: Object.assign(new Error(code), { code }) })
      return fetch(input, init)
    }
    const writer = keep(new Workstation(t, seeded, a.dir, { gateway: { fetch: network } }))
    writer.write(INSTALL_PAGE, paragraphs({ 7: 'Paragraph 7, first edit.' }))
    expect((await writer.push()).failures).toEqual([])
    const crId = writer.outbox.session(spaceId)!.changeRequestId!
    faulty = true
    writer.write(INSTALL_PAGE, paragraphs({ 2: MINE, 7: 'Paragraph 7, first edit.' }))
    expect((await writer.push()).stopped).toBeDefined()
    faulty = false
    await collaborator(spaceId, crId, install, (markdown) => `${markdown.trimEnd()}\n\n${APPENDED}\n`)
    expect((await writer.push()).failures).toEqual([])
    expect(writer.outbox.unfinished(spaceId)).toEqual([])
    const carried = await changeRequestMarkdown(t.api, spaceId, crId, install)
    expect(carried).toContain(APPENDED)
    expect(carried).toContain(MINE)
  })
})

import fs from 'node:fs'
import type { Comment } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { changeRequestRevision, mainRevision, pagesOf, seedSpace, tempDir, Workstation, type SeededSpace } from './support/workspace'

/**
 * Someone else edits inside the writer's open change request (a reviewer fixing a paragraph), then the
 * writer edits the same page: the writer's next batch carries both, merged block by block, and the
 * file becomes the merge; where both changed the same block, theirs stays and the writer's version is
 * kept in a conflicted copy. Before, the writer's whole-page update overwrote their edit (P1, "bug A").
 */

const t = serviceForFile()
let stations: Workstation[] = []
afterEach(() => {
  for (const ws of stations) removeWorkstation(ws)
  stations = []
})

const FAQ = '# FAQ\n\nQuestions.\n\nFirst answer.\n\nSecond answer.\n'

async function setup(): Promise<{ seeded: SeededSpace; writer: Workstation; faq: string; crId: string }> {
  const seeded = await seedSpace(t)
  const writer = new Workstation(t, seeded, tempDir('quire-inside-'))
  stations = [writer]
  const faq = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, p]) => p.path === 'faq.md')![0]
  // Main's faq gets a few paragraphs to edit apart.
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Paragraphs' } })).body as { id: string }
  await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id }, body: { changes: [{ operation: 'update_page', page: faq, document: { markdown: FAQ } }] } })
  await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })
  await writer.pull()
  writer.write('guide/install.md', '# Install\n\nAn unrelated edit opens the change request.\n')
  await writer.push()
  return { seeded, writer, faq, crId: writer.outbox.session(seeded.spaceId)!.changeRequestId! }
}

async function theirEdit(seeded: SeededSpace, crId: string, pageId: string, markdown: string) {
  const written = await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: crId }, body: { changes: [{ operation: 'update_page', page: pageId, document: { markdown } }] } })
  expect(written.status).toBe(200)
}

const inCr = async (seeded: SeededSpace, crId: string, pageId: string) =>
  (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: crId, pageId }, query: { format: 'markdown' } })).body.markdown as string

describe("someone else's edit inside the writer's change request", () => {
  it('a page the change request did not carry: their paragraph and the writer\'s are both carried, the file is the merge', async () => {
    const { seeded, writer, faq, crId } = await setup()
    await theirEdit(seeded, crId, faq, FAQ.replace('First answer.', 'First answer, corrected by a reviewer.'))
    writer.write('faq.md', FAQ.replace('Second answer.', 'Second answer, and more from the writer.'))
    const pushed = await writer.push()
    expect(pushed.failures).toEqual([])
    expect(pushed.conflicts).toEqual([])
    const carried = await inCr(seeded, crId, faq)
    expect(carried).toContain('First answer, corrected by a reviewer.')
    expect(carried).toContain('Second answer, and more from the writer.')
    expect(writer.read('faq.md')).toBe(carried)
  })

  it('a page the change request carried: merged again with their edit, no copy', async () => {
    const { seeded, writer, faq, crId } = await setup()
    writer.write('faq.md', `${FAQ}\nThird answer, the writer's.\n`)
    await writer.push()
    await theirEdit(seeded, crId, faq, `${FAQ.replace('First answer.', 'First answer, corrected by a reviewer.')}\nThird answer, the writer's.\n`)
    writer.write('faq.md', `${FAQ.replace('Second answer.', 'Second answer, edited again.')}\nThird answer, the writer's.\n`)
    const pushed = await writer.push()
    expect(pushed.conflicts).toEqual([])
    const carried = await inCr(seeded, crId, faq)
    expect(carried).toContain('First answer, corrected by a reviewer.')
    expect(carried).toContain('Second answer, edited again.')
    expect(carried).toContain("Third answer, the writer's.")
  })

  it('a carried page the writer then moved and edited (a file manager\'s move): merged with their edit, and moved', async () => {
    // Seed 26114: the move took the page past the merge with the change request, and its batch was the file
    // as it stood, over the collaborator's paragraph (P1).
    const { seeded, writer, faq, crId } = await setup()
    writer.write('faq.md', `${FAQ}\nThird answer, the writer's.\n`)
    await writer.push()
    await theirEdit(seeded, crId, faq, `${FAQ}\nThird answer, the writer's.\n\nA collaborator's paragraph.\n`)
    fs.rmSync(writer.file('faq.md'))
    writer.write('moved.md', `${FAQ.replace('Second answer.', 'Second answer, edited as it moved.')}\nThird answer, the writer's.\n`)
    const pushed = await writer.push()
    expect(pushed.failures).toEqual([])
    expect(pushed.conflicts).toEqual([])
    const carried = await inCr(seeded, crId, faq)
    expect(carried).toContain("A collaborator's paragraph.")
    expect(carried).toContain('Second answer, edited as it moved.')
    expect(writer.read('moved.md')).toBe(carried)
    expect(pagesOf(await changeRequestRevision(t.api, seeded.spaceId, crId)).get(faq)?.path).toBe('moved.md')
  })

  it('a carried page the writer then only moved: the move is sent, their edit stays', async () => {
    const { seeded, writer, faq, crId } = await setup()
    const carried = `${FAQ}\nThird answer, the writer's.\n`
    writer.write('faq.md', carried)
    await writer.push()
    await theirEdit(seeded, crId, faq, `${carried}\nA collaborator's paragraph.\n`)
    fs.renameSync(writer.file('faq.md'), writer.file('moved.md'))
    expect((await writer.push()).failures).toEqual([])
    expect(await inCr(seeded, crId, faq)).toContain("A collaborator's paragraph.")
    expect(pagesOf(await changeRequestRevision(t.api, seeded.spaceId, crId)).get(faq)?.path).toBe('moved.md')
  })

  it('the same paragraph: theirs stays in the change request and the file, the writer\'s version is kept in a conflicted copy', async () => {
    const { seeded, writer, faq, crId } = await setup()
    await theirEdit(seeded, crId, faq, FAQ.replace('First answer.', "First answer, the reviewer's way."))
    const mine = FAQ.replace('First answer.', "First answer, the writer's way.")
    writer.write('faq.md', mine)
    const pushed = await writer.push()
    const carried = await inCr(seeded, crId, faq)
    expect(carried).toContain("First answer, the reviewer's way.")
    expect(writer.read('faq.md')).toBe(carried)
    expect(pushed.conflicts).toHaveLength(1)
    expect(writer.read(pushed.conflicts[0])).toBe(mine)
    // Nothing of the writer's is posted as a comment or lost: the copy holds it.
    const comments = (await t.api.call('listCommentsInChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.items as Comment[]
    expect(comments).toEqual([])
  })
  it('a save caught half-written (the file emptied, then written whole): the change request ends with the file as saved, the title once', async () => {
    // Editors that save in place truncate the file first; a pass may read it empty. The service renders the
    // emptied page as `# FAQ\n` (the title stays), which is not what was sent: it looks like someone's edit.
    // Merged from an empty base, the two versions were once set side by side: `# FAQ\n# FAQ\n\n…`.
    const { seeded, writer, faq, crId } = await setup()
    writer.write('faq.md', '')
    expect((await writer.push()).failures).toEqual([])
    expect(await inCr(seeded, crId, faq)).toBe('# FAQ\n')
    const saved = FAQ.replace('Second answer.', 'Second answer, saved whole.')
    writer.write('faq.md', saved)
    const pushed = await writer.push()
    expect(pushed.failures).toEqual([])
    expect(pushed.conflicts).toEqual([])
    expect(await inCr(seeded, crId, faq)).toBe(saved)
    expect(writer.read('faq.md')).toBe(saved)
  })
})

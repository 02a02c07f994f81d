import fs from 'node:fs'
import type { Comment } from '@gitbook/api'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, SEED_PAGES, Workstation } from './support/workspace'

/**
 * Issue 24 ("A page stays itself"), items 1 and 3, through the engine's push with the real service: a
 * page whose file the writer moved (a file manager's delete + create, edited a little), renamed to a
 * hidden or editor's name, or deleted and put back keeps its page, its id and its comment threads.
 */

const t = serviceForFile()

let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t, 'quire-identity-')
  await ws.pull()
})
afterEach(() => removeWorkstation(ws))

const spaceId = () => ws.seeded.spaceId
const idOfPath = async (p: string) => [...pagesOf(await mainRevision(t.api, spaceId()))].find(([, page]) => page.path === p)![0]

/** The content operations of the writer's change request, as the outbox holds them (every batch of this generation). */
const operations = () =>
  ws.outbox
    .ops(spaceId(), 1000)
    .flatMap((op) => (op.kind === 'content' ? (op.payload.changes as Array<{ operation: string }>).map((c) => c.operation) : []))

async function changeRequestDiff() {
  const [cr] = await openChangeRequests(t.api, spaceId())
  return changedPages(await mainRevision(t.api, spaceId()), await changeRequestRevision(t.api, spaceId(), cr.id))
}

async function mergeOpen() {
  const session = ws.outbox.session(spaceId())!
  expect(await ws.pusher.merge(session.changeRequestId!)).toMatchObject({ result: 'merge' })
}

async function commentOn(pageId: string, text: string): Promise<string> {
  return ((await t.api.call('postCommentInSpace', { params: { spaceId: spaceId() }, body: { page: pageId, body: { markdown: text } } })).body as Comment).id
}

/** The comment threads of a page, as the service lists them now (their ids). */
async function threadsOf(pageId: string): Promise<string[]> {
  return ((await t.api.call('listCommentsInSpace', { params: { spaceId: spaceId() }, query: { targetPage: pageId } })).body.items as Comment[]).map((c) => c.id)
}

describe('identity by evidence (item 1)', () => {
  it('a file manager move (delete, then a slightly edited file elsewhere) is one update_page of the same page: moved and edited', async () => {
    const faq = await idOfPath('faq.md')
    fs.rmSync(ws.file('faq.md'))
    ws.write('guide/faq.md', '# FAQ\n\nQuestions.\n\nAsk away.\n')
    const pushed = await ws.push()
    expect(pushed.failures).toEqual([])
    expect(operations()).toEqual(['update_page'])
    expect(await changeRequestDiff()).toEqual({ changed: [faq], added: [], removed: [] })
    const [cr] = await openChangeRequests(t.api, spaceId())
    const moved = pagesOf(await changeRequestRevision(t.api, spaceId(), cr.id)).get(faq)!
    expect(moved).toMatchObject({ path: 'guide/faq.md', parent: await idOfPath('guide/README.md') })
  })

  it('pages renamed to editor and hidden names (faq.md~, .getting-started.md.swp, guide/README.md.bak, guide/ -> .guide/) are held: an unrelated push deletes nothing', async () => {
    const home = await idOfPath('README.md')
    fs.renameSync(ws.file('faq.md'), ws.file('faq.md~'))
    fs.renameSync(ws.file('getting-started.md'), ws.file('.getting-started.md.swp'))
    fs.renameSync(ws.file('guide/README.md'), ws.file('guide/README.md.bak'))
    ws.write('README.md', '# Home\n\nWelcome to the new guide.\n')
    const pushed = await ws.push()
    expect(pushed.failures).toEqual([])
    expect(operations()).toEqual(['update_page'])
    expect(await changeRequestDiff()).toEqual({ changed: [home], added: [], removed: [] })
    expect(pushed.reports.filter((r) => r.kind === 'not-read').map((r) => r.message).sort()).toEqual([
      ".getting-started.md.swp has the name of an editor's or tool's file, which Quire does not read: its page stays as in the space, not deleted",
      "faq.md~ has the name of an editor's or tool's file, which Quire does not read: its page stays as in the space, not deleted",
      "guide/README.md.bak has the name of an editor's or tool's file, which Quire does not read: its page stays as in the space, not deleted",
    ])

    // The folder renamed to a hidden name: its three pages stay too.
    fs.renameSync(ws.file('guide'), ws.file('.guide'))
    ws.write('README.md', '# Home\n\nWelcome to the newer guide.\n')
    const again = await ws.push()
    expect(again.failures).toEqual([])
    expect(operations()).not.toContain('delete_page')
    expect(await changeRequestDiff()).toEqual({ changed: [home], added: [], removed: [] })
    expect(again.reports.map((r) => r.message)).toContain('.guide/ is hidden, which Quire does not read: its 3 pages stay as in the space, not deleted')
  })

  it('two files equally similar to a missing page are no evidence: the page is deleted and both are inserted, as git refuses such a tie', async () => {
    const faq = await idOfPath('faq.md')
    fs.rmSync(ws.file('faq.md'))
    ws.write('faq-a.md', '# FAQ\n\nQuestions.\n\nFirst.\n')
    ws.write('faq-b.md', '# FAQ\n\nQuestions.\n\nOther.\n')
    await ws.push()
    // Neither file is the page more than the other: giving it to one would be a guess. Both texts stay
    // (two new pages), which a wrong pick could not promise for the page's history.
    expect(operations().sort()).toEqual(['delete_page', 'insert_page', 'insert_page'])
    const diff = await changeRequestDiff()
    expect(diff.removed).toEqual([faq])
    expect(diff.added).toHaveLength(2)
  })
})

describe('a deletion already sent is taken back when the file returns (item 3)', () => {
  it('delete, push, restart, put the file back edited: revert_page, then the edit; after the merge the page keeps its id and its comment thread, and no faq-2.md', async () => {
    const faq = await idOfPath('faq.md')
    const thread = await commentOn(faq, 'Is this still current?')
    fs.rmSync(ws.file('faq.md'))
    await ws.push()
    expect((await changeRequestDiff()).removed).toEqual([faq])

    // Quire restarts between: the deletion is known from the outbox's entries alone.
    ws.close()
    ws = new Workstation(t, ws.seeded, ws.dir)
    ws.write('faq.md', `${SEED_PAGES.faq}\nAnswered at last.\n`)
    const back = await ws.push()
    expect(back.failures).toEqual([])
    expect(operations().sort()).toEqual(['delete_page', 'revert_page', 'update_page'])
    expect(await changeRequestDiff()).toEqual({ changed: [faq], added: [], removed: [] })

    await mergeOpen()
    await ws.pull()
    const pages = pagesOf(await mainRevision(t.api, spaceId()))
    expect(pages.get(faq)?.path).toBe('faq.md')
    expect([...pages.values()].map((p) => p.path)).not.toContain('faq-2.md')
    expect(fs.existsSync(ws.file('faq-2.md'))).toBe(false)
    expect(ws.read('faq.md')).toContain('Answered at last.')
    // The page answers under its id, with its comment thread.
    expect((await t.api.call('getPageById', { params: { spaceId: spaceId(), pageId: faq }, query: { format: 'markdown' } })).status).toBe(200)
    expect(await threadsOf(faq)).toEqual([thread])
  })

  it('delete, push, put the file back edited, then the change request merged before the next push (seeds 26127, 26151): the page is restored with its id and its thread, not inserted', async () => {
    const faq = await idOfPath('faq.md')
    const thread = await commentOn(faq, 'Still current?')
    fs.rmSync(ws.file('faq.md'))
    await ws.push()
    ws.write('faq.md', `${SEED_PAGES.faq}\nAnswered after all.\n`)
    // Merged as it is (with the deletion) before Quire sends the restore.
    await mergeOpen()
    expect(pagesOf(await mainRevision(t.api, spaceId())).has(faq)).toBe(false)
    await ws.pull()
    expect(ws.read('faq.md')).toContain('Answered after all.')
    const back = await ws.push()
    expect(back.failures).toEqual([])
    expect(operations()).not.toContain('insert_page')
    await mergeOpen()
    await ws.pull()
    const pages = pagesOf(await mainRevision(t.api, spaceId()))
    expect(pages.get(faq)?.path).toBe('faq.md')
    expect([...pages.values()].filter((p) => p.path.startsWith('faq'))).toHaveLength(1)
    expect(ws.read('faq.md')).toContain('Answered after all.')
    expect(await threadsOf(faq)).toEqual([thread])
  })

  it('a whole folder deleted and copied back: every page keeps its id', async () => {
    const before = pagesOf(await mainRevision(t.api, spaceId()))
    const guideIds = [...before].filter(([, p]) => p.path.startsWith('guide/')).map(([id]) => id).sort()
    expect(guideIds).toHaveLength(3)
    const copy = `${ws.dir}/guide-copy`
    fs.cpSync(ws.file('guide'), copy, { recursive: true })
    fs.rmSync(ws.file('guide'), { recursive: true })
    await ws.push()
    expect((await changeRequestDiff()).removed.sort()).toEqual(guideIds)

    fs.cpSync(copy, ws.file('guide'), { recursive: true })
    const back = await ws.push()
    expect(back.failures).toEqual([])
    expect(operations()).not.toContain('insert_page')
    expect(await changeRequestDiff()).toEqual({ changed: [], added: [], removed: [] })
    await mergeOpen()
    await ws.pull()
    const after = pagesOf(await mainRevision(t.api, spaceId()))
    expect([...after].filter(([, p]) => p.path.startsWith('guide/')).map(([id]) => id).sort()).toEqual(guideIds)
    expect(fs.readdirSync(ws.file('guide')).sort()).toEqual(['README.md', 'configure.md', 'install.md'])
  })

  it('a deleted page whose content comes back under another name (a little edited) is restored and moved, not inserted', async () => {
    const faq = await idOfPath('faq.md')
    fs.rmSync(ws.file('faq.md'))
    await ws.push()
    ws.write('questions.md', '# FAQ\n\nQuestions.\n\nMore of them.\n')
    const back = await ws.push()
    expect(back.failures).toEqual([])
    expect(operations().sort()).toEqual(['delete_page', 'revert_page', 'update_page'])
    expect(await changeRequestDiff()).toEqual({ changed: [faq], added: [], removed: [] })
    const [cr] = await openChangeRequests(t.api, spaceId())
    expect(pagesOf(await changeRequestRevision(t.api, spaceId(), cr.id)).get(faq)?.path).toBe('questions.md')
  })
})

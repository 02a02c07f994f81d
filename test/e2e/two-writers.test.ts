import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changeRequestCarrying, changeRequestMarkdown, mainMarkdown, mergeAsReviewer, mirrorsMain, PAGE, pageText, twoWriters, until, type TwoWriters, type Writer } from './support/writers'

/**
 * Merge, don't copy (issue 15), end to end: two writers, each with a workspace, a cache and an account
 * of their own, each running `quire watch` as a real child process, edit one page of a space on the real
 * local service; a reviewer merges their change requests through the API. Every wait polls the service
 * or the files, with generous limits: the machine may be busy.
 */

const t = serviceForFile()
let running: TwoWriters | undefined

afterEach(async () => {
  const x = running
  running = undefined
  if (x) await Promise.all([x.a.remove(), x.b.remove()])
})

async function start(intervals?: { a?: number; b?: number }): Promise<TwoWriters> {
  running = await twoWriters(t, intervals)
  return running
}

/** Resolves once the writer's page file holds every text given. */
async function fileHolds(w: Writer, ...texts: string[]) {
  return until(
    () => (texts.every((text) => w.read()?.includes(text)) ? true : undefined),
    () => `writer ${w.name}'s ${PAGE} to hold ${texts.map((s) => `"${s}"`).join(', ')}; it holds:\n${w.read()}\n${w.lines.join('\n')}`,
  )
}

async function mainHolds(x: TwoWriters, ...texts: string[]) {
  let last = ''
  return until(
    async () => ((last = await mainMarkdown(t, x.seeded.spaceId, x.pageId)), texts.every((text) => last.includes(text)) ? true : undefined),
    () => `main to hold ${texts.join(', ')}; it holds:\n${last}`,
  )
}

const allCopies = (x: TwoWriters) => [...x.a.conflictedCopies().map((c) => `A: ${c}`), ...x.b.conflictedCopies().map((c) => `B: ${c}`)]

describe('two writers, each running quire watch, edit one page', () => {
  it('different paragraphs: once both change requests are merged, both edits are in the space and in both folders, and no conflicted copy exists', { timeout: 300_000 }, async () => {
    const x = await start()
    const A2 = 'Paragraph 2 as writer A rewrote it.'
    const B6 = 'Paragraph 6 as writer B rewrote it.'
    x.a.write(pageText({ 2: A2 }))
    x.b.write(pageText({ 6: B6 }))
    const crA = await changeRequestCarrying(t, x.a, x, A2)
    const crB = await changeRequestCarrying(t, x.b, x, B6)

    expect(await mergeAsReviewer(t, x.seeded.spaceId, crA.id)).toBe('merge')
    expect(await mergeAsReviewer(t, x.seeded.spaceId, crB.id)).toBe('merge')

    await mainHolds(x, A2, B6)
    await fileHolds(x.a, A2, B6)
    await fileHolds(x.b, A2, B6)
    await mirrorsMain(t, x.a, x.seeded.spaceId)
    await mirrorsMain(t, x.b, x.seeded.spaceId)
    const main = await mainMarkdown(t, x.seeded.spaceId, x.pageId)
    expect(main).toBe(pageText({ 2: A2, 6: B6 }))
    expect(x.a.read()).toBe(main)
    expect(x.b.read()).toBe(main)
    expect(allCopies(x)).toEqual([])
    expect([...x.a.lines, ...x.b.lines].filter((l) => /conflict/.test(l))).toEqual([])
  })

  it('different paragraphs, the second saved after the first was merged but before its watch synced down: the save is merged with main, no copy, nothing lost', { timeout: 300_000 }, async () => {
    // B's watch syncs down only at its start and around its own saves, so B saves over a stale page.
    const x = await start({ b: 3600 })
    const A1 = 'Paragraph 1 as writer A rewrote it.'
    const B7 = 'Paragraph 7 as writer B rewrote it.'
    x.a.write(pageText({ 1: A1 }))
    const crA = await changeRequestCarrying(t, x.a, x, A1)
    expect(await mergeAsReviewer(t, x.seeded.spaceId, crA.id)).toBe('merge')
    expect(x.b.read()).toBe(pageText())

    x.b.write(pageText({ 7: B7 }))
    const crB = await changeRequestCarrying(t, x.b, x, B7)
    // The change request never carries a page that drops what main gained since B's merge base.
    expect(await changeRequestMarkdown(t, x.seeded.spaceId, crB.id, x.pageId)).toBe(pageText({ 1: A1, 7: B7 }))
    await fileHolds(x.b, A1, B7)
    expect(await mergeAsReviewer(t, x.seeded.spaceId, crB.id)).toBe('merge')
    expect(await mainMarkdown(t, x.seeded.spaceId, x.pageId)).toBe(pageText({ 1: A1, 7: B7 }))
    await fileHolds(x.a, A1, B7)
    await mirrorsMain(t, x.a, x.seeded.spaceId)
    expect(x.a.read()).toBe(pageText({ 1: A1, 7: B7 }))
    expect(x.b.read()).toBe(pageText({ 1: A1, 7: B7 }))
    expect(allCopies(x)).toEqual([])
  })

  it('the same paragraph: exactly one conflicted copy, on the writer who came second, holding that paragraph; main keeps the first writer\'s paragraph', { timeout: 300_000 }, async () => {
    const x = await start()
    const A3 = 'Paragraph 3 as writer A rewrote it.'
    const B3 = 'Paragraph 3 as writer B rewrote it.'
    x.a.write(pageText({ 3: A3 }))
    const crA = await changeRequestCarrying(t, x.a, x, A3)
    x.b.write(pageText({ 3: B3 }))
    const crB = await changeRequestCarrying(t, x.b, x, B3)

    expect(await mergeAsReviewer(t, x.seeded.spaceId, crA.id)).toBe('merge')
    // B's watch meets main's paragraph 3 at its next sync down: B's version goes to a copy.
    const copy = await until(
      () => x.b.conflictedCopies()[0],
      () => `writer B's conflicted copy\n${x.b.lines.join('\n')}`,
    )
    await mirrorsMain(t, x.a, x.seeded.spaceId)
    await mirrorsMain(t, x.b, x.seeded.spaceId, 'conflict')

    expect(copy).toMatch(/^faq \(conflicted copy \d{4}-\d{2}-\d{2} \d{6}\)\.md$/)
    expect(x.b.lines.some((l) => l.includes(`conflict: ${copy} keeps your version`))).toBe(true)
    // The copy names the paragraph: it is B's page, differing from the file in paragraph 3 alone.
    expect(fs.readFileSync(path.join(x.b.folder, copy), 'utf8')).toBe(pageText({ 3: B3 }))
    expect(x.b.read()).toBe(pageText({ 3: A3 }))
    expect(x.a.read()).toBe(pageText({ 3: A3 }))
    expect(await mainMarkdown(t, x.seeded.spaceId, x.pageId)).toBe(pageText({ 3: A3 }))
    // B's change request now carries main's paragraph, so merging it cannot undo A's (P1: nothing lost,
    // B's text is in the copy).
    await until(
      async () => ((await changeRequestMarkdown(t, x.seeded.spaceId, crB.id, x.pageId)).includes(B3) ? undefined : true),
      () => `writer B's change request to give up B's paragraph 3`,
    )
    const merged = await mergeAsReviewer(t, x.seeded.spaceId, crB.id)
    expect(merged).toBe('merge')
    expect(await mainMarkdown(t, x.seeded.spaceId, x.pageId)).toBe(pageText({ 3: A3 }))
    expect(allCopies(x)).toEqual([`B: ${copy}`])
  })

  it('a change request edited in paragraph 1 and main in paragraph 5 merges cleanly after quire cr update', { timeout: 300_000 }, async () => {
    const x = await start()
    const A1 = 'Paragraph 1 as writer A rewrote it.'
    const B5 = 'Paragraph 5 as writer B rewrote it.'
    x.a.write(pageText({ 1: A1 }))
    const crA = await changeRequestCarrying(t, x.a, x, A1)
    x.b.write(pageText({ 5: B5 }))
    const crB = await changeRequestCarrying(t, x.b, x, B5)
    expect(await mergeAsReviewer(t, x.seeded.spaceId, crB.id)).toBe('merge')
    await mainHolds(x, B5)
    const changeRequest = async (id: string) => (await t.api.call('getChangeRequestById', { params: { spaceId: x.seeded.spaceId, changeRequestId: id } })).body as ChangeRequest
    expect((await changeRequest(crA.id)).outdated).toBe(true)

    // "Update from main" as the CLI names it.
    const update = await x.a.cli(['cr', 'update', String(crA.number)])
    expect(update.output).toContain(`updated #${crA.number} from the space's content`)
    expect(update.code).toBe(0)
    const updated = await changeRequest(crA.id)
    expect(updated.outdated).toBe(false)
    expect(await changeRequestMarkdown(t, x.seeded.spaceId, crA.id, x.pageId)).toBe(pageText({ 1: A1, 5: B5 }))

    expect(await mergeAsReviewer(t, x.seeded.spaceId, crA.id)).toBe('merge')
    expect(await mainMarkdown(t, x.seeded.spaceId, x.pageId)).toBe(pageText({ 1: A1, 5: B5 }))
    await mirrorsMain(t, x.a, x.seeded.spaceId)
    await mirrorsMain(t, x.b, x.seeded.spaceId)
    expect(x.a.read()).toBe(pageText({ 1: A1, 5: B5 }))
    expect(x.b.read()).toBe(pageText({ 1: A1, 5: B5 }))
    expect(allCopies(x)).toEqual([])
  })
})

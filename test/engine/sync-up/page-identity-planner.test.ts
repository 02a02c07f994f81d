import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import type { RemotePageRow } from '../../../src/main/engine/cache/cache-repository'
import { planPush } from '../../../src/main/engine/push/push-planner'
import type { LocalFile, PushedEntry, PushInput } from '../../../src/main/engine/push/push-types'
import { lineSimilarity as similarity, pairBySimilarity } from '../../../src/main/engine/workspace/similarity'
import type { JournalEntry } from '../../../src/main/engine/sync/plan-types'

/**
 * The pure side of issue 24 (items 1-3): the similarity matcher (git's rename detection as the model)
 * and the push planner's use of it, of hashes, inodes and skipped files, its quiet interval for
 * removals, and its taking back of a deletion the change request carries.
 */

const FAQ = '# FAQ\n\nHow do I install it?\nRun the installer.\n\nWhere are the settings?\nIn the settings file.\n'
const START = '# Getting started\n\nRead this first.\n'

const file = (text: string): LocalFile => ({ hash: gitBlobOid(text), size: Buffer.byteLength(text), text })

/** A synced space of two pages (faq.md, getting-started.md), with `local` as the folder now. */
function input(local: Record<string, string>, extra: Partial<PushInput> = {}): PushInput {
  const pages = [
    { id: 'faq', path: 'faq.md', text: FAQ },
    { id: 'start', path: 'getting-started.md', text: START },
  ]
  const journal: JournalEntry[] = pages.map((p) => ({ id: p.id, kind: 'page', path: p.path, oid: gitBlobOid(p.text), baseHash: gitBlobOid(p.text) }))
  const main: RemotePageRow[] = pages.map((p, position) => ({ id: p.id, position, kind: 'document', title: p.id, slug: p.id, gitPath: p.path, gitOid: gitBlobOid(p.text) }))
  return {
    spaceId: 's',
    journal,
    main: { pages: main, files: [] },
    local: new Map(Object.entries(local).map(([p, text]) => [p, file(text)])),
    pushed: [],
    posted: new Set(),
    refused: new Set(),
    stamp: '2026-01-01 000000',
    baseTexts: new Map(pages.map((p) => [p.id, p.text])),
    ...extra,
  }
}

const ops = (plan: ReturnType<typeof planPush>) => plan.changes.map((c) => c.change)

describe('similarity (git -M as the model, workspace/similarity.ts)', () => {
  it('scores the shared lines over the larger text; identical is 1, unrelated 0, size too different 0', () => {
    expect(similarity(FAQ, FAQ)).toBe(1)
    expect(similarity(FAQ, START)).toBe(0)
    const edited = FAQ.replace('In the settings file.', 'In ~/.config/app.json.')
    expect(similarity(FAQ, edited)).toBeGreaterThan(0.6)
    expect(similarity(FAQ, edited)).toBeLessThan(1)
    expect(similarity(FAQ, '# FAQ\n')).toBeLessThan(0.5)
  })

  it('pairs best scores first, each side once; a tie between two targets (or two sources) is refused', () => {
    const a = { key: 'a', text: FAQ }
    const near = FAQ.replace('Run the installer.', 'Run the new installer.')
    const far = FAQ.replace('Run the installer.', 'Run it.').replace('In the settings file.', 'Nowhere.')
    expect(pairBySimilarity([a], [{ key: 'far', text: far }, { key: 'near', text: near }])).toEqual([{ left: 'a', right: 'near', score: similarity(FAQ, near) }])
    const twin1 = `${FAQ}One more.\n`
    const twin2 = `${FAQ}Two more.\n`
    expect(similarity(FAQ, twin1)).toBe(similarity(FAQ, twin2))
    expect(pairBySimilarity([a], [{ key: 't1', text: twin1 }, { key: 't2', text: twin2 }])).toEqual([])
    expect(pairBySimilarity([a, { key: 'b', text: FAQ }], [{ key: 't1', text: twin1 }])).toEqual([])
  })
})

describe('the push planner finds a missing page by evidence', () => {
  it('a similar new file elsewhere is the page moved and edited: one update_page, no insert, no delete', () => {
    const edited = FAQ.replace('In the settings file.', 'In ~/.config/app.json.')
    const plan = planPush(input({ 'questions.md': edited, 'getting-started.md': START }))
    expect(ops(plan)).toEqual([{ operation: 'update_page', page: 'faq', document: { markdown: edited }, slug: 'questions' }])
  })

  it('an exact copy beats a similar one; two equally similar files are no match (delete + two inserts)', () => {
    const similar = FAQ.replace('Run the installer.', 'Run it.')
    const exact = planPush(input({ 'a.md': similar, 'b.md': FAQ, 'getting-started.md': START }))
    expect(ops(exact).map((c) => c.operation).sort()).toEqual(['insert_page', 'update_page'])
    expect(ops(exact).find((c) => c.operation === 'update_page')).toMatchObject({ page: 'faq', slug: 'b' })
    const tie = planPush(input({ 'a.md': `${FAQ}One.\n`, 'b.md': `${FAQ}Six.\n`, 'getting-started.md': START }))
    expect(ops(tie).map((c) => c.operation).sort()).toEqual(['delete_page', 'insert_page', 'insert_page'])
  })

  it('a file under a skipped name holding the page (exactly or similar) holds it, reported as not read', () => {
    const skipped = new Map([['faq.md~', 'ignored' as const]])
    const plan = planPush(input({ 'getting-started.md': START }, { skipped, skippedFiles: new Map([['faq.md~', file(`${FAQ}Draft line.\n`)]]) }))
    expect(ops(plan)).toEqual([])
    expect(plan.reports.map((r) => r.message)).toEqual(["faq.md~ has the name of an editor's or tool's file, which Quire does not read: its page stays as in the space, not deleted"])
  })

  it("an editor's backup left holding the page's inode, its edited file since moved elsewhere: the page goes to the moved file, the backup is no evidence against it", () => {
    // vim's backup-save renamed faq.md to faq.md~ (the inode the last scan saw at faq.md) and wrote the
    // edited faq.md, which a file manager then moved to help.md.
    const skipped = new Map([['faq.md~', 'ignored' as const]])
    const edited = `${FAQ}One more answer.\n`
    const plan = planPush(input({ 'help.md': edited, 'getting-started.md': START }, { skipped, skippedFiles: new Map([['faq.md~', file(FAQ)]]), inodeMoves: new Map([['faq.md~', 'faq.md']]) }))
    expect(ops(plan)).toEqual([{ operation: 'update_page', page: 'faq', document: { markdown: edited }, slug: 'help' }])
  })

  it('an inode seen at the old path counts with less shared content than git asks for, never with none', () => {
    const rewritten = '# FAQ\n\nHow do I install it?\nDownload it from the site, then double-click it.\n\nWhat can I change?\nAsk your admin.\n'
    expect(similarity(FAQ, rewritten)).toBeLessThan(0.5)
    expect(similarity(FAQ, rewritten)).toBeGreaterThanOrEqual(0.3)
    const byInode = planPush(input({ 'help.md': rewritten, 'getting-started.md': START }, { inodeMoves: new Map([['help.md', 'faq.md']]) }))
    expect(ops(byInode)).toEqual([{ operation: 'update_page', page: 'faq', document: { markdown: rewritten }, slug: 'help' }])
    const reused = planPush(input({ 'help.md': '# Help\n\nNothing alike.\n', 'getting-started.md': START }, { inodeMoves: new Map([['help.md', 'faq.md']]) }))
    expect(ops(reused).map((c) => c.operation).sort()).toEqual(['delete_page', 'insert_page'])
  })
})

describe('a missing page found by its title (the weakest evidence)', () => {
  it('a new file with the page\'s title and too little else alike for similarity is the page moved and edited (seed 26103)', () => {
    // A small page edited in place and at its end, then moved by delete + create: one line of four shared.
    const page = '# FAQ\n\nQuestions.\n'
    const moved = '# FAQ\n\nQuestions, changed.\n\nLocal one.\n\nLocal two.\n'
    expect(similarity(page, moved)).toBeLessThan(0.3)
    const i = input({ 'moved.md': moved, 'getting-started.md': START }, { baseTexts: new Map([['faq', page], ['start', START]]) })
    expect(ops(planPush(i))).toEqual([{ operation: 'update_page', page: 'faq', document: { markdown: moved }, slug: 'moved' }])
  })

  it('two files so titled, or another page of that title, are no evidence: deleted and inserted', () => {
    const page = '# FAQ\n\nQuestions.\n'
    const twice = planPush(input({ 'a.md': '# FAQ\n\nOne.\n\nTwo.\n', 'b.md': '# FAQ\n\nThree.\n\nFour.\n', 'getting-started.md': START }, { baseTexts: new Map([['faq', page]]) }))
    expect(ops(twice).map((c) => c.operation).sort()).toEqual(['delete_page', 'insert_page', 'insert_page'])
    const named = input({ 'a.md': '# FAQ\n\nOne.\n\nTwo.\n', 'getting-started.md': START }, { baseTexts: new Map([['faq', page]]) })
    const main = { pages: named.main.pages.map((p) => ({ ...p, title: 'FAQ' })), files: [] }
    expect(ops(planPush({ ...named, main })).map((c) => c.operation).sort()).toEqual(['delete_page', 'insert_page'])
  })
})

describe('a removal waits for the desk to settle', () => {
  it('a file missing for less than the quiet interval is held and the plan says when to look again; after it, deleted', () => {
    const local = { 'getting-started.md': START }
    const young = planPush(input(local, { now: 10_000, missingSince: new Map([['faq.md', 9_000]]), deletionQuietMs: 2_000 }))
    expect(ops(young)).toEqual([])
    expect(young.reports).toEqual([])
    expect(young.replanAt).toBe(11_000)
    expect(young.waitingDeletions).toEqual(new Map([['faq.md', 9_000]]))
    const old = planPush(input(local, { now: 11_000, missingSince: new Map([['faq.md', 9_000]]), deletionQuietMs: 2_000 }))
    expect(ops(old)).toEqual([{ operation: 'delete_page', page: 'faq' }])
    expect(old.replanAt).toBeUndefined()
  })
})

describe('a deletion the change request carries is taken back when the file returns', () => {
  const deleted: PushedEntry[] = [{ path: 'faq.md', kind: 'page', pageId: 'faq', hash: '', state: 'deleted' }]

  it('at its old path: revert_page, then the edit', () => {
    const edited = `${FAQ}Answered.\n`
    const plan = planPush(input({ 'faq.md': edited, 'getting-started.md': START }, { pushed: deleted }))
    expect(ops(plan)).toEqual([
      { operation: 'revert_page', page: 'faq' },
      { operation: 'update_page', page: 'faq', document: { markdown: edited } },
    ])
  })

  it('unchanged at its old path: revert_page alone', () => {
    expect(ops(planPush(input({ 'faq.md': FAQ, 'getting-started.md': START }, { pushed: deleted })))).toEqual([{ operation: 'revert_page', page: 'faq' }])
  })

  it('similar elsewhere: revert_page, then the move and the edit', () => {
    const edited = FAQ.replace('Run the installer.', 'Run the new installer.')
    expect(ops(planPush(input({ 'help.md': edited, 'getting-started.md': START }, { pushed: deleted })))).toEqual([
      { operation: 'revert_page', page: 'faq' },
      { operation: 'update_page', page: 'faq', document: { markdown: edited }, slug: 'help' },
    ])
  })
})

describe('a rename the change request carries', () => {
  it('a copy at the old path beside the moved file is still no new page', () => {
    const moved: PushedEntry[] = [{ path: 'renamed-2.md', kind: 'page', pageId: 'faq', hash: gitBlobOid(FAQ), state: 'pushed' }]
    expect(ops(planPush(input({ 'faq.md': FAQ, 'renamed-2.md': FAQ, 'getting-started.md': START }, { pushed: moved })))).toEqual([])
  })
})

describe('a deletion merged before the file came back (revivals.ts)', () => {
  it('the file at its old path is restored from the merged change request base, then edited; gone again, nothing is sent (seed 26127)', () => {
    // Main and the journal no longer have faq: the merged change request deleted it.
    const after = (local: Record<string, string>) => {
      const i = input(local, { revivable: [{ pageId: 'faq', path: 'faq.md', oid: gitBlobOid(FAQ), baseHash: gitBlobOid(FAQ), revision: 'rev-before' }] })
      return { ...i, journal: i.journal.filter((j) => j.id !== 'faq'), main: { pages: i.main.pages.filter((p) => p.id !== 'faq'), files: [] } }
    }
    const edited = `${FAQ}Answered.\n`
    expect(ops(planPush(after({ 'faq.md': edited, 'getting-started.md': START })))).toEqual([
      { operation: 'revert_page', page: 'faq', revision: 'rev-before' },
      { operation: 'update_page', page: 'faq', document: { markdown: edited } },
    ])
    expect(ops(planPush(after({ 'faq.md': FAQ, 'getting-started.md': START })))).toEqual([{ operation: 'revert_page', page: 'faq', revision: 'rev-before' }])
    expect(ops(planPush(after({ 'getting-started.md': START })))).toEqual([])
  })
})

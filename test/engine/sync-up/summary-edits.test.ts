import fs from 'node:fs'
import type { Revision, RevisionPage } from '@gitbook/api'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { deriveSpaceState } from '../../../src/shared/space-state'
import { storedSpaceFacts } from '../../../src/main/engine/session/space-facts'
import { AppWorkstation } from './support/app-workstation'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pageIdAt, pagesOf, remoteOf, SEED_PAGES, seedSpace, tempDir, type Workstation } from './support/workspace'

/**
 * Issue 24 (4): SUMMARY.md is a writer's edit. A reorder, a re-nesting or an entry's new title in the
 * writer's SUMMARY.md goes to the change request as moves and title updates of the same pages (ids kept);
 * what the content API cannot represent is reported with its line, and the file stays an edit (never
 * replaced by sync down, the status says it waits). After the merge, sync down writes the writer's
 * SUMMARY.md back byte for byte. Real local service, the CLI's engine path (Workstation).
 */
const t = serviceForFile()

let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t)
  await ws.pull()
})
afterEach(() => removeWorkstation(ws))

const SEEDED_SUMMARY = `# Table of contents

* [Home](README.md)
* [Getting started](getting-started.md)
* [Guide](guide/README.md)
  * [Install](guide/install.md)
  * [Configure](guide/configure.md)
* [FAQ](faq.md)
`

/** The outline of a revision: `  `-indented titles. */
function outline(revision: Revision): string[] {
  const lines: string[] = []
  const visit = (pages: readonly RevisionPage[], depth: number) => {
    for (const p of pages) {
      lines.push(`${'  '.repeat(depth)}${p.title}`)
      if ('pages' in p && Array.isArray(p.pages)) visit(p.pages, depth + 1)
    }
  }
  visit(revision.pages, 0)
  return lines
}

/** Getting started and FAQ, two top-level siblings, swapped. */
const SWAPPED = SEEDED_SUMMARY.replace('* [Getting started](getting-started.md)\n', '* [FAQ](faq.md)\n').replace(/\* \[FAQ\]\(faq\.md\)\n$/, '* [Getting started](getting-started.md)\n')

const spaceId = () => ws.seeded.spaceId
const stateOf = (w: Workstation) => deriveSpaceState(storedSpaceFacts(w.cache, w.outbox, w.seeded.spaceId, { paused: false, pushesEdits: true }))

/** Pushes, checks that one change request carries pages moved or renamed, never added or removed; merges it and syncs down. */
async function pushAndMerge(expected: string[]): Promise<void> {
  const before = await mainRevision(t.api, spaceId())
  const pushed = await ws.push()
  expect(pushed.failures).toEqual([])
  expect(pushed.planned).toBeGreaterThan(0)
  const [cr] = await openChangeRequests(t.api, spaceId())
  expect(cr).toBeDefined()
  const carried = await changeRequestRevision(t.api, spaceId(), cr.id)
  expect(outline(carried)).toEqual(expected)
  const diff = changedPages(before, carried)
  expect(diff.added).toEqual([])
  expect(diff.removed).toEqual([])
  // Sync down before the merge keeps the writer's file.
  const edited = ws.read('SUMMARY.md')
  await ws.pull()
  expect(ws.read('SUMMARY.md')).toBe(edited)
  expect(await ws.merge(cr.id)).toBe('merge')
  await ws.pull()
  expect(outline(await mainRevision(t.api, spaceId()))).toEqual(expected)
}

describe('a SUMMARY.md edit goes to the change request', () => {
  it('two sibling entries swapped: the pages swap places, and the merged SUMMARY.md is the writer\'s byte for byte', async () => {
    const ids = pagesOf(await mainRevision(t.api, spaceId()))
        expect(ws.read('SUMMARY.md')).toBe(SEEDED_SUMMARY)
    ws.write('SUMMARY.md', SWAPPED)
    await pushAndMerge(['Home', 'FAQ', 'Guide', '  Install', '  Configure', 'Getting started'])
    expect(ws.read('SUMMARY.md')).toBe(SWAPPED)
    expect(new Set(pagesOf(await mainRevision(t.api, spaceId())).keys())).toEqual(new Set(ids.keys()))
    expect(stateOf(ws).kind).toBe('synced')
    // Nothing more to send.
    expect((await ws.push()).planned).toBe(0)
  })

  it('a page moved under another, then back to the top level: the same page moves, its file follows', async () => {
    const faq = await pageIdAt(t.api, spaceId(), 'faq.md')
    const nested = SEEDED_SUMMARY.replace('* [FAQ](faq.md)\n', '').replace('  * [Configure](guide/configure.md)\n', '  * [Configure](guide/configure.md)\n  * [FAQ](faq.md)\n')
    ws.write('SUMMARY.md', nested)
    await pushAndMerge(['Home', 'Getting started', 'Guide', '  Install', '  Configure', '  FAQ'])
    expect(await pageIdAt(t.api, spaceId(), 'guide/faq.md')).toBe(faq)
    expect(ws.read('guide/faq.md')).toBe(SEED_PAGES.faq)
    expect(fs.existsSync(ws.file('faq.md'))).toBe(false)
    // Git Sync's SUMMARY.md of the merged tree: the writer's, with the file where it now is.
    expect(ws.read('SUMMARY.md')).toBe(nested.replace('(faq.md)', '(guide/faq.md)'))

    // Back to the top level, first after the home page.
    const back = SEEDED_SUMMARY.replace('* [FAQ](faq.md)\n', '').replace('* [Home](README.md)\n', '* [Home](README.md)\n* [FAQ](guide/faq.md)\n')
    ws.write('SUMMARY.md', back)
    await pushAndMerge(['Home', 'FAQ', 'Getting started', 'Guide', '  Install', '  Configure'])
    expect(await pageIdAt(t.api, spaceId(), 'faq.md')).toBe(faq)
    expect(ws.read('SUMMARY.md')).toBe(back.replace('(guide/faq.md)', '(faq.md)'))
    expect(ws.read('faq.md')).toBe(SEED_PAGES.faq)
  })

  it("an entry's new title renames its page; the page file comes back with it as its H1", async () => {
    const retitled = SEEDED_SUMMARY.replace('[Install]', '[Installation]')
    ws.write('SUMMARY.md', retitled)
    await pushAndMerge(['Home', 'Getting started', 'Guide', '  Installation', '  Configure', 'FAQ'])
    expect(ws.read('SUMMARY.md')).toBe(retitled)
    expect(ws.read('guide/install.md')).toBe(SEED_PAGES.install.replace('# Install', '# Installation'))
  })

  it("an entry retitled while the file's H1 is edited to another title: the H1 wins, the entry is reported", async () => {
    ws.write('SUMMARY.md', SEEDED_SUMMARY.replace('[Install]', '[Setup]'))
    ws.write('guide/install.md', SEED_PAGES.install.replace('# Install', '# Installing'))
    const pushed = await ws.push()
    expect(pushed.reports).toContainEqual(expect.objectContaining({ kind: 'summary-title-kept', line: 6 }))
    const [cr] = await openChangeRequests(t.api, spaceId())
    expect(outline(await changeRequestRevision(t.api, spaceId(), cr.id))).toContain('  Installing')
  })
})

describe('the writer edits SUMMARY.md again before the merge', () => {
  it('the change request follows: a second reorder, then back to the order of main, which leaves nothing moved', async () => {
    ws.write('SUMMARY.md', SWAPPED)
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId())
    const carried = async () => outline(await changeRequestRevision(t.api, spaceId(), cr.id))
    expect(await carried()).toEqual(['Home', 'FAQ', 'Guide', '  Install', '  Configure', 'Getting started'])
    const again = SWAPPED.replace('* [Guide](guide/README.md)\n  * [Install](guide/install.md)\n  * [Configure](guide/configure.md)\n', '').replace('* [Home](README.md)\n', '* [Home](README.md)\n* [Guide](guide/README.md)\n  * [Configure](guide/configure.md)\n  * [Install](guide/install.md)\n')
    ws.write('SUMMARY.md', again)
    expect((await ws.push()).failures).toEqual([])
    expect(await carried()).toEqual(['Home', 'Guide', '  Configure', '  Install', 'FAQ', 'Getting started'])
    ws.write('SUMMARY.md', SEEDED_SUMMARY)
    expect((await ws.push()).failures).toEqual([])
    expect(await carried()).toEqual(outline(await mainRevision(t.api, spaceId())))
  })
})

describe('what the content API cannot represent', () => {
  it('a new group heading is reported with its line, not sent; the file stays an edit through merges, and the status says it waits', async () => {
    const grouped = SEEDED_SUMMARY.replace('* [FAQ](faq.md)\n', '\n## Reference\n\n* [FAQ](faq.md)\n')
    ws.write('SUMMARY.md', grouped)
    const pushed = await ws.push()
    expect(pushed.reports).toEqual([expect.objectContaining({ kind: 'summary-not-sent', path: 'SUMMARY.md', line: 9, message: expect.stringContaining('SUMMARY.md line 9: "## Reference"') })])
    expect(pushed.planned).toBe(0)
    expect(stateOf(ws).kind).toBe('pending')

    // Another edit goes out and is merged: sync down still leaves the writer's SUMMARY.md alone.
    ws.write('faq.md', `${SEED_PAGES.faq}\nMore answers.\n`)
    expect((await ws.push()).planned).toBe(1)
    const [cr] = await openChangeRequests(t.api, spaceId())
    expect(await ws.merge(cr.id)).toBe('merge')
    await ws.pull()
    expect(ws.read('SUMMARY.md')).toBe(grouped)
    expect((await ws.push()).reports).toContainEqual(expect.objectContaining({ kind: 'summary-not-sent', line: 9 }))
    expect(stateOf(ws).kind).toBe('pending')
  })
})

describe('main changed the structure too', () => {
  it("someone else's reorder merged meanwhile and the writer's swap: both are kept, the writer's file is never replaced before its merge", async () => {
        ws.write('SUMMARY.md', SWAPPED)
    // Someone else puts Configure before Install, merged.
    const configure = await pageIdAt(t.api, spaceId(), 'guide/configure.md')
    const other = (await t.api.call('createChangeRequest', { params: { spaceId: spaceId() }, body: { subject: 'Reorder' } })).body as { id: string }
    await t.api.call('updateChangeRequestContent', { params: { spaceId: spaceId(), changeRequestId: other.id }, body: { changes: [{ operation: 'update_page', page: configure, at: 0 }] } })
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: spaceId(), changeRequestId: other.id } })).body.result).toBe('merge')
    await ws.pull()
    expect(ws.read('SUMMARY.md')).toBe(SWAPPED)

    await pushAndMerge(['Home', 'FAQ', 'Guide', '  Configure', '  Install', 'Getting started'])
    expect(ws.read('SUMMARY.md')).toBe(SWAPPED.replace('  * [Install](guide/install.md)\n  * [Configure](guide/configure.md)\n', '  * [Configure](guide/configure.md)\n  * [Install](guide/install.md)\n'))
  })
})

describe("through the app's backend", () => {
  it('two sibling entries swapped: the session pushes the move, keeps the file until the merge, then writes it back byte for byte', async () => {
    const seeded = await seedSpace(t)
    const dir = tempDir('quire-summary-app-')
    const app = await AppWorkstation.open(remoteOf(t), seeded, dir, { maxAttempts: 2, backoff: { baseMs: 5, capMs: 20 } }, (work) => work())
    try {
      await app.pull()
      expect(app.read('SUMMARY.md')).toBe(SEEDED_SUMMARY)
      app.write('SUMMARY.md', SWAPPED)
      const pushed = await app.push()
      expect(pushed.planned).toBeGreaterThan(0)
      const [cr] = await openChangeRequests(t.api, seeded.spaceId)
      expect(outline(await changeRequestRevision(t.api, seeded.spaceId, cr.id))).toEqual(['Home', 'FAQ', 'Guide', '  Install', '  Configure', 'Getting started'])
      await app.pull()
      expect(app.read('SUMMARY.md')).toBe(SWAPPED)
      expect(await app.merge(cr.id)).toBe('merged')
      await app.pull()
      expect(app.read('SUMMARY.md')).toBe(SWAPPED)
      expect(outline(await mainRevision(t.api, seeded.spaceId))).toEqual(['Home', 'FAQ', 'Guide', '  Install', '  Configure', 'Getting started'])
      expect(await app.state()).toBe('synced')
    } finally {
      await app.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })

  it('a new group heading: reported, and the app says the space waits', async () => {
    const seeded = await seedSpace(t)
    const dir = tempDir('quire-summary-app-')
    const app = await AppWorkstation.open(remoteOf(t), seeded, dir, { maxAttempts: 2, backoff: { baseMs: 5, capMs: 20 } }, (work) => work())
    try {
      await app.pull()
      app.write('SUMMARY.md', SEEDED_SUMMARY.replace('* [FAQ](faq.md)\n', '\n## Reference\n\n* [FAQ](faq.md)\n'))
      await app.push()
      expect(await app.state()).toBe('pending')
    } finally {
      await app.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
  })
})

/**
 * Fidelity through the real local service and the client (issue 14): random page files (see
 * support/page-files.ts) written with insert_page and update_page over HTTP, read back with
 * `format=markdown`, merged, and mirrored by the sync engine into a folder: every one comes back byte
 * for byte. `CONTENT_SEED=<n>` replays one case; `CONTENT_CASES=<n>` changes how many run.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parsePageMarkdown, splitPageMarkdown, type ContentChange } from '../../src/main/content'
import { startSyncHarness, type SyncHarness } from '../engine/support/sync-harness'
import { pageFile } from './support/page-files'
import { Random } from './support/random'

interface Case {
  seed: number
  first: string
  second: string
  pageId?: string
  /** What the page file must read as now. */
  expected?: string
}

interface Mismatch {
  seed: number
  where: string
  wrote: string
  got: string
}

const seeds = (count: number): number[] => {
  const only = process.env.CONTENT_SEED
  return only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env.CONTENT_CASES ?? count) }, (_, i) => i + 1)
}

const inBatches = <T>(items: T[], size: number): T[][] => Array.from({ length: Math.ceil(items.length / size) }, (_, i) => items.slice(i * size, (i + 1) * size))

function report(mismatches: Mismatch[]): string {
  return mismatches
    .slice(0, 5)
    .map((m) => `seed ${m.seed} (replay with CONTENT_SEED=${m.seed}), ${m.where}:\n  wrote ${JSON.stringify(m.wrote)}\n  got   ${JSON.stringify(m.got)}`)
    .join('\n')
}

let h: SyncHarness
let spaceId: string
const SPACE_TITLE = 'Fidelity'

beforeAll(async () => {
  h = await startSyncHarness({ demo: true })
  const orgs = (await h.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  spaceId = ((await h.t.api.call('createSpace', { params: { organizationId: orgs.items[0].id }, body: { title: SPACE_TITLE, empty: true } })).body as { id: string }).id
})
afterAll(() => h.close())

describe('page files through the local service and the client mirror', () => {
  it('any page file, inserted then updated over HTTP, reads back byte for byte; merged, the client mirrors it byte for byte', async () => {
    const api = h.t.api
    const cases: Case[] = seeds(150).map((seed) => {
      const random = new Random(seed)
      return { seed, first: pageFile(random), second: pageFile(random) }
    })
    const changeRequestId = ((await api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Page files' } })).body as { id: string }).id
    const write = async (changes: ContentChange[]) =>
      (await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId }, query: { compat: false }, body: { changes } })).body as {
        changes: Array<{ ref?: string; page: { id: string } }>
      }
    const mismatches: Mismatch[] = []
    const readBack = async (where: string, wrote: (c: Case) => string) => {
      for (const c of cases) {
        const page = await api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId: c.pageId! }, query: { format: 'markdown' } })
        const got = (page.body as { markdown: string }).markdown
        if (got !== c.expected) mismatches.push({ seed: c.seed, where, wrote: wrote(c), got })
      }
    }

    // insert_page, with a title as SUMMARY.md would give it (the page's title where the file has no H1).
    for (const batch of inBatches(cases, 50)) {
      const answer = await write(batch.map((c) => ({ operation: 'insert_page', ref: `case-${c.seed}`, title: `Case ${c.seed}`, document: { markdown: c.first } })))
      for (const change of answer.changes) {
        const c = batch.find((x) => `case-${x.seed}` === change.ref)!
        c.pageId = change.page.id
        c.expected = c.first
      }
    }
    await readBack('insert_page then GET ?format=markdown', (c) => c.first)

    // update_page with another file. Markdown without front matter leaves the page's metadata alone
    // (the spec's rule), so such a file comes back with the page's front matter; it must read the same.
    for (const batch of inBatches(cases, 50)) await write(batch.map((c) => ({ operation: 'update_page', page: c.pageId!, document: { markdown: c.second } })))
    for (const c of cases) {
      const hadMetadata = Object.keys(parsePageMarkdown(c.first).metadata).length > 0
      c.expected = splitPageMarkdown(c.second).hasFrontMatter || !hadMetadata ? c.second : undefined
    }
    const exact = cases.filter((c) => c.expected !== undefined)
    const gainedFrontMatter = cases.filter((c) => c.expected === undefined)
    for (const c of gainedFrontMatter) {
      const page = await api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId, pageId: c.pageId! }, query: { format: 'markdown' } })
      const got = (page.body as { markdown: string }).markdown
      expect(parsePageMarkdown(got).metadata, `seed ${c.seed}`).toEqual(parsePageMarkdown(c.first).metadata)
      expect(got.endsWith(c.second.replace(/^\uFEFF/, '')), `seed ${c.seed}: ${JSON.stringify(got)}`).toBe(true)
      c.expected = got
    }
    await readBack('update_page then GET ?format=markdown', (c) => c.second)
    expect(mismatches, report(mismatches)).toEqual([])
    expect(exact.length).toBeGreaterThan(cases.length / 2)

    // Merged and mirrored: the Git Sync tree the client writes holds the same bytes.
    const merge = await api.call('mergeChangeRequest', { params: { spaceId, changeRequestId } })
    expect(merge.body).toMatchObject({ result: 'merge' })
    const engine = h.engine()
    await engine.resolveSpaces([spaceId])
    h.cache.setSelection({ spaces: [spaceId] })
    const pass = await engine.pass()
    expect(pass.spaces.map((s) => s.state)).toEqual(['synced'])
    const revision = (await api.call('getCurrentRevision', { params: { spaceId } })).body as { pages: Array<{ id: string; git?: { path: string }; pages?: unknown[] }> }
    const paths = new Map<string, string>()
    const walk = (pages: Array<{ id: string; git?: { path: string }; pages?: unknown[] }>) => {
      for (const page of pages) {
        if (page.git) paths.set(page.id, page.git.path)
        walk((page.pages ?? []) as typeof pages)
      }
    }
    walk(revision.pages)
    const root = path.join(h.workspace, 'Quire Demo', SPACE_TITLE)
    for (const c of cases) {
      const file = path.join(root, paths.get(c.pageId!) ?? `missing page ${c.pageId}`)
      const got = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '(no file)'
      if (got !== c.expected) mismatches.push({ seed: c.seed, where: `mirrored to ${paths.get(c.pageId!)}`, wrote: c.second, got })
    }
    expect(mismatches, report(mismatches)).toEqual([])
  })
})

import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import type { ContentChange } from '../../src/main/content'
import { MAX_CHAIN } from '../../src/main/engine/sync/remote-difference'
import { remoteRows } from '../../src/main/engine/sync/remote-snapshot'
import { Network } from '../../bench/support/shaped-proxy'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, editSpaceDirectly, page } from '../support/content-fixtures'
import { startSyncHarness, type SyncHarness } from './support/sync-harness'

/**
 * Issue 29: a pass over a space one page of which changed remotely costs what the change costs, not
 * what the space does: the space list, the revision (its parents), its changes and that page; at most
 * 100 KB down, counted on the wire by a proxy in front of the real local service (either profile:
 * QUIRE_TEST_PROFILE). Where it cannot go by difference it reads the whole tree, to the same files.
 */

let h: SyncHarness | undefined
let closeProxy: (() => Promise<void>) | undefined
afterEach(async () => {
  await closeProxy?.()
  await h?.close()
  h = undefined
  closeProxy = undefined
})

const PAGES = 200
const body = (i: number, edit = '') => `# Page ${i}\n\n${`Words of page ${i} that make it as long as a real page of a manual. `.repeat(12)}\n${edit}`

/** A synced space of PAGES pages (ten to a chapter), its engine going through a counting proxy. */
async function syncedSpace() {
  h = await startSyncHarness({})
  const changes: ContentChange[] = []
  for (let i = 0; i < PAGES; i++) changes.push(page(`p${i}`, body(i), i % 10 === 0 ? {} : { into: `p${i - (i % 10)}` }))
  // Batches of 50 at most, as the service takes them (a chapter's pages in one batch: refs hold within it).
  const arranged = arrangeSpace(h.t.service, changes.slice(0, 50), { title: 'Manual' })
  for (let from = 50; from < PAGES; from += 50) editSpaceDirectly(h.t.service, arranged.spaceId, changes.slice(from, from + 50))
  const store = h.t.service.store
  const tree = store.repo(RevisionsRepository).get(store.repo(SpacesRepository).get(arranged.spaceId)!.revisionId!)!.tree
  const pages: Record<string, string> = {}
  const walk = (list: typeof tree.pages) => list.forEach((p) => ((pages[`p${/\d+/.exec(p.title)?.[0]}`] = p.id), walk(p.pages)))
  walk(tree.pages)
  expect(Object.keys(pages)).toHaveLength(PAGES)
  const s = { spaceId: arranged.spaceId, pages }
  const network = new Network({ rttMs: 0, bitsPerSecond: 1e12, extraConnectRtts: 0 })
  const proxy = await network.proxy(Number(new URL(h.t.service.origin).port))
  closeProxy = proxy.close
  const engine = h.engine({}, { endpoint: proxy.origin })
  await engine.resolveSpaces([s.spaceId])
  h.cache.setSelection({ spaces: [s.spaceId] })
  expect((await engine.pass()).inSync).toBe(true)
  const folder = path.join(h.workspace, 'Fixture org', 'Manual')
  const read = (relative: string) => fs.readFileSync(path.join(folder, relative), 'utf8')
  return { s, network, engine, folder, read }
}

const fileOf = (spaceId: string, pageId: string) => h!.cache.pageLocation(spaceId, pageId)!.localPath!

/** Every file of a folder (but Quire's own), relative, with its text. */
function filesOf(root: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      if (entry.name.startsWith('.quire')) continue
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out[path.relative(root, full)] = fs.readFileSync(full, 'utf8')
    }
  }
  walk(root)
  return out
}

describe('sync down by difference', () => {
  it(`one page changed remotely in a ${PAGES}-page space: the next pass makes at most 4 requests and downloads at most 100 KB`, async () => {
    const { s, network, engine, read } = await syncedSpace()
    const head = editSpaceDirectly(h!.t.service, s.spaceId, [{ operation: 'update_page', page: s.pages.p42, document: { markdown: body(42, 'Edited remotely.\n') } }])
    const before = network.down.bytes
    const seen = await h!.counting(async () => expect((await engine.pass()).inSync).toBe(true))
    const down = network.down.bytes - before
    expect(seen.length, seen.join('\n')).toBeLessThanOrEqual(4)
    expect(seen).not.toContain(`GET /spaces/${s.spaceId}/content`)
    expect(seen.some((r) => r.endsWith('/links'))).toBe(false)
    expect(seen.some((r) => r.startsWith(`GET /spaces/${s.spaceId}/revisions/${head}/path/`)), 'the page read at that revision').toBe(true)
    expect(down, `${down} bytes down`).toBeLessThanOrEqual(100 * 1024)
    expect(read(fileOf(s.spaceId, s.pages.p42))).toContain('Edited remotely.')
    expect(h!.cache.space(s.spaceId)?.syncedRevision).toBe(head)
    // What the cache now holds of the tree is what a whole read gives.
    const whole = (await h!.t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })).body
    const sorted = <T extends { id: string }>(rows: T[]) => [...rows].sort((x, y) => (x.id < y.id ? -1 : 1))
    const rows = remoteRows(whole)
    const cached = h!.cache.remoteTree(s.spaceId)
    expect(sorted(cached.pages)).toEqual(sorted(rows.pages))
    expect(sorted(cached.files)).toEqual(sorted(rows.files))
  })

  it(`a chain longer than ${MAX_CHAIN} revisions, or more changes than one answer gives, is read whole, to the same files`, async () => {
    const { s, engine, folder, read } = await syncedSpace()
    // MAX_CHAIN + 1 revisions, a page edited in each.
    for (let i = 0; i <= MAX_CHAIN; i++) editSpaceDirectly(h!.t.service, s.spaceId, [{ operation: 'update_page', page: s.pages[`p${i + 1}`], document: { markdown: body(i + 1, `Edit ${i}.\n`) } }])
    const seen = await h!.counting(() => engine.pass())
    expect(seen).toContain(`GET /spaces/${s.spaceId}/content`)
    for (let i = 0; i <= MAX_CHAIN; i++) expect(read(fileOf(s.spaceId, s.pages[`p${i + 1}`]))).toContain(`Edit ${i}.`)

    // One revision editing 60 pages: its changes' answer leaves some out (`more`).
    const many: ContentChange[] = []
    for (let i = 100; i < 140; i++) many.push({ operation: 'update_page', page: s.pages[`p${i}`], document: { markdown: body(i, 'Many.\n') } })
    many.push({ operation: 'insert_files', files: Array.from({ length: 20 }, (_, i) => ({ name: `note-${i}.txt`, contentType: 'text/plain', base64: Buffer.from(`note ${i}\n`).toString('base64') })) })
    editSpaceDirectly(h!.t.service, s.spaceId, many)
    const again = await h!.counting(() => engine.pass())
    expect(again).toContain(`GET /spaces/${s.spaceId}/content`)
    for (let i = 100; i < 140; i++) expect(read(fileOf(s.spaceId, s.pages[`p${i}`]))).toContain('Many.')
    expect(Object.keys(filesOf(folder))).toHaveLength(PAGES + 1 + 20)
  })
})

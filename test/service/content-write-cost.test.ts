/**
 * A small write must cost the page it changes, not the space (issue 16: one `update_page` of a few
 * lines took 4 ms in a 50-page space and 64 ms in an 800-page one, as every write cloned, re-pathed,
 * serialized, stored and parsed again the whole revision). Measured against the real service over
 * loopback: the CPU of the process per write and the bytes the database grows by per write, compared
 * between a 50-page and an 800-page space (ten files a page), as ratios rather than wall times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyContentChanges, type ContentChange, type RevisionTree } from '../../src/main/content'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { createSpaceRevision } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { newId } from '../../src/main/service/store/ids'
import { startTestService, type TestService } from '../support/service'

const WRITES = 16

/** A space laid out as a manual: sections of 20 pages (a root page and 19 children), ten files a page. */
function seedSpace(t: TestService, orgId: string, pages: number): { spaceId: string; lastPageId: string } {
  const store = t.service.store
  const space = store.repo(SpacesRepository).create({ orgId, title: `${pages} pages` })
  let tree: RevisionTree = { pages: [], files: [] }
  const blobs = new Map<string, Uint8Array>()
  const apply = (changes: ContentChange[]) => {
    const result = applyContentChanges(tree, changes, { newId, now: store.now() })
    tree = result.tree
    for (const [oid, bytes] of result.blobs) blobs.set(oid, bytes)
  }
  for (let i = 0; i < pages; i += 20) {
    apply(Array.from({ length: Math.min(20, pages - i) }, (_, k): ContentChange => {
      const document = { markdown: `# Page ${i + k}\n\nSee [the next page](page-${(i + k + 1) % pages}.md) and ![a picture](.gitbook/assets/image-${i + k}.png).\n` }
      return k === 0 ? { operation: 'insert_page', ref: 'section', document } : { operation: 'insert_page', into: 'section', document }
    }))
  }
  const files = pages * 10
  for (let i = 0; i < files; i += 800) {
    apply(Array.from({ length: Math.ceil(Math.min(800, files - i) / 20) }, (_, c): ContentChange => ({
      operation: 'insert_files',
      files: Array.from({ length: Math.min(20, files - i - c * 20) }, (_, k) => ({ name: `image-${i + c * 20 + k}.png`, contentType: 'image/png', base64: Buffer.from(`png ${i + c * 20 + k}`).toString('base64') })),
    })))
  }
  createSpaceRevision(store, space.id, tree, blobs, [])
  const lastSection = tree.pages[tree.pages.length - 1]
  return { spaceId: space.id, lastPageId: lastSection.pages[lastSection.pages.length - 1]?.id ?? lastSection.id }
}

interface WriteCost {
  /** Median CPU microseconds of this process (service and client) per write. */
  cpu: number
  /** Database pages added per write. */
  dbPages: number
}

async function smallWrites(t: TestService, space: { spaceId: string; lastPageId: string }): Promise<WriteCost> {
  const cr = await t.api.call('createChangeRequest', { params: { spaceId: space.spaceId }, body: { subject: 'small edits' } })
  expect(cr.status).toBe(201)
  const write = async (i: number) => {
    const res = await t.api.call('updateChangeRequestContent', {
      params: { spaceId: space.spaceId, changeRequestId: cr.body.id },
      body: { changes: [{ operation: 'update_page', page: space.lastPageId, document: { markdown: `# Edited\n\nEdit ${i} with [a link](page-1.md).\n` } }] },
    })
    expect(res.status).toBe(200)
  }
  // Warm-up: the JIT, the validators, the parsed revision of the space.
  for (let i = 0; i < 4; i++) await write(i)
  const db = t.service.store.db
  const pagesBefore = db.pragma('page_count', { simple: true }) as number
  const cpu: number[] = []
  for (let i = 0; i < WRITES; i++) {
    const before = process.cpuUsage()
    await write(i)
    const used = process.cpuUsage(before)
    cpu.push(used.user + used.system)
  }
  const pagesAfter = db.pragma('page_count', { simple: true }) as number
  cpu.sort((a, b) => a - b)
  return { cpu: cpu[Math.floor(cpu.length / 2)], dbPages: (pagesAfter - pagesBefore) / WRITES }
}

describe('a small write costs the page, not the space', () => {
  let t: TestService
  let small: { spaceId: string; lastPageId: string }
  let large: { spaceId: string; lastPageId: string }

  beforeAll(async () => {
    // Responses are checked by the client (ApiClient); the service's own response check would serialize twice.
    t = await startTestService({ validateResponses: false })
    const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Write cost', owner: t.service.ownerId }).id
    small = seedSpace(t, orgId, 50)
    large = seedSpace(t, orgId, 800)
  }, 120_000)
  afterAll(async () => {
    await t.close()
  })

  it('costs about the same CPU and storage in an 800-page space as in a 50-page one', async () => {
    const fifty = await smallWrites(t, small)
    const eightHundred = await smallWrites(t, large)
    const cpuRatio = eightHundred.cpu / fifty.cpu
    const storageRatio = eightHundred.dbPages / Math.max(1, fifty.dbPages)
    const figures = `CPU per write ${(fifty.cpu / 1000).toFixed(1)} ms (50 pages) vs ${(eightHundred.cpu / 1000).toFixed(1)} ms (800 pages); database pages per write ${fifty.dbPages.toFixed(1)} vs ${eightHundred.dbPages.toFixed(1)}`
    expect(storageRatio, figures).toBeLessThan(4)
    expect(cpuRatio, figures).toBeLessThan(3)
  }, 120_000)
})

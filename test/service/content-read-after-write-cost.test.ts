/**
 * A small write and the read that follows it must cost the page, not the space (issue 16). A syncing
 * client (or the app showing a change request) reads right after every write, and that first read of a
 * new revision computed every Git path of the space (about 8,800 in the 800-page space here) and
 * serialized again every page it shows. Measured against the real service over loopback, as
 * content-write-cost.test.ts: the CPU of this process per write + first read, 800 vs 50 pages (ten
 * files a page), as a ratio rather than wall times.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyContentChanges, type ContentChange, type RevisionTree } from '../../src/main/content'
import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { createSpaceRevision } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { newId } from '../../src/main/service/store/ids'
import { startTestService, type TestService } from '../support/service'

const ROUNDS = 16

interface SeededSpace {
  spaceId: string
  /** The last section's root page (its subpages all in its answer) and its last subpage. */
  sectionId: string
  lastPageId: string
}

/** A space laid out as a manual: sections of 20 pages (a root page and 19 children), ten files a page. */
function seedSpace(t: TestService, orgId: string, pages: number): SeededSpace {
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
  return { spaceId: space.id, sectionId: lastSection.id, lastPageId: lastSection.pages[lastSection.pages.length - 1].id }
}

/** The URL of an operation, to request it without the client's response check (spec-checked in the warm-up). */
function operationUrl(t: TestService, operationId: string, params: Record<string, string>, query = ''): string {
  const path = specRegistry().operation(operationId).path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name]))
  return `${t.api.baseUrl}${path}${query}`
}

interface RoundCost {
  /** Median CPU microseconds of this process (service and client) per write and the reads after it. */
  total: number
  /** Of which the reads (median). */
  reads: number
}

async function writeThenRead(t: TestService, space: SeededSpace): Promise<RoundCost> {
  const cr = await t.api.call('createChangeRequest', { params: { spaceId: space.spaceId }, body: { subject: 'small edits' } })
  expect(cr.status).toBe(201)
  const changeRequestId = cr.body.id as string
  const params = { spaceId: space.spaceId, changeRequestId }
  let readsFrom = process.cpuUsage()
  const round = async (i: number, checked: boolean) => {
    const body = { changes: [{ operation: 'update_page', page: space.lastPageId, document: { markdown: `# Edited\n\nEdit ${i} with [a link](page-1.md).\n` } }] }
    const write = checked ? await t.api.call('updateChangeRequestContent', { params, body }) : await t.api.raw('POST', operationUrl(t, 'updateChangeRequestContent', params), body)
    expect(write.status).toBe(200)
    readsFrom = process.cpuUsage()
    // What a client reads back: the page it wrote, and the section that holds it (its subpages in the answer).
    const read = (pageId: string) =>
      checked
        ? t.api.call('getPageInChangeRequestById', { params: { ...params, pageId }, query: { format: 'markdown' } })
        : t.api.raw('GET', operationUrl(t, 'getPageInChangeRequestById', { ...params, pageId }, '?format=markdown'))
    const page = await read(space.lastPageId)
    expect(page.status).toBe(200)
    expect((page.body as { markdown: string }).markdown).toContain(`Edit ${i} with`)
    const section = await read(space.sectionId)
    expect(section.status).toBe(200)
    expect((section.body as { pages: { id: string }[] }).pages.at(-1)?.id).toBe(space.lastPageId)
  }
  // Warm-up, answers checked against the spec: the JIT, the validators, the parsed revision of the space and its index.
  for (let i = 0; i < 4; i++) await round(i, true)
  const total: number[] = []
  const reads: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const before = process.cpuUsage()
    await round(i, false)
    const used = process.cpuUsage(before)
    const read = process.cpuUsage(readsFrom)
    total.push(used.user + used.system)
    reads.push(read.user + read.system)
  }
  return { total: median(total), reads: median(reads) }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

describe('a small write and the first read after it cost the page, not the space', () => {
  let t: TestService
  let small: SeededSpace
  let large: SeededSpace

  beforeAll(async () => {
    // Responses are checked by the client (ApiClient); the service's own response check would serialize twice.
    t = await startTestService({ validateResponses: false })
    const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Read after write', owner: t.service.ownerId }).id
    small = seedSpace(t, orgId, 50)
    large = seedSpace(t, orgId, 800)
  }, 120_000)
  afterAll(async () => {
    await t.close()
  })

  it('costs about the same CPU in an 800-page space as in a 50-page one', async () => {
    const fifty = await writeThenRead(t, small)
    const eightHundred = await writeThenRead(t, large)
    const ms = (us: number) => (us / 1000).toFixed(1)
    const figures =
      `CPU per write + first reads ${ms(fifty.total)} ms (50 pages) vs ${ms(eightHundred.total)} ms (800 pages), ` +
      `of which the reads ${ms(fifty.reads)} vs ${ms(eightHundred.reads)} ms`
    console.log(figures)
    expect(eightHundred.total / fifty.total, figures).toBeLessThan(3)
    // The write itself still walks the space's pages (by pointer) and grows a little; the reads must not.
    expect(eightHundred.reads / fifty.reads, figures).toBeLessThan(2)
  }, 120_000)
})

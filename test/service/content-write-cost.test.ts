/**
 * A small write must cost the page it changes, not the space (issue 16: one `update_page` of a few
 * lines took 4 ms in a 50-page space and 64 ms in an 800-page one, as every write cloned, re-pathed,
 * serialized, stored and parsed again the whole revision). Measured against the real service over
 * loopback: the CPU of the process per write and the bytes the database grows by per write, compared
 * between a 50-page and an 800-page space (ten files a page), as ratios rather than wall times.
 *
 * And the read that follows it: a syncing client (or the app showing a change request) reads right after
 * every write, and that first read of a new revision computed every Git path of the space (about 8,800 in
 * the 800-page space here) and serialized again every page it shows.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { startTestService, type TestService } from '../support/service'
import { seedManualSpace, type ManualSpace } from './support/built-revision'

const WRITES = 16
const ROUNDS = 16

interface WriteCost {
  /** Median CPU microseconds of this process (service and client) per write. */
  cpu: number
  /** Database pages added per write. */
  dbPages: number
}

/** A new change request on `space` for the small edits, its id. */
async function smallEditsChangeRequest(t: TestService, space: ManualSpace): Promise<string> {
  const cr = await t.api.call('createChangeRequest', { params: { spaceId: space.spaceId }, body: { subject: 'small edits' } })
  expect(cr.status).toBe(201)
  return cr.body.id as string
}

/** The small edit number `i`: the space's last page rewritten as a paragraph with one link. */
function smallEdit(space: ManualSpace, i: number) {
  return { changes: [{ operation: 'update_page', page: space.lastPageId, document: { markdown: `# Edited\n\nEdit ${i} with [a link](page-1.md).\n` } }] }
}

async function smallWrites(t: TestService, space: ManualSpace): Promise<WriteCost> {
  const changeRequestId = await smallEditsChangeRequest(t, space)
  const write = async (i: number) => {
    const res = await t.api.call('updateChangeRequestContent', { params: { spaceId: space.spaceId, changeRequestId }, body: smallEdit(space, i) })
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
  return { cpu: median(cpu), dbPages: (pagesAfter - pagesBefore) / WRITES }
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

async function writeThenRead(t: TestService, space: ManualSpace): Promise<RoundCost> {
  const changeRequestId = await smallEditsChangeRequest(t, space)
  const params = { spaceId: space.spaceId, changeRequestId }
  let readsFrom = process.cpuUsage()
  const round = async (i: number, checked: boolean) => {
    const body = smallEdit(space, i)
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

describe('a small write costs the page, not the space', () => {
  let t: TestService
  let small: ManualSpace
  let large: ManualSpace

  beforeAll(async () => {
    // Responses are checked by the client (ApiClient); the service's own response check would serialize twice.
    t = await startTestService({ validateResponses: false })
    const orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Write cost', owner: t.service.ownerId }).id
    small = seedManualSpace(t, orgId, 50)
    large = seedManualSpace(t, orgId, 800)
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

  it('and so does the first read after it: the write + read costs about the same CPU in an 800-page space as in a 50-page one', async () => {
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

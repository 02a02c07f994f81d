import fs from 'node:fs'
import type { ChangeRequest } from '@gitbook/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ContentChange } from '../../../src/main/content'
import { allRoutes } from '../../../src/main/service/api'
import { arrangeSpace, editSpaceDirectly, page } from '../../support/content-fixtures'
import { serviceForFile } from './support/hooks'
import { mainRevision, openChangeRequests, pagesOf, tempDir, Workstation } from './support/workspace'

/**
 * Issue 29: what a save costs the service, counted at the gateway's fetch against the real local
 * service (either profile: QUIRE_TEST_PROFILE=hosted). Counts and bytes, not timings. A save into the
 * writer's open change request, nobody else having written, is the read of the change request and the
 * batch; after a teammate's merge, main's view follows by difference (what the merge changed, the
 * pages it edited), not by reading the tree of a few hundred pages again.
 */

const t = serviceForFile()
const PAGES = 300

interface Seen {
  method: string
  path: string
  bytes: number
}
const seen: Seen[] = []
/** Runs once, right before the next content batch leaves (someone else writing while it is on its way). */
let beforeContent: (() => Promise<void>) | undefined
const counted: typeof fetch = async (input, init) => {
  const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
  const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
  if (method === 'POST' && url.pathname.endsWith('/content') && beforeContent) {
    const hook = beforeContent
    beforeContent = undefined
    await hook()
  }
  const response = await fetch(input, init)
  const bytes = (await response.clone().arrayBuffer()).byteLength
  seen.push({ method, path: url.pathname.replace(/^\/v1/, ''), bytes })
  return response
}
async function counting(fn: () => Promise<unknown>): Promise<Seen[]> {
  const from = seen.length
  await fn()
  return seen.slice(from)
}
const shapes = (requests: Seen[]) => requests.map((r) => `${r.method} ${r.path.replace(/\/[A-Za-z0-9]{16,}/g, '/ID')}`)

const text = (n: number) => `# Page ${n}\n\n${'The service keeps every change in a revision so a writer can review it. '.repeat(6)}\n\n## Details\n\nMore about page ${n}.\n`

/** A manual of PAGES pages, ten sections of nested pages with some text each (batches of 50, as the service takes them). */
function arrangeManual() {
  const first: ContentChange[] = []
  for (let s = 0; s < 10; s++) first.push(page(`s${s}`, text(s), { slug: `section-${s}` }))
  for (let n = 10; n < 50; n++) first.push(page(`p${n}`, text(n), { slug: `page-${n}`, into: `s${n % 10}` }))
  const arranged = arrangeSpace(t.service, first, { title: 'Manual' })
  for (let from = 50; from < PAGES; from += 50) {
    const batch: ContentChange[] = []
    for (let n = from; n < Math.min(PAGES, from + 50); n++) batch.push(page(`p${n}`, text(n), { slug: `page-${n}`, into: arranged.pages[`s${n % 10}`] }))
    editSpaceDirectly(t.service, arranged.spaceId, batch)
  }
  return arranged
}

let ws: Workstation
let pageIds: Record<string, string>
beforeAll(async () => {
  const arranged = arrangeManual()
  pageIds = arranged.pages
  ws = new Workstation(t, arranged, tempDir('save-requests'), { gateway: { fetch: counted } })
  expect((await ws.pull()).issues).toEqual([])
})
afterAll(() => {
  if (!ws) return
  ws.close()
  fs.rmSync(ws.dir, { recursive: true, force: true })
})

/** A page's markdown in a change request. */
async function inChangeRequest(changeRequestId: string, pageId: string): Promise<string> {
  const res = await t.api.call('getPageInChangeRequestById', { params: { spaceId: ws.seeded.spaceId, changeRequestId, pageId }, query: { format: 'markdown' } })
  return String((res.body as { markdown?: string }).markdown)
}

const edit = (relative: string, line: string) => ws.write(relative, `${ws.read(relative).trimEnd()}\n\n${line}\n`)

/** A teammate's change request editing `pageId`, merged into main. */
async function teammateMerges(pageId: string, markdown: string) {
  const { spaceId } = ws.seeded
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Teammate' } })).body as ChangeRequest
  await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes: [{ operation: 'update_page', page: pageId, document: { markdown } }] } })
  expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
}

describe('a save into the open change request', () => {
  it('when nobody else wrote: the read of the change request and the batch, nothing else', async () => {
    const file = 'section-1/page-11.md'
    edit(file, 'First save.')
    const first = await ws.push()
    expect(first.failures).toEqual([])
    expect(first.changeRequest).toBeDefined()

    for (const round of [1, 2, 3]) {
      edit(file, `Save ${round}.`)
      const requests = await counting(async () => {
        const pushed = await ws.push()
        expect(pushed.failures).toEqual([])
        expect(pushed.planned).toBe(1)
      })
      expect(shapes(requests)).toEqual(['GET /spaces/ID/change-requests/ID', 'POST /spaces/ID/change-requests/ID/content'])
    }
    const [cr] = await openChangeRequests(t.api, ws.seeded.spaceId)
    expect(await inChangeRequest(cr.id, pageIds.p11)).toContain('Save 3.')
  })

  it("after a teammate's merge: main's view follows by difference, a few requests and little down", async () => {
    const { spaceId } = ws.seeded
    const other = pageIds.p25
    const before = ws.cache.remoteTree(spaceId).pages.find((p) => p.id === other)!.gitOid
    await teammateMerges(other, '# Page 25\n\nRewritten by a teammate.\n')
    edit('section-1/page-11.md', 'After the merge.')
    const requests = await counting(async () => {
      const pushed = await ws.push()
      expect(pushed.failures).toEqual([])
    })
    const main = await mainRevision(t.api, spaceId)
    const mainOid = pagesOf(main).get(other)?.oid
    const after = ws.cache.remoteTree(spaceId).pages.find((p) => p.id === other)!.gitOid
    expect(after).not.toBe(before)
    expect(after).toBe(mainOid)
    expect(ws.cache.space(spaceId)?.remoteRevision).toBe(main.id)
    const down = requests.reduce((n, r) => n + r.bytes, 0)
    if (allRoutes.some((r) => r.operationId === 'getRevisionSemanticChanges')) {
      expect(shapes(requests)).toEqual([
        'GET /spaces/ID/change-requests/ID',
        'GET /spaces/ID',
        'GET /spaces/ID/revisions/ID/changes',
        'GET /spaces/ID/content/page/ID',
        'POST /spaces/ID/change-requests/ID/content',
      ])
      expect(down).toBeLessThan(100_000)
    } else {
      // A service without the changes operation (404): the tree, as before.
      expect(shapes(requests)).toContain('GET /spaces/ID/content')
    }

    // The next save, nobody having written since: main is where it was, the tree is not read again.
    edit('section-1/page-11.md', 'Once more.')
    const next = shapes(await counting(() => ws.push()))
    expect(next).not.toContain('GET /spaces/ID/content')
    expect(next.length).toBeLessThanOrEqual(3)
  })

  it('someone else edits the page inside the change request: the next save reads it back and keeps both edits', async () => {
    const file = 'section-1/page-11.md'
    const { spaceId } = ws.seeded
    const [cr] = await openChangeRequests(t.api, spaceId)
    const theirs = await inChangeRequest(cr.id, pageIds.p11)
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: pageIds.p11, document: { markdown: theirs.replace('## Details', 'A reviewer line.\n\n## Details') } }] },
    })
    edit(file, 'After the reviewer.')
    const requests = await counting(() => ws.push())
    // The change request's head is not the writer's last answer: the page is read back (today's reads),
    // and so on for the rest of this change request.
    expect(shapes(requests)).toContain('GET /spaces/ID/revisions/ID/page/ID')
    const now = await inChangeRequest(cr.id, pageIds.p11)
    expect(now).toContain('A reviewer line.')
    expect(now).toContain('After the reviewer.')
  })

  it('someone else edits another page inside the change request just before a batch arrives: a later save of that page reads it back', async () => {
    // No answer says the batch went on top of their revision (the head's parents are not in it), so the
    // chain vouches only for the pages the last batch wrote (seed 26073 of the randomized test).
    const { spaceId } = ws.seeded
    // A change request of its own, whose every head this process answered (the earlier ones were read).
    const [old] = await openChangeRequests(t.api, spaceId)
    if (old) expect((await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: old.id } })).body.result).toBe('merge')
    edit('section-1/page-11.md', 'A fresh change request.')
    // The first push takes the merge in (the workspace follows it); the next opens a change request.
    for (let push = 0; push < 3 && (await openChangeRequests(t.api, spaceId)).length === 0; push++) expect((await ws.push()).failures).toEqual([])
    const [cr] = await openChangeRequests(t.api, spaceId)
    expect(cr.id).not.toBe(old?.id)
    beforeContent = async () => {
      const theirs = await inChangeRequest(cr.id, pageIds.p12)
      await t.api.call('updateChangeRequestContent', {
        params: { spaceId, changeRequestId: cr.id },
        body: { changes: [{ operation: 'update_page', page: pageIds.p12, document: { markdown: theirs.replace('## Details', 'A reviewer line, just in time.\n\n## Details') } }] },
      })
    }
    edit('section-1/page-11.md', 'While they write.')
    expect((await ws.push()).failures).toEqual([])
    expect(beforeContent).toBeUndefined()
    expect(await inChangeRequest(cr.id, pageIds.p12)).toContain('A reviewer line, just in time.')

    edit('section-2/page-12.md', "The writer's line.")
    const requests = await counting(() => ws.push())
    expect(shapes(requests)).toContain('GET /spaces/ID/revisions/ID/page/ID')
    const now = await inChangeRequest(cr.id, pageIds.p12)
    expect(now).toContain('A reviewer line, just in time.')
    expect(now).toContain("The writer's line.")
  })
})

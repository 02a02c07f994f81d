import fs from 'node:fs'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { startLocalService } from '../../../src/main/service/local-service'
import { ApiClient, type TestService } from '../../support/service'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, seedSpace, SEED_PAGES, tempDir, Workstation } from './support/workspace'

const t = serviceForFile()

let ws: Workstation
beforeEach(async () => {
  ws = await seededWorkstation(t)
  await ws.pull()
})
afterEach(() => removeWorkstation(ws))

const spaceId = () => ws.seeded.spaceId
const idOfPath = async (p: string) => [...pagesOf(await mainRevision(t.api, spaceId()))].find(([, page]) => page.path === p)![0]

/** Someone else edits a page on the service: a change request of theirs, merged. */
async function remoteEdit(changes: unknown[]) {
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId: spaceId() }, body: { subject: 'Remote' } })).body as ChangeRequest
  await t.api.call('updateChangeRequestContent', { params: { spaceId: spaceId(), changeRequestId: cr.id }, body: { changes } })
  const merged = await t.api.call('mergeChangeRequest', { params: { spaceId: spaceId(), changeRequestId: cr.id } })
  expect(merged.body.result).toBe('merge')
}

/** Every page file of the workspace equals the service's markdown for its page. */
async function expectWorkspaceEqualsMain() {
  const main = await mainRevision(t.api, spaceId())
  for (const [id, page] of pagesOf(main)) {
    const served = (await t.api.call('getPageById', { params: { spaceId: spaceId(), pageId: id }, query: { format: 'markdown' } })).body.markdown
    expect(ws.read(page.path), page.path).toBe(served)
  }
}

describe('merging', () => {
  it('after a merge by Quire the workspace converges and the next edit starts a new change request', async () => {
    ws.write('guide/install.md', '# Install\n\nRun the installer, then restart.\n')
    ws.write('notes.md', '# Notes\n\nSome notes.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId())
    expect(await ws.pusher.merge(cr.id)).toMatchObject({ result: 'merge' })
    await ws.pull()
    await expectWorkspaceEqualsMain()
    const result = await ws.push()
    expect(result.planned).toBe(0)
    expect(await openChangeRequests(t.api, spaceId())).toEqual([])

    ws.write('faq.md', '# FAQ\n\nMore questions.\n')
    await ws.push()
    const next = await openChangeRequests(t.api, spaceId())
    expect(next).toHaveLength(1)
    expect(next[0].id).not.toBe(cr.id)
    expect(next[0].subject).toBe('Edit FAQ')
  })

  it('a merge on the service is taken in by the next push, and the merge bases move', async () => {
    ws.write('guide/install.md', '# Install\n\nRun the installer twice.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId())
    await t.api.call('mergeChangeRequest', { params: { spaceId: spaceId(), changeRequestId: cr.id } })
    const result = await ws.push()
    expect(result.settled).toMatchObject({ id: cr.id, status: 'merged' })
    await ws.pull()
    await expectWorkspaceEqualsMain()
    const journal = ws.cache.journal(spaceId()).find((j) => j.path === 'guide/install.md')!
    expect(journal.baseHash).toBe(gitBlobOid('# Install\n\nRun the installer twice.\n'))
    expect((await ws.push()).planned).toBe(0)
  })
})

describe('conflicts', () => {
  it('both sides changed: the file shows the remote version, a conflicted copy keeps the local one, nothing of it is sent until the writer saves the file', async () => {
    const install = await idOfPath('guide/install.md')
    await remoteEdit([{ operation: 'update_page', page: install, document: { markdown: '# Install\n\nRemote wording.\n' } }])
    ws.write('guide/install.md', '# Install\n\nLocal wording.\n')
    await ws.pull() // the remote change waits: the file is edited here
    expect(ws.read('guide/install.md')).toBe('# Install\n\nLocal wording.\n')

    const result = await ws.push()
    expect(result.failures).toEqual([])
    expect(result.conflicts).toHaveLength(1)
    const copy = result.conflicts[0]
    expect(copy).toMatch(/^guide\/install \(conflicted copy \d{4}-\d{2}-\d{2} \d{6}\)\.md$/)
    expect(ws.read(copy)).toBe('# Install\n\nLocal wording.\n')
    expect(ws.read('guide/install.md')).toBe('# Install\n\nRemote wording.\n')
    // A change request never carries a version that drops what main gained: nothing is sent for the page.
    expect(await openChangeRequests(t.api, spaceId())).toEqual([])

    // Nothing more happens until the writer acts; the copy is never sent as a page.
    expect((await ws.push()).planned).toBe(0)
    expect(await openChangeRequests(t.api, spaceId())).toEqual([])

    // The writer merges by hand and deletes the copy: their version goes to a change request, the conflict ends.
    ws.write('guide/install.md', '# Install\n\nRemote wording, and local wording.\n')
    fs.rmSync(ws.file(copy))
    const resolved = await ws.push()
    expect(resolved.conflicts).toEqual([])
    const [cr] = await openChangeRequests(t.api, spaceId())
    const after = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: spaceId(), changeRequestId: cr.id, pageId: install }, query: { format: 'markdown' } })).body
    expect(after.markdown).toBe('# Install\n\nRemote wording, and local wording.\n')
    expect(changedPages(await mainRevision(t.api, spaceId()), await changeRequestRevision(t.api, spaceId(), cr.id)).added).toEqual([])
  })

  it('a local edit beats a remote delete: the page is inserted again', async () => {
    const faq = await idOfPath('faq.md')
    await remoteEdit([{ operation: 'delete_page', page: faq }])
    ws.write('faq.md', '# FAQ\n\nQuestions, kept.\n')
    await ws.pull()
    expect(ws.read('faq.md')).toBe('# FAQ\n\nQuestions, kept.\n')
    await ws.push()
    const [cr] = await openChangeRequests(t.api, spaceId())
    const pages = pagesOf(await changeRequestRevision(t.api, spaceId(), cr.id))
    const back = [...pages.values()].find((p) => p.path === 'faq.md')
    expect(back).toMatchObject({ title: 'FAQ' })
  })
})

describe('comments from the editor', () => {
  it('a marker is posted once as a comment on its page, never sent as content, and leaves the file', async () => {
    const start = await idOfPath('getting-started.md')
    ws.write('getting-started.md', `${SEED_PAGES.start}\n<!-- comment: Is this still true for v2? -->\n`)
    const result = await ws.push()
    expect(result.failures).toEqual([])
    expect(result.planned).toBe(0) // only a marker was added: no content change, no change request
    expect(await openChangeRequests(t.api, spaceId())).toEqual([])
    const list = (await t.api.call('listCommentsInSpace', { params: { spaceId: spaceId() }, query: { targetPage: start } })).body.items
    expect(list.map((c: { body: { markdown: string } }) => c.body.markdown)).toEqual(['Is this still true for v2?'])
    expect(ws.read('getting-started.md')).toBe(SEED_PAGES.start)

    // An editor that saves its old buffer again does not post it twice.
    ws.write('getting-started.md', `${SEED_PAGES.start}\n<!-- comment: Is this still true for v2? -->\n`)
    await ws.push()
    expect((await t.api.call('listCommentsInSpace', { params: { spaceId: spaceId() }, query: { targetPage: start } })).body.items).toHaveLength(1)
    expect(ws.read('getting-started.md')).toBe(SEED_PAGES.start)
  })

  it('a reply marker answers a thread; markers inside code are text', async () => {
    const faq = await idOfPath('faq.md')
    const thread = (await t.api.call('postCommentInSpace', { params: { spaceId: spaceId() }, body: { page: faq, body: { markdown: 'Why?' } } })).body
    const text = `${SEED_PAGES.faq}\n\`\`\`\n<!-- comment: an example in code -->\n\`\`\`\n\n<!-- reply ${thread.id}: Because. -->\n`
    ws.write('faq.md', text)
    const result = await ws.push()
    expect(result.failures).toEqual([])
    const replies = (await t.api.call('listCommentRepliesInSpace', { params: { spaceId: spaceId(), commentId: thread.id } })).body.items
    expect(replies.map((r: { body: { markdown: string } }) => r.body.markdown)).toEqual(['Because.'])
    expect((await t.api.call('listCommentsInSpace', { params: { spaceId: spaceId() }, query: { targetPage: faq } })).body.items).toHaveLength(1)
    // The code example stays, and goes to the change request as content.
    expect(ws.read('faq.md')).toBe(`${SEED_PAGES.faq}\n\`\`\`\n<!-- comment: an example in code -->\n\`\`\`\n`)
  })
})

describe('restarts and outages', () => {
  it('a marker is posted exactly once across restarts', async () => {
    const start = await idOfPath('getting-started.md')
    ws.write('getting-started.md', `${SEED_PAGES.start}\n<!-- comment: Once only -->\n`)
    // The comment goes out, but the process dies before the marker leaves the file.
    await ws.pusher.plan()
    const plan = await ws.pusher.plan()
    expect(plan.markers).toHaveLength(1)
    await ws.push()
    ws.write('getting-started.md', `${SEED_PAGES.start}\n<!-- comment: Once only -->\n`)
    ws.close()
    const again = new Workstation(t, ws.seeded, ws.dir)
    try {
      await again.push()
      await again.push()
      expect((await t.api.call('listCommentsInSpace', { params: { spaceId: spaceId() }, query: { targetPage: start } })).body.items).toHaveLength(1)
      expect(again.read('getting-started.md')).toBe(SEED_PAGES.start)
    } finally {
      again.close()
      ws = new Workstation(t, ws.seeded, ws.dir)
    }
  })
})

describe('offline', () => {
  it('edits made while the service is down are pushed once it is back', async () => {
    const dataDir = tempDir('quire-svc-')
    const start = () => startLocalService({ dataDir, port, token: 'tok-offline', validateResponses: true })
    let port = 0
    let service = await start()
    port = Number(new URL(service.origin).port)
    const remote: TestService = { service, api: new ApiClient(service.baseUrl, 'tok-offline'), close: () => service.close() }
    const seeded = await seedSpace(remote)
    const localDir = tempDir()
    const here = new Workstation(remote, seeded, localDir)
    try {
      await here.pull()
      await service.close()
      here.write('guide/install.md', '# Install\n\nWritten offline.\n')
      here.write('offline.md', '# Offline\n\nA new page written offline.\n')
      const offline = await here.push()
      expect(offline.stopped?.reason).toBe('offline')
      expect(here.outbox.unfinished(seeded.spaceId).length).toBeGreaterThan(0)

      service = await start()
      const back = await here.push()
      expect(back.failures).toEqual([])
      expect(back.stopped).toBeUndefined()
      const crs = await openChangeRequests(remote.api, seeded.spaceId)
      expect(crs).toHaveLength(1)
      const diff = changedPages(await mainRevision(remote.api, seeded.spaceId), await changeRequestRevision(remote.api, seeded.spaceId, crs[0].id))
      expect(diff.changed).toHaveLength(1)
      expect(diff.added).toHaveLength(1)
    } finally {
      here.close()
      await service.close()
      fs.rmSync(localDir, { recursive: true, force: true })
      fs.rmSync(dataDir, { recursive: true, force: true })
    }
  })
})

import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { seedSpace, tempDir } from '../engine/sync-up/support/workspace'

/**
 * Issue 25, item 2, through the app's backend: each action was queued under a random key, so a comment
 * (or a review) asked twice while the service was down was posted twice. Keyed by what it is, the second
 * ask is the same operation, and the answer says so (`repeat`), for the UI to tell.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = restartableServiceForFile()

async function cycle(backend: QuireBackend) {
  await backend.requestPass(true)
  await backend.idle()
}

describe('the same action asked twice through the app is one operation', () => {
  const dir = tempDir('quire-app-repeat-')
  const opened: QuireBackend[] = []
  let spaceId: string
  let writer: QuireBackend
  let reviewer: QuireBackend

  async function open(name: string, token: string): Promise<QuireBackend> {
    const backend = await QuireBackend.open({ dataDir: path.join(dir, name), autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    opened.push(backend)
    await backend.signIn({ endpoint: t.service.origin, token })
    await backend.updateSettings({ workspace: path.join(dir, `${name}-workspace`) })
    await backend.listSpaces()
    await backend.setSelection({ kind: 'space', id: spaceId, selected: true })
    await cycle(backend)
    return backend
  }

  beforeAll(async () => {
    const seeded = await seedSpace(t)
    spaceId = seeded.spaceId
    const person = t.service.createUser({ displayName: 'Rae Reviewer', email: 'rae@example.com' })
    t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, person.id, null)
    grant(t.service, spaceId, person.id, 'review')
    writer = await open('writer', t.service.token)
    reviewer = await open('reviewer', person.token)
  })

  afterAll(async () => {
    if (!t.running) await t.start()
    for (const backend of opened) await backend.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const comments = async (markdown: string) =>
    ((await t.api.call('listCommentsInSpace', { params: { spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Array<{ id: string; status: string; body: { markdown: string } }>).filter(
      (c) => c.body.markdown === markdown,
    )

  it('a comment and a resolve asked twice offline: one each, the second answer says already queued; once sent, already sent', async () => {
    const page = (await writer.listPages({ spaceId })).find((p) => p.title === 'FAQ')!
    const earlier = await writer.postComment({ spaceId, pageId: page.id, markdown: 'An earlier question?' })
    expect(earlier.repeat).toBeUndefined()

    await t.stop()
    let first, second, resolvedOnce, resolvedTwice
    try {
      first = await writer.postComment({ spaceId, pageId: page.id, markdown: 'Is this list complete?' })
      second = await writer.postComment({ spaceId, pageId: page.id, markdown: 'Is this list  complete?\n' })
      resolvedOnce = await writer.resolveComment({ spaceId, commentId: earlier.id })
      resolvedTwice = await writer.resolveComment({ spaceId, commentId: earlier.id })
    } finally {
      await t.start()
    }
    expect(first).toMatchObject({ waiting: expect.any(String) })
    expect(first.repeat).toBeUndefined()
    expect(second).toMatchObject({ id: first.id, waiting: expect.any(String), repeat: 'queued' })
    expect(resolvedOnce.repeat).toBeUndefined()
    expect(resolvedTwice).toMatchObject({ waiting: expect.any(String), repeat: 'queued' })
    expect((await writer.listActivity()).at(-1)?.message).toMatch(/already queued/)

    await cycle(writer)
    expect(await comments('Is this list complete?')).toHaveLength(1)
    expect((await comments('An earlier question?')).map((c) => c.status)).toEqual(['resolved'])

    const third = await writer.postComment({ spaceId, pageId: page.id, markdown: 'Is this list complete?' })
    expect(third).toMatchObject({ repeat: 'sent', markdown: 'Is this list complete?' })
    expect(third.waiting).toBeUndefined()
    expect(await comments('Is this list complete?')).toHaveLength(1)
  })

  it('a review verdict asked twice offline is one review', async () => {
    const folder = (await writer.getStatus()).spaces[0].folder!
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nA draft to review.\n')
    await cycle(writer)
    const [cr] = await writer.listChangeRequests({ mine: true })
    await writer.submitForReview({ spaceId, changeRequestId: cr.id })
    // The reviewer's list mirrors the change request (as the app does before a review).
    await reviewer.listChangeRequests({ spaceId })

    await t.stop()
    let once, twice
    try {
      once = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'approved', comment: 'Looks right.' })
      twice = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'approved', comment: ' Looks right. ' })
    } finally {
      await t.start()
    }
    expect(once.repeat).toBeUndefined()
    expect(twice).toMatchObject({ id: cr.id, waiting: expect.any(String), repeat: 'queued' })
    await cycle(reviewer)
    await cycle(reviewer)
    const reviews = (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId: cr.id } })).body.items as Array<{ status: string }>
    expect(reviews.map((r) => r.status)).toEqual(['approved'])
  })

  it('a verdict waiting offline and asked again after the writer pushed is still one review', async () => {
    const folder = (await writer.getStatus()).spaces[0].folder!
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nA second draft to review.\n')
    await cycle(writer)
    const cr = (await writer.listChangeRequests({ mine: true })).at(-1)!
    await reviewer.listChangeRequests({ spaceId })

    await t.stop()
    let once
    try {
      once = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'changes-requested', comment: 'One more step, please.' })
    } finally {
      await t.start()
    }
    expect(once.repeat).toBeUndefined()
    // The writer pushes again before the reviewer's verdict went out; the reviewer's list learns the new revision.
    fs.appendFileSync(path.join(folder, 'guide', 'install.md'), '\nAnd one more line.\n')
    await cycle(writer)
    await reviewer.listChangeRequests({ spaceId })
    const twice = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: cr.id, verdict: 'changes-requested', comment: 'One more step, please.' })
    expect(twice).toMatchObject({ repeat: 'queued' })
    await cycle(reviewer)
    await cycle(reviewer)
    const reviews = (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId: cr.id } })).body.items as Array<{ status: string }>
    // The change request is the writer's one (the earlier test approved it): one verdict more, not two.
    expect(reviews.map((r) => r.status).sort()).toEqual(['approved', 'changes-requested'])
  })

  it("a verdict sent before the reviewer's list knew the change request, asked again after it did: already sent, one review", async () => {
    const created = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Made elsewhere' } })).body as { id: string }
    // The reviewer's mirror has never seen this change request: the first verdict is asked knowing no revision.
    const once = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: created.id, verdict: 'approved', comment: 'Fine as it is.' })
    expect(once.repeat).toBeUndefined()
    expect(once.waiting).toBeUndefined()
    await reviewer.listChangeRequests({ spaceId })
    const twice = await reviewer.reviewChangeRequest({ spaceId, changeRequestId: created.id, verdict: 'approved', comment: 'Fine as it is.' })
    expect(twice).toMatchObject({ repeat: 'sent' })
    await cycle(reviewer)
    const reviews = (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId: created.id } })).body.items as Array<{ status: string }>
    expect(reviews.map((r) => r.status)).toEqual(['approved'])
  })
})

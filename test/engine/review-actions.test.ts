import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import type { OutboxOp } from '../../src/main/engine/outbox/outbox-types'
import { InvalidReviewInputError, ReviewSession } from '../../src/main/engine/session/review-session'
import { ActionRefusedError, WorkspaceSession } from '../../src/main/engine/session/workspace-session'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { grant } from '../support/content-fixtures'
import { restartableServiceForFile } from './sync-up/support/restartable-service'
import { openChangeRequests, remoteOf, seedSpace, tempDir, Workstation, type Remote, type SeededSpace } from './sync-up/support/workspace'

/**
 * The review workflow through the one engine path (issue 13): each action is an outbox op sent by the
 * workspace session, over the real local service and a real SQLite cache. Online it goes out once;
 * offline it waits and goes out once when the service is back; a lost answer is looked for before
 * anything is sent again; the service's refusal names its reason.
 */

const t = restartableServiceForFile()

type Person = { id: string; token: string }

/** Which writes the network cuts after the service answered (the answer is lost, the service acted). */
class Network {
  cut: RegExp | undefined
  fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const response = await fetch(input, init)
    const method = (init?.method ?? 'GET').toUpperCase()
    if (!this.cut || method === 'GET' || !this.cut.test(url)) return response
    const bytes = new Uint8Array(await response.arrayBuffer())
    const body = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(bytes.slice(0, 10))
        controller.error(new TypeError('terminated'))
      },
    })
    return new Response(body, { status: response.status, headers: response.headers })
  }
}

/** One person's machine: a cache, a workspace with the selected spaces, the session and its review actions. */
interface Desk {
  ws: Workstation
  session: WorkspaceSession
  reviews: ReviewSession
  network: Network
}

const desks: Desk[] = []
afterEach(async () => {
  if (!t.running) await t.start()
  for (const desk of desks.splice(0)) {
    await desk.session.stop()
    desk.ws.close()
    fs.rmSync(desk.ws.dir, { recursive: true, force: true })
  }
})

async function deskOf(remote: Remote, spaces: SeededSpace[]): Promise<Desk> {
  const network = new Network()
  const ws = new Workstation(remote, spaces[0], tempDir('quire-review-'), { gateway: { fetch: network.fetch } })
  const account = ws.cache.activeAccount()!
  for (const [i, s] of spaces.entries()) {
    ws.cache.upsertOrganization({ id: s.orgId, accountId: account.id, title: `Acme ${i}` })
    ws.cache.setOrganizationFolder(s.orgId, i === 0 ? 'Acme' : `Acme ${i}`)
    ws.cache.upsertSpace({ id: s.spaceId, orgId: s.orgId, title: 'Docs' })
    ws.cache.setSpaceFolder(s.spaceId, 'Docs')
  }
  ws.cache.setSelection({ spaces: spaces.map((s) => s.spaceId) })
  const session = new WorkspaceSession({ cache: ws.cache, outbox: ws.outbox, comments: ws.comments, account, gateway: ws.gateway, workspace: () => path.join(ws.dir, 'workspace'), watch: false })
  const desk = { ws, session, reviews: new ReviewSession(session, ws), network }
  desks.push(desk)
  await session.syncNow()
  return desk
}

/** A space whose owner is the writer, with a reviewer (review role, organization member) who has a desk too. */
async function arrange(extraSpaces: SeededSpace[] = []) {
  const seeded = await seedSpace(t)
  const reviewer = newPerson('Reviewer')
  for (const s of [seeded, ...extraSpaces]) admit(s, reviewer, 'review')
  const writer = await deskOf(remoteOf(t), [seeded])
  const reviewing = await deskOf(remoteOf(t, reviewer.token, reviewer.id), [seeded, ...extraSpaces])
  return { seeded, spaceId: seeded.spaceId, reviewer, writer, reviewing }
}

let people = 0
function newPerson(name: string): Person {
  people++
  return t.service.createUser({ displayName: name, email: `${name.toLowerCase()}-${people}@example.com` })
}

function admit(s: SeededSpace, person: Person, role: 'review' | 'edit' | 'read') {
  t.service.store.repo(OrganizationsRepository).setMember(s.orgId, person.id, null)
  grant(t.service, s.spaceId, person.id, role)
}

/** The writer edits a page and pushes: their one change request carries it. */
async function writerEdits(desk: Desk, spaceId: string, text: string): Promise<ChangeRequest> {
  desk.ws.write('guide/install.md', `# Install\n\n${text}\n`)
  await desk.session.push(spaceId)
  const open = await openChangeRequests(t.api, spaceId)
  expect(open).toHaveLength(1)
  return open[0]
}

const getCr = async (spaceId: string, id: string) => (await t.api.call('getChangeRequestById', { params: { spaceId, changeRequestId: id } })).body as ChangeRequest
const reviewsOn = async (spaceId: string, id: string) => (await t.api.call('getReviewsByChangeRequestId', { params: { spaceId, changeRequestId: id } })).body.items as any[]
const askedOn = async (spaceId: string, id: string) =>
  ((await t.api.call('getRequestedReviewersByChangeRequestId', { params: { spaceId, changeRequestId: id } })).body.items as any[]).map((r) => r.user.id)
const opsOf = (desk: Desk, spaceId: string, kind: OutboxOp['kind']) => desk.ws.outbox.ops(spaceId, 1000).filter((op) => op.kind === kind)

async function refusal(action: Promise<unknown>): Promise<ActionRefusedError> {
  const error = await action.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(ActionRefusedError)
  return error as ActionRefusedError
}

describe('the review workflow through the workspace session', () => {
  it('submit, ask, request changes, edit (the review is outdated, the change request stays open and the same), approve, merge when the rule allows', async () => {
    const { spaceId, reviewer, writer, reviewing } = await arrange()
    const cr = await writerEdits(writer, spaceId, 'First draft.')
    expect(cr.status).toBe('draft')
    expect((await reviewing.reviews.waitingForMyReview()).items).toEqual([])

    const submitted = await writer.reviews.submitForReview(spaceId, cr.id, { description: 'Explains the **installer**.' })
    expect(submitted.sent).toBe(true)
    expect(await getCr(spaceId, cr.id)).toMatchObject({ status: 'open', description: { object: 'document' } })
    expect(JSON.stringify((await getCr(spaceId, cr.id)).description)).toContain('installer')
    expect(writer.ws.outbox.changeRequest(cr.id)?.status).toBe('open')

    // The space's rule: the reviewer must approve. The merge is refused with the service's reason.
    await t.api.call('updateSpaceById', { params: { spaceId }, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reviewer.id] }] } } })
    const refused = await refusal(writer.reviews.merge(spaceId, cr.id))
    expect(refused.message).toMatch(/HTTP 400: .*approving review from Reviewer/)
    expect((await getCr(spaceId, cr.id)).status).toBe('open')

    expect((await writer.reviews.requestReviewers(spaceId, cr.id, [reviewer.id])).sent).toBe(true)
    expect(await askedOn(spaceId, cr.id)).toEqual([reviewer.id])
    const waiting = await reviewing.reviews.waitingForMyReview()
    expect(waiting.items).toMatchObject([{ id: cr.id, number: cr.number, spaceId, author: 'Quire Owner' }])
    expect(waiting.items[0].myReview).toBeUndefined()
    expect(waiting.asOf).toBeUndefined()

    const asked = await reviewing.reviews.review(spaceId, cr.id, 'changes-requested', 'Please say which version.')
    expect(asked).toMatchObject({ sent: true, op: { state: 'done', result: { review: { status: 'changes-requested', outdated: false } } } })
    expect((await reviewing.reviews.waitingForMyReview()).items).toEqual([])
    expect(await writer.reviews.reviewers(spaceId, cr.id)).toEqual([
      { userId: reviewer.id, name: 'Reviewer', requested: true, verdict: 'changes-requested', outdated: false, reviewedAt: expect.any(String), comment: 'Please say which version.' },
    ])
    // The review's comment is one of the change request's comments (with no page).
    const comments = (await t.api.call('listCommentsInChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.items as any[]
    expect(comments.map((c) => c.target.review)).toEqual([(asked.op.result as any).review.id])

    // The writer edits again: the same change request, still open; the review is outdated and waits again.
    const again = await writerEdits(writer, spaceId, 'Second draft, for version 2.')
    expect(again).toMatchObject({ id: cr.id, status: 'open' })
    expect((await writer.reviews.reviewers(spaceId, cr.id))[0]).toMatchObject({ verdict: 'changes-requested', outdated: true, requested: true })
    expect((await reviewing.reviews.waitingForMyReview()).items).toMatchObject([{ id: cr.id, myReview: { verdict: 'changes-requested' } }])
    await refusal(writer.reviews.merge(spaceId, cr.id))

    expect((await reviewing.reviews.review(spaceId, cr.id, 'approved')).sent).toBe(true)
    const merged = await writer.reviews.merge(spaceId, cr.id)
    expect(merged).toMatchObject({ sent: true, op: { result: { result: 'merge' } } })
    await writer.session.idle()
    expect((await getCr(spaceId, cr.id)).status).toBe('merged')
    // The workspace follows the merged revision; the next edit starts a new change request.
    expect(writer.ws.read('guide/install.md')).toBe('# Install\n\nSecond draft, for version 2.\n')
    const next = await writerEdits(writer, spaceId, 'Third.')
    expect(next.id).not.toBe(cr.id)

    // Each action went out once: one op each, done, and the service has exactly what they made.
    expect((await reviewsOn(spaceId, cr.id)).map((r) => [r.status, r.outdated])).toEqual([
      ['approved', false],
      ['changes-requested', true],
    ])
    for (const kind of ['submit-for-review', 'request-reviewers'] as const) expect(opsOf(writer, spaceId, kind).map((op) => op.state)).toEqual(['done'])
    expect(opsOf(reviewing, spaceId, 'review').map((op) => op.state)).toEqual(['done', 'done'])
    // Newest first: the merge the rule allowed, after the two it refused.
    expect(opsOf(writer, spaceId, 'merge').map((op) => op.state)).toEqual(['done', 'failed', 'failed'])
  })

  it('offline, each action waits in the outbox and goes out once when the service is back', async () => {
    const { seeded, spaceId, reviewer, writer, reviewing } = await arrange()
    const second = newPerson('Second')
    admit(seeded, second, 'review')
    const cr = await writerEdits(writer, spaceId, 'Draft.')

    await t.stop()
    const waits = [
      await writer.reviews.submitForReview(spaceId, cr.id, { description: 'Offline description.' }),
      await writer.reviews.requestReviewers(spaceId, cr.id, [reviewer.id, second.id]),
      await writer.reviews.removeReviewer(spaceId, cr.id, second.id),
    ]
    // Pending, or sending when the gateway cannot tell the request never left (then it is looked for before it is sent again).
    for (const outcome of waits) expect(outcome).toMatchObject({ sent: false, op: { state: expect.stringMatching(/^(pending|sending)$/) }, waiting: expect.stringMatching(/reach/) })
    await t.start()
    await writer.session.push(spaceId)
    expect(writer.ws.outbox.unfinished(spaceId)).toEqual([])
    expect((await getCr(spaceId, cr.id)).status).toBe('open')
    expect(await askedOn(spaceId, cr.id)).toEqual([reviewer.id])
    expect(waits.map((w) => writer.ws.outbox.op(w.op.seq)?.state)).toEqual(['done', 'done', 'done'])

    expect((await reviewing.reviews.waitingForMyReview()).items.map((i) => i.id)).toEqual([cr.id])
    await t.stop()
    const review = await reviewing.reviews.review(spaceId, cr.id, 'approved', 'Looks right.')
    expect(review).toMatchObject({ sent: false, op: { state: expect.stringMatching(/^(pending|sending)$/) } })
    const offlineQueue = await reviewing.reviews.waitingForMyReview()
    expect(offlineQueue).toMatchObject({ asOf: expect.any(String), items: [{ id: cr.id }] })
    await t.start()
    await reviewing.session.push(spaceId)
    await reviewing.session.push(spaceId) // a second push finds nothing left to send
    expect((await reviewsOn(spaceId, cr.id)).map((r) => [r.reviewer.id, r.status, r.comment?.body?.markdown])).toEqual([[reviewer.id, 'approved', 'Looks right.']])

    await t.stop()
    const archive = await writer.reviews.archive(spaceId, cr.id)
    expect(archive.sent).toBe(false)
    await t.start()
    await writer.session.push(spaceId)
    expect(writer.ws.outbox.op(archive.op.seq)?.state).toBe('done')
    expect((await getCr(spaceId, cr.id)).status).toBe('archived')
    // The writer's change request was closed: their next edit starts a new one.
    const next = await writerEdits(writer, spaceId, 'After the archive.')
    expect(next.id).not.toBe(cr.id)
  })

  it('a lost answer is looked for on the service: the review and the request are not made twice', async () => {
    const { spaceId, reviewer, writer, reviewing } = await arrange()
    const cr = await writerEdits(writer, spaceId, 'Draft.')

    writer.network.cut = /\/requested-reviewers$/
    const asking = await writer.reviews.requestReviewers(spaceId, cr.id, [reviewer.id])
    expect(asking).toMatchObject({ sent: false, op: { state: 'sending' } })
    writer.network.cut = undefined

    reviewing.network.cut = /\/reviews$/
    const reviewed = await reviewing.reviews.review(spaceId, cr.id, 'changes-requested', 'One thing.')
    expect(reviewed).toMatchObject({ sent: false, op: { state: 'sending' } })
    reviewing.network.cut = undefined

    // Back: the writer's request is found made (asking again would outdate the review made since).
    await writer.session.push(spaceId)
    await reviewing.session.push(spaceId)
    expect(writer.ws.outbox.op(asking.op.seq)).toMatchObject({ state: 'done', result: { users: [reviewer.id] } })
    expect(reviewing.ws.outbox.op(reviewed.op.seq)).toMatchObject({ state: 'done', result: { review: { status: 'changes-requested' } } })
    expect((await reviewsOn(spaceId, cr.id)).map((r) => [r.status, r.outdated])).toEqual([['changes-requested', false]])
    expect(await askedOn(spaceId, cr.id)).toEqual([reviewer.id])
    expect((await t.api.call('listCommentsInChangeRequest', { params: { spaceId, changeRequestId: cr.id } })).body.items).toHaveLength(1)
  })

  it('the service refuses with its reason; a refused op holds nothing back; bad input writes nothing', async () => {
    const { spaceId, reviewer, writer, reviewing } = await arrange()
    const reader = newPerson('Reader')
    const cr = await writerEdits(writer, spaceId, 'Draft.')
    const before = writer.ws.outbox.ops(spaceId, 1000).length

    expect((await refusal(writer.reviews.requestReviewers(spaceId, cr.id, ['nosuchuser']))).message).toMatch(/HTTP 400: .*no user nosuchuser/)
    expect((await refusal(writer.reviews.requestReviewers(spaceId, cr.id, [reader.id]))).message).toMatch(/cannot review/)
    expect((await refusal(writer.reviews.review(spaceId, cr.id, 'approved'))).message).toMatch(/HTTP 403: .*someone else must review it/)
    expect(await reviewsOn(spaceId, cr.id)).toEqual([])
    // The refusals are answered; the next action goes out.
    expect((await writer.reviews.requestReviewers(spaceId, cr.id, [reviewer.id])).sent).toBe(true)
    expect(writer.ws.outbox.ops(spaceId, 1000).length).toBe(before + 4)

    for (const bad of [
      () => writer.reviews.requestReviewers(spaceId, cr.id, []),
      () => writer.reviews.requestReviewers(spaceId, cr.id, ['a b']),
      () => writer.reviews.removeReviewer(spaceId, cr.id, '../x'),
      () => reviewing.reviews.review(spaceId, cr.id, 'maybe' as never),
      () => reviewing.reviews.review('no-such-space', cr.id, 'approved'),
      () => writer.reviews.archive(spaceId, ' '),
    ]) {
      expect(bad).toThrow(InvalidReviewInputError)
    }
    expect(writer.ws.outbox.ops(spaceId, 1000).length).toBe(before + 4)
    expect(reviewing.ws.outbox.ops(spaceId, 1000).length).toBe(0)

    expect((await writer.reviews.archive(spaceId, cr.id)).sent).toBe(true)
    expect((await refusal(reviewing.reviews.review(spaceId, cr.id, 'approved'))).message).toMatch(/HTTP 400: .*archived/)
    expect((await writer.reviews.submitForReview(spaceId, cr.id)).sent).toBe(true) // reopened
    expect((await reviewing.reviews.merge(spaceId, cr.id)).sent).toBe(true)
    expect((await refusal(writer.reviews.submitForReview(spaceId, cr.id))).message).toMatch(/HTTP 409: .*merged/)
    expect((await refusal(reviewing.reviews.review(spaceId, cr.id, 'approved'))).message).toMatch(/merged/)
  })

  it('waiting for my review spans the selected spaces of several organizations: asked, open, and not reviewed since it changed', async () => {
    const other = await seedSpace(t, 'Handbook')
    const { spaceId, reviewer, writer, reviewing } = await arrange([other])
    const elsewhere = newPerson('Elsewhere')
    admit({ orgId: other.orgId, spaceId: other.spaceId }, elsewhere, 'review')
    const ask = (s: string, id: string, users: string[]) =>
      t.api.call('requestReviewersForChangeRequest', { params: { spaceId: s, changeRequestId: id }, body: { users } }).then((r) => expect(r.status).toBe(200))
    const newCr = async (s: string, subject: string) => (await t.api.call('createChangeRequest', { params: { spaceId: s }, body: { subject } })).body as ChangeRequest

    const mine = await writerEdits(writer, spaceId, 'Draft.')
    await ask(spaceId, mine.id, [reviewer.id])
    const there = await newCr(other.spaceId, 'In the handbook')
    await ask(other.spaceId, there.id, [reviewer.id])
    const notMe = await newCr(other.spaceId, 'For someone else')
    await ask(other.spaceId, notMe.id, [elsewhere.id])
    const done = await newCr(other.spaceId, 'Already reviewed')
    await ask(other.spaceId, done.id, [reviewer.id])
    expect((await reviewing.reviews.review(other.spaceId, done.id, 'approved')).sent).toBe(true)
    const draft = await newCr(other.spaceId, 'Back to draft')
    await ask(other.spaceId, draft.id, [reviewer.id])
    await t.api.call('updateChangeRequestById', { params: { spaceId: other.spaceId, changeRequestId: draft.id }, body: { status: 'draft' } })

    const queue = await reviewing.reviews.waitingForMyReview()
    expect(queue.items.map((i) => [i.spaceId, i.subject]).sort()).toEqual(
      [
        [spaceId, mine.subject],
        [other.spaceId, 'In the handbook'],
      ].sort(),
    )
    // The change requests are mirrored: a number resolves later, offline too.
    expect(reviewing.ws.outbox.changeRequest(there.id)?.number).toBe(there.number)

    await t.stop()
    const offline = await reviewing.reviews.waitingForMyReview()
    expect(offline.items).toEqual(queue.items)
    expect(offline.asOf).toEqual(expect.any(String))
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

type Person = { id: string; token: string }

describe('change request reviews', () => {
  let t: TestService
  let writer: Person
  let reviewer: Person
  let second: Person
  let editor: Person
  let commenter: Person
  let reader: Person
  let stranger: Person

  beforeAll(async () => {
    t = await startTestService()
    const person = (name: string) => t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    writer = person('Writer')
    reviewer = person('Reviewer')
    second = person('Second')
    editor = person('Editor')
    commenter = person('Commenter')
    reader = person('Reader')
    stranger = person('Stranger')
  })
  afterAll(() => t.close())

  function space(): ArrangedSpace {
    const s = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n'), page('guide', '# Guide\n\nOld text.\n')])
    grant(t.service, s.spaceId, writer.id, 'edit')
    grant(t.service, s.spaceId, reviewer.id, 'review')
    grant(t.service, s.spaceId, second.id, 'review')
    grant(t.service, s.spaceId, editor.id, 'edit')
    grant(t.service, s.spaceId, commenter.id, 'comment')
    grant(t.service, s.spaceId, reader.id, 'read')
    return s
  }

  /** A draft change request the writer made, with one edit. */
  async function draft(s: ArrangedSpace, subject = 'Edits') {
    const cr = (await t.api.as(writer.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject } })).body
    await edit(s, cr, 'First edit.')
    return cr as { id: string; number: number }
  }

  const edit = (s: ArrangedSpace, cr: { id: string }, text: string, who = writer) =>
    t.api.as(who.token).call('updateChangeRequestContent', {
      params: { spaceId: s.spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: s.pages.guide, document: { markdown: `# Guide\n\n${text}\n` } }] },
    })

  const crParams = (s: ArrangedSpace, cr: { id: string }) => ({ spaceId: s.spaceId, changeRequestId: cr.id })
  const getCr = async (s: ArrangedSpace, cr: { id: string }) => (await t.api.call('getChangeRequestById', { params: crParams(s, cr) })).body
  const review = (s: ArrangedSpace, cr: { id: string }, who: Person, body: Record<string, unknown>) =>
    t.api.as(who.token).call('submitChangeRequestReview', { params: crParams(s, cr), body })
  const reviews = async (s: ArrangedSpace, cr: { id: string }, query: Record<string, string | boolean> = {}) =>
    (await t.api.call('getReviewsByChangeRequestId', { params: crParams(s, cr), query })).body.items as any[]
  const requested = async (s: ArrangedSpace, cr: { id: string }) =>
    (await t.api.call('getRequestedReviewersByChangeRequestId', { params: crParams(s, cr) })).body.items as any[]
  const ask = (s: ArrangedSpace, cr: { id: string }, body: Record<string, unknown>, who = writer) =>
    t.api.as(who.token).call('requestReviewersForChangeRequest', { params: crParams(s, cr), body })

  describe('submitting for review', () => {
    it('asking for reviewers submits a draft (draft -> open) and can set subject and description', async () => {
      const s = space()
      const cr = await draft(s)
      const description = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why', marks: [] }] }] }] }
      const res = await ask(s, cr, { users: [reviewer.id, second.id, reviewer.id], subject: 'Ready for review', description })
      expect(res.status).toBe(200)
      expect(res.body.users).toHaveLength(2)
      expect(res.body.users[0]).toMatchObject({
        object: 'change-request-requested-reviewer',
        kind: 'user',
        user: { id: reviewer.id },
        requestedBy: { id: writer.id },
        revision: (await getCr(s, cr)).revision,
      })
      const after = await getCr(s, cr)
      expect(after).toMatchObject({ status: 'open', subject: 'Ready for review', description: { nodes: [{ type: 'paragraph' }] } })
      expect((await requested(s, cr)).map((r) => r.user.id)).toEqual([reviewer.id, second.id])
      // Open now, so it shows in the default list and in the reviewer's "requested" filter.
      const open = await t.api.call('listChangeRequestsForSpace', { params: { spaceId: s.spaceId } })
      expect(open.body.items.map((c: { id: string }) => c.id)).toEqual([cr.id])
    })

    it('updates status through updateChangeRequestById: submit, back to draft, archive, reopen; merged stays merged', async () => {
      const s = space()
      const cr = await draft(s)
      const patch = (status: string, who = writer) => t.api.as(who.token).call('updateChangeRequestById', { params: crParams(s, cr), body: { status } })
      expect((await patch('open')).body.status).toBe('open')
      expect((await patch('draft')).body.status).toBe('draft')
      expect((await patch('archived', reviewer)).body.status).toBe('archived')
      const archived = await t.api.call('listChangeRequestsForSpace', { params: { spaceId: s.spaceId }, query: { status: 'archived' } })
      expect(archived.body.items.map((c: { id: string }) => c.id)).toEqual([cr.id])
      expect((await patch('open')).body.status).toBe('open')

      const before = await getCr(s, cr)
      for (const status of ['merged', 'closed', '']) {
        const bad = await patch(status)
        expect(bad.status).toBe(400)
        expect(bad.body.error.message).toContain('status')
      }
      expect((await patch('archived', reader)).status).toBe(403)
      expect((await patch('archived', stranger)).status).toBe(404)
      expect(await getCr(s, cr)).toEqual(before)

      await t.api.as(reviewer.token).call('mergeChangeRequest', { params: crParams(s, cr) })
      const reopen = await patch('open')
      expect(reopen.status).toBe(409)
      expect((await getCr(s, cr)).status).toBe('merged')
    })
  })

  describe('reviews', () => {
    it('records approvals and change requests against the head; an edit after a review marks it outdated', async () => {
      const s = space()
      const cr = await draft(s)
      await ask(s, cr, { users: [reviewer.id] })
      const head = (await getCr(s, cr)).revision

      const asked = await review(s, cr, reviewer, { status: 'changes-requested', comment: { markdown: 'Please fix the guide.' } })
      expect(asked.status).toBe(201)
      expect(asked.body).toMatchObject({
        object: 'change-request-review',
        status: 'changes-requested',
        revision: head,
        reviewer: { id: reviewer.id },
        requestedBy: { id: writer.id },
        outdated: false,
        comment: { object: 'comment', body: { markdown: 'Please fix the guide.' }, target: { review: asked.body.id, changeRequest: cr.id } },
      })
      expect(asked.headers.get('location')).toBe(asked.body.urls.location)
      expect(asked.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${s.spaceId}/change-requests/${cr.id}/reviews/${asked.body.id}`)
      // The review's comment is one of the change request's comments.
      const comments = await t.api.call('listCommentsInChangeRequest', { params: crParams(s, cr) })
      expect(comments.body.items.map((c: { id: string }) => c.id)).toEqual([asked.body.comment.id])

      await edit(s, cr, 'Fixed text.')
      const fetched = await t.api.call('getChangeRequestReviewById', { params: { ...crParams(s, cr), reviewId: asked.body.id }, query: { format: 'document' } })
      expect(fetched.body).toMatchObject({ id: asked.body.id, outdated: true, revision: head })
      expect(fetched.body.comment.body.document).toMatchObject({ object: 'document' })

      const approved = await review(s, cr, reviewer, { status: 'approved' })
      expect(approved.body).toMatchObject({ status: 'approved', outdated: false, revision: (await getCr(s, cr)).revision })
      expect(approved.body.comment).toBeUndefined()
      expect((await reviews(s, cr)).map((r) => [r.status, r.outdated])).toEqual([
        ['approved', false],
        ['changes-requested', true],
      ])
      expect((await reviews(s, cr, { outdated: true })).map((r) => r.id)).toEqual([asked.body.id])
      expect((await reviews(s, cr, { outdated: false })).map((r) => r.id)).toEqual([approved.body.id])
      expect((await getCr(s, cr)).status).toBe('open')
    })

    it('a later review, or asking the reviewer again, supersedes their review even on the same revision', async () => {
      const s = space()
      const cr = await draft(s)
      const first = await review(s, cr, reviewer, { status: 'approved', comment: {} })
      expect(first.body.requestedBy).toBeUndefined()
      expect(first.body.comment).toBeUndefined()
      const other = await review(s, cr, second, { status: 'approved' })
      const again = await review(s, cr, reviewer, { status: 'changes-requested' })
      expect((await reviews(s, cr)).map((r) => [r.id, r.outdated])).toEqual([
        [again.body.id, false],
        [other.body.id, false],
        [first.body.id, true],
      ])
      await ask(s, cr, { users: [reviewer.id] })
      const after = await reviews(s, cr)
      expect(after.find((r) => r.id === again.body.id).outdated).toBe(true)
      expect(after.find((r) => r.id === other.body.id).outdated).toBe(false)
    })

    it('a review bumps the change request updatedAt, so a client polling the list sees it', async () => {
      const s = space()
      const cr = await draft(s)
      // Set back in time, so the bump shows whatever the clock's resolution.
      const before = '2020-01-01T00:00:00.000Z'
      t.service.store.db.prepare('UPDATE change_requests SET updated_at = ? WHERE id = ?').run(before, cr.id)
      await review(s, cr, reviewer, { status: 'approved' })
      expect((await getCr(s, cr)).updatedAt > before).toBe(true)
    })

    it('an editor may review once asked; readers, commenters, unasked editors and the author may not', async () => {
      const s = space()
      const cr = await draft(s)
      const refused = async (who: Person, status: number, text: string) => {
        const res = await review(s, cr, who, { status: 'approved' })
        expect(res.status).toBe(status)
        expect(res.body.error.message).toContain(text)
      }
      await refused(reader, 403, 'review role')
      await refused(commenter, 403, 'review role')
      await refused(editor, 403, 'review role')
      await refused(writer, 403, 'someone else')
      await refused(stranger, 404, 'could not be found')
      expect(await reviews(s, cr)).toEqual([])

      await ask(s, cr, { users: [editor.id] })
      expect((await review(s, cr, editor, { status: 'approved' })).status).toBe(201)
    })

    it('answers 404 for an unknown review, change request or space', async () => {
      const s = space()
      const cr = await draft(s)
      expect((await t.api.call('getChangeRequestReviewById', { params: { ...crParams(s, cr), reviewId: 'nope' } })).status).toBe(404)
      expect((await t.api.call('getReviewsByChangeRequestId', { params: { spaceId: s.spaceId, changeRequestId: 'nope' } })).status).toBe(404)
      expect((await t.api.call('getReviewsByChangeRequestId', { params: { spaceId: 'nope', changeRequestId: cr.id } })).status).toBe(404)
      // A review is only found through its own change request.
      const other = await draft(s, 'Other')
      const made = await review(s, cr, reviewer, { status: 'approved' })
      expect((await t.api.call('getChangeRequestReviewById', { params: { ...crParams(s, other), reviewId: made.body.id } })).status).toBe(404)
    })

    it('refuses bad input and writes nothing: bad status, merged or archived change requests', async () => {
      const s = space()
      const cr = await draft(s)
      const state = async () => ({ cr: await getCr(s, cr), reviews: await reviews(s, cr), comments: (await t.api.call('listCommentsInChangeRequest', { params: crParams(s, cr) })).body.items })
      const before = await state()
      for (const body of [{ status: 'rejected' }, {}, { status: 'approved', comment: { markdown: 5 } }]) {
        const res = await review(s, cr, reviewer, body)
        expect(res.status).toBe(400)
        expect(res.body.error.message).toMatch(/body/)
      }
      expect((await t.api.raw('POST', `/spaces/${s.spaceId}/change-requests/${cr.id}/reviews`, 'not json', reviewer.token)).status).toBe(400)
      expect(await state()).toEqual(before)

      await t.api.as(writer.token).call('updateChangeRequestById', { params: crParams(s, cr), body: { status: 'archived' } })
      const archived = await review(s, cr, reviewer, { status: 'approved' })
      expect(archived.status).toBe(400)
      expect(archived.body.error.message).toContain('archived')

      await t.api.as(writer.token).call('updateChangeRequestById', { params: crParams(s, cr), body: { status: 'open' } })
      await t.api.as(reviewer.token).call('mergeChangeRequest', { params: crParams(s, cr) })
      const merged = await review(s, cr, reviewer, { status: 'approved', comment: { markdown: 'Late' } })
      expect(merged.status).toBe(400)
      expect(merged.body.error.message).toContain('merged')
      expect(await reviews(s, cr)).toEqual([])
      expect((await t.api.call('listCommentsInChangeRequest', { params: crParams(s, cr) })).body.items).toEqual([])
    })
  })

  describe('requested reviewers', () => {
    it('refuses unknown users, the author, users who cannot review, an empty list; writes nothing', async () => {
      const s = space()
      const cr = await draft(s)
      const before = await getCr(s, cr)
      const refused = async (body: Record<string, unknown>, text: string, who = writer, status = 400) => {
        const res = await ask(s, cr, body, who)
        expect(res.status).toBe(status)
        expect(res.body.error.message).toContain(text)
      }
      await refused({ users: ['no-such-user'] }, 'no user no-such-user')
      await refused({ users: [reviewer.id, 'no-such-user'] }, 'no user')
      await refused({ users: [writer.id] }, 'Writer wrote change request')
      await refused({ users: [reader.id] }, 'Reader cannot review')
      await refused({ users: [commenter.id] }, 'Commenter cannot review')
      await refused({ users: [stranger.id] }, 'Stranger cannot review')
      await refused({ users: [] }, 'at least one user')
      await refused({}, 'users')
      await refused({ users: [reviewer.id], subject: 'x'.repeat(101) }, 'subject')
      await refused({ users: [reviewer.id] }, 'edit role', reader, 403)
      await refused({ users: [reviewer.id] }, 'could not be found', stranger, 404)
      expect(await requested(s, cr)).toEqual([])
      expect(await getCr(s, cr)).toEqual(before)
    })

    it('removes a reviewer (205), answers 204 for someone not asked, and lets reviewers decline for themselves', async () => {
      const s = space()
      const cr = await draft(s)
      await ask(s, cr, { users: [reviewer.id, second.id, editor.id] })
      const remove = (userId: string, who = writer) =>
        t.api.as(who.token).call('removeRequestedReviewerFromChangeRequest', { params: { ...crParams(s, cr), userId } })
      const removed = await remove(second.id)
      expect(removed.status).toBe(205)
      expect(removed.body).toBeUndefined()
      expect((await remove(second.id)).status).toBe(204)
      expect((await remove('no-such-user')).status).toBe(204)
      expect((await remove(reviewer.id, reader)).status).toBe(403)
      expect((await remove(editor.id, editor)).status).toBe(205)
      expect((await requested(s, cr)).map((r) => r.user.id)).toEqual([reviewer.id])
      // Once no longer asked, an editor cannot review.
      expect((await review(s, cr, editor, { status: 'approved' })).status).toBe(403)
    })

    it('no reviewers can be asked on a merged or archived change request', async () => {
      const s = space()
      const cr = await draft(s)
      await t.api.as(writer.token).call('updateChangeRequestById', { params: crParams(s, cr), body: { status: 'archived' } })
      const res = await ask(s, cr, { users: [reviewer.id] })
      expect(res.status).toBe(400)
      expect(res.body.error.message).toContain('archived')
      expect((await getCr(s, cr)).status).toBe('archived')
      expect(await requested(s, cr)).toEqual([])
    })
  })

  describe('list filters and contributors', () => {
    it('filters by requestedReviewer and contributor, in a space and across an organization', async () => {
      const s = space()
      const mine = await draft(s, 'Mine')
      const other = await draft(s, 'Other')
      const third = await draft(s, 'Third')
      await ask(s, mine, { users: [reviewer.id] })
      await ask(s, other, { users: [second.id] })
      await ask(s, third, { users: [reviewer.id] })
      await t.api.as(writer.token).call('removeRequestedReviewerFromChangeRequest', { params: { ...crParams(s, third), userId: reviewer.id } })
      await edit(s, other, 'Edited by someone else.', editor)
      const ids = (res: { body: { items: Array<{ id: string }> } }) => res.body.items.map((c) => c.id).sort()
      const inSpace = (query: Record<string, string>) => t.api.call('listChangeRequestsForSpace', { params: { spaceId: s.spaceId }, query })
      expect(ids(await inSpace({ requestedReviewer: reviewer.id }))).toEqual([mine.id])
      expect(ids(await inSpace({ requestedReviewer: second.id }))).toEqual([other.id])
      expect(ids(await inSpace({ requestedReviewer: editor.id }))).toEqual([])
      expect(ids(await inSpace({ contributor: editor.id }))).toEqual([other.id])
      expect(ids(await inSpace({ contributor: writer.id }))).toEqual([mine.id, other.id, third.id].sort())
      expect(ids(await inSpace({ requestedReviewer: reviewer.id, status: 'draft' }))).toEqual([])
      const inOrg = await t.api.call('listChangeRequestsForOrganization', {
        params: { organizationId: s.orgId },
        query: { requestedReviewer: reviewer.id, status: ['open', 'draft'] },
      })
      expect(ids(inOrg)).toEqual([mine.id])
    })

    it('lists who edited and who commented, with counts', async () => {
      const s = space()
      const cr = await draft(s)
      await edit(s, cr, 'Second edit.')
      await edit(s, cr, 'Editor edit.', editor)
      await review(s, cr, reviewer, { status: 'changes-requested', comment: { markdown: 'Hmm.' } })
      await t.api.as(commenter.token).call('postCommentInChangeRequest', { params: crParams(s, cr), body: { body: { markdown: 'A note.' } } })
      const res = await t.api.as(reader.token).call('getContributorsByChangeRequestId', { params: crParams(s, cr) })
      const entries = res.body.items.map((e: { user: { id: string }; count: number; actionType: string }) => [e.user.id, e.actionType, e.count])
      expect(entries).toEqual([
        [writer.id, 'edit', 2],
        [editor.id, 'edit', 1],
        [reviewer.id, 'comment', 1],
        [commenter.id, 'comment', 1],
      ])
      expect(res.body.items[0].updatedAt).toEqual(expect.any(String))
      expect((await t.api.as(stranger.token).call('getContributorsByChangeRequestId', { params: crParams(s, cr) })).status).toBe(404)
    })

    it("reports the caller's review and merge permissions on the space", async () => {
      const s = space()
      const flags = async (who: Person) => (await t.api.as(who.token).call('getSpaceById', { params: { spaceId: s.spaceId } })).body.permissions
      expect(await flags(reviewer)).toMatchObject({ review: true, merge: true })
      expect(await flags(writer)).toMatchObject({ review: false, merge: false, edit: true })
      expect(await flags(reader)).toMatchObject({ review: false, merge: false })
      t.service.store.repo(SpacesRepository).update(s.spaceId, { data: { editMode: 'locked' } })
      expect(await flags(reviewer)).toMatchObject({ review: true, merge: false })
    })
  })
})

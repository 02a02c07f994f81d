import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RevisionTree, TreePage } from '../../src/main/content/types'
import { ChangeRequestsRepository } from '../../src/main/service/store/change-requests'
import { CommentsRepository, openCommentCount } from '../../src/main/service/store/comments'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository, createSpaceRevision } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { person as newPerson, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

const NOW = '2024-01-01T00:00:00.000Z'

const page = (id: string, pages: TreePage[] = []): TreePage => ({
  id,
  type: 'document',
  title: id,
  slug: id,
  metadata: {},
  createdAt: NOW,
  updatedAt: NOW,
  pages,
})

const spaceTree = (): RevisionTree => ({ pages: [page('intro', [page('nested')]), page('guide')], files: [] })

describe('comments', () => {
  let t: TestService
  let owner: Person
  let alice: Person // comment role
  let bob: Person // comment role
  let reader: Person // read role
  let stranger: Person // no access
  let orgId: string

  const person = (name: string): Person => newPerson(t, name)

  /** A space with content (pages intro > nested, guide) where alice and bob comment and reader reads. */
  const arrangeSpace = (options: { withRevision?: boolean } = {}) => {
    const store = t.service.store
    const space = store.repo(SpacesRepository).create({ orgId, title: 'Docs' })
    const spaces = store.repo(SpacesRepository)
    spaces.setUserRole(space.id, alice.id, 'comment')
    spaces.setUserRole(space.id, bob.id, 'comment')
    spaces.setUserRole(space.id, reader.id, 'read')
    const revision = options.withRevision === false ? undefined : createSpaceRevision(store, space.id, spaceTree(), undefined, [])
    return { spaceId: space.id, revisionId: revision?.id ?? '' }
  }

  /** A change request whose head adds the page `draft`. */
  const arrangeChangeRequest = (spaceId: string, baseRevisionId: string) => {
    const store = t.service.store
    const tree = spaceTree()
    tree.pages.push(page('draft'))
    const head = store.repo(RevisionsRepository).create({ spaceId, parents: [baseRevisionId], tree })
    const cr = store.repo(ChangeRequestsRepository).create({ spaceId, createdBy: owner.id, revisionId: head.id, baseRevisionId })
    return { id: cr.id, number: cr.number, revisionId: head.id }
  }

  const post = (who: Person, spaceId: string, body: Record<string, unknown> = { body: { markdown: 'Hello' } }) =>
    who.api.call('postCommentInSpace', { params: { spaceId }, body })

  const commentCount = (spaceId: string, changeRequestId: string | null = null) =>
    t.service.store.repo(CommentsRepository).list({ spaceId, changeRequestId, status: 'all', order: 'asc' }).length

  beforeAll(async () => {
    t = await startTestService()
    owner = { id: t.service.ownerId, token: t.service.token, api: t.api }
    alice = person('Alice')
    bob = person('Bob')
    reader = person('Reader')
    stranger = person('Stranger')
    orgId = t.service.store.repo(OrganizationsRepository).create({ title: 'Acme', owner: owner.id }).id
  })
  afterAll(() => t.close())

  describe('space comments', () => {
    it('posts a comment on a page and reads it back', async () => {
      const { spaceId, revisionId } = arrangeSpace()
      const res = await post(alice, spaceId, { body: { markdown: 'Is this **right**?' }, page: 'nested', node: 'block-1' })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        object: 'comment',
        postedBy: { id: alice.id, displayName: 'Alice' },
        body: { markdown: 'Is this **right**?' },
        status: 'open',
        replies: 0,
        repliers: [],
        reactions: [],
        target: { space: spaceId, revision: revisionId, page: { id: 'nested' }, node: { id: 'block-1' } },
        permissions: { view: true, edit: true, reply: true, delete: true },
      })
      expect(res.body.target.changeRequest).toBeUndefined()
      expect(res.body.editedAt).toBeUndefined()
      expect(res.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${spaceId}/comments/${res.body.id}`)

      const got = await owner.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id } })
      expect(got.body).toMatchObject({ id: res.body.id, body: { markdown: 'Is this **right**?' } })
      // the owner is an organization admin: may edit and delete anyone's comment
      expect(got.body.permissions).toEqual({ view: true, edit: true, reply: true, delete: true })
      const asBob = await bob.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id } })
      expect(asBob.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false })
      const asReader = await reader.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id } })
      expect(asReader.body.permissions).toEqual({ view: true, edit: false, reply: false, delete: false })
    })

    it('keeps a table cell target and posts without any target', async () => {
      const { spaceId } = arrangeSpace()
      const cell = await post(owner, spaceId, { body: { markdown: 'cell' }, page: 'guide', tableCell: { record: 'r1', definition: 'd1' } })
      expect(cell.body.target).toMatchObject({ tableCell: { record: 'r1', definition: 'd1' }, page: { id: 'guide' } })
      const plain = await post(owner, spaceId)
      expect(plain.body.target.page).toBeUndefined()
    })

    it('accepts a JSON document body and answers in either format', async () => {
      const { spaceId } = arrangeSpace()
      const document = {
        object: 'document',
        data: {},
        nodes: [
          { object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'First *line*', marks: [] }] }] },
          { object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Second', marks: [] }] }] },
        ],
      }
      const res = await post(alice, spaceId, { body: { document } })
      expect(res.body.body).toEqual({ markdown: 'First \\*line\\*\n\nSecond' })
      const asDocument = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id }, query: { format: 'document' } })
      expect(asDocument.body.body).toEqual({ document })
      const asMarkdown = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id }, query: { format: 'markdown' } })
      expect(asMarkdown.body.body).toEqual({ markdown: 'First \\*line\\*\n\nSecond' })
    })

    it('renders a markdown comment as a JSON document on request', async () => {
      const { spaceId } = arrangeSpace()
      const res = await post(alice, spaceId, { body: { markdown: 'Hello **world** and `code`\n\n* one\n* two\n\n> quoted' } })
      const got = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: res.body.id }, query: { format: 'document' } })
      expect(got.body.body.document).toMatchObject({ object: 'document' })
      expect(got.body.body.document.nodes.map((n: { type: string }) => n.type)).toEqual(['paragraph', 'list-unordered', 'blockquote'])
      expect(JSON.stringify(got.body.body.document)).toContain('world')
    })

    it('answers 403 to a reader who posts, and writes nothing', async () => {
      const { spaceId } = arrangeSpace()
      const res = await reader.api.raw('POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'no' } })
      expect(res.status).toBe(403)
      expect(res.body).toEqual({ error: { code: 403, message: expect.any(String) } })
      expect(commentCount(spaceId)).toBe(0)
    })

    it('hides the space from a user without access (404) and answers 404 for unknown spaces and comments', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(owner, spaceId)).body
      for (const res of [
        await stranger.api.raw('GET', `/spaces/${spaceId}/comments`),
        await stranger.api.raw('POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'x' } }),
        await stranger.api.raw('GET', `/spaces/${spaceId}/comments/${comment.id}`),
        await stranger.api.raw('DELETE', `/spaces/${spaceId}/comments/${comment.id}`),
        await owner.api.raw('GET', `/spaces/nope/comments`),
        await owner.api.raw('GET', `/spaces/${spaceId}/comments/nope`),
        await owner.api.raw('PUT', `/spaces/${spaceId}/comments/nope`, { resolved: true }),
        await owner.api.raw('GET', `/spaces/${spaceId}/comments/nope/replies`),
        await owner.api.raw('POST', `/spaces/${spaceId}/comments/nope/replies`, { body: { markdown: 'x' } }),
        await owner.api.raw('GET', `/spaces/${spaceId}/comments/${comment.id}/replies/nope`),
        await owner.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}/replies/nope`, { body: { markdown: 'x' } }),
      ]) {
        expect(res.status).toBe(404)
        expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
      }
      expect(commentCount(spaceId)).toBe(1)

      // a deleted space's comments are gone with it
      t.service.store.repo(SpacesRepository).markDeleted(spaceId, new Date().toISOString())
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/comments/${comment.id}`)).status).toBe(404)
      t.service.store.repo(SpacesRepository).markDeleted(spaceId, null)
    })

    it('answers 404 for a page that is not in the space and 409 for a space without content', async () => {
      const { spaceId } = arrangeSpace()
      const res = await owner.api.raw('POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'x' }, page: 'missing' })
      expect(res.status).toBe(404)
      const empty = arrangeSpace({ withRevision: false })
      const conflict = await owner.api.raw('POST', `/spaces/${empty.spaceId}/comments`, { body: { markdown: 'x' } })
      expect(conflict.status).toBe(409)
      expect(conflict.body).toEqual({ error: { code: 409, message: expect.any(String) } })
      expect(commentCount(spaceId) + commentCount(empty.spaceId)).toBe(0)
    })

    it('rejects malformed posts with 400 and writes nothing', async () => {
      const { spaceId } = arrangeSpace()
      const bad: unknown[] = [
        {},
        { body: {} },
        { body: { markdown: '' } },
        { body: { markdown: '   \n' } },
        { body: { markdown: 5 } },
        { body: 'hello' },
        { body: { markdown: 'x'.repeat(100_001) } },
        { body: { markdown: 'x' }, page: 7 },
        { body: { markdown: 'x' }, node: '' },
        { body: { markdown: 'x' }, node: 'n'.repeat(300) },
        { body: { markdown: 'x' }, tableCell: { record: 'r' } },
        { body: { markdown: 'x' }, tableCell: { record: '', definition: 'd' } },
        { body: { document: { object: 'document', data: {}, nodes: [] } } },
        [],
      ]
      for (const body of bad) {
        const res = await owner.api.raw('POST', `/spaces/${spaceId}/comments`, body)
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
      expect((await owner.api.raw('POST', `/spaces/${spaceId}/comments`, '{not json')).status).toBe(400)
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/comments/bad%20id`)).status).toBe(400)
      expect(commentCount(spaceId)).toBe(0)
    })

    it('resolves and reopens a comment, and counts open comments', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(owner, spaceId)).body
      await post(owner, spaceId)
      expect(openCommentCount(t.service.store, { spaceId })).toBe(2)

      const resolved = await alice.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: { resolved: true } })
      expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: alice.id } })
      expect(resolved.body.resolvedAt).toEqual(expect.any(String))
      expect(openCommentCount(t.service.store, { spaceId })).toBe(1)

      // resolving again keeps who resolved it first
      const again = await bob.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: { resolved: true } })
      expect(again.body.resolvedBy.id).toBe(alice.id)
      expect(again.body.resolvedAt).toBe(resolved.body.resolvedAt)

      const reopened = await bob.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: { resolved: false } })
      expect(reopened.body.status).toBe('open')
      expect(reopened.body.resolvedAt).toBeUndefined()
      expect(reopened.body.resolvedBy).toBeUndefined()
      expect(openCommentCount(t.service.store, { spaceId })).toBe(2)

      const forbidden = await reader.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, { resolved: true })
      expect(forbidden.status).toBe(403)
      expect(openCommentCount(t.service.store, { spaceId })).toBe(2)

      // an empty update changes nothing, and a reader may send it
      const noop = await reader.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: {} })
      expect(noop.body.status).toBe('open')
    })

    it('lets the author and space admins edit the body, nobody else', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(alice, spaceId, { body: { markdown: 'typo' } })).body
      const edited = await alice.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: { body: { markdown: 'fixed' } } })
      expect(edited.body.body).toEqual({ markdown: 'fixed' })
      expect(edited.body.editedAt).toEqual(expect.any(String))

      const denied = await bob.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, { body: { markdown: 'hijack' } })
      expect(denied.status).toBe(403)
      expect(denied.body).toEqual({ error: { code: 403, message: expect.any(String) } })
      // a rejected request writes nothing, even the parts bob may do
      const mixed = await bob.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, { body: { markdown: 'hijack' }, resolved: true })
      expect(mixed.status).toBe(403)
      const after = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: comment.id } })
      expect(after.body).toMatchObject({ body: { markdown: 'fixed' }, status: 'open' })

      const byAdmin = await owner.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body: { body: { markdown: 'moderated' } } })
      expect(byAdmin.body.body).toEqual({ markdown: 'moderated' })

      for (const body of [{ body: {} }, { body: { markdown: '' } }, { resolved: 'yes' }, { addedReactions: 'x' }, { body: { markdown: 'x'.repeat(100_001) } }]) {
        const res = await alice.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, body)
        expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      }
      const unchanged = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: comment.id } })
      expect(unchanged.body.body).toEqual({ markdown: 'moderated' })
    })

    it('aggregates reactions per emoji; a user counts once per emoji', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(owner, spaceId)).body
      const react = (who: Person, body: Record<string, unknown>) => who.api.call('updateCommentInSpace', { params: { spaceId, commentId: comment.id }, body })

      await react(alice, { addedReactions: ['👍', '👍'] })
      await react(alice, { addedReactions: ['👍'] })
      let res = await react(bob, { addedReactions: ['👍', '🎉', '👨‍👩‍👧', '🇫🇷'] })
      expect(res.body.reactions.map((r: { emoji: string; count: number }) => [r.emoji, r.count])).toEqual([
        ['👍', 2],
        ['🎉', 1],
        ['👨‍👩‍👧', 1],
        ['🇫🇷', 1],
      ])
      expect(res.body.reactions[0].users.map((u: { user: { id: string } }) => u.user.id)).toEqual([alice.id, bob.id])
      expect(res.body.reactions[0].users[0].reactedAt).toEqual(expect.any(String))

      res = await react(alice, { removedReactions: ['👍', '🎉'] })
      expect(res.body.reactions.map((r: { emoji: string; count: number }) => [r.emoji, r.count])).toEqual([
        ['👍', 1],
        ['🎉', 1],
        ['👨‍👩‍👧', 1],
        ['🇫🇷', 1],
      ])
      res = await react(bob, { removedReactions: ['👍', '🎉', '👨‍👩‍👧', '🇫🇷'] })
      expect(res.body.reactions).toEqual([])

      const denied = await reader.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, { addedReactions: ['👍'] })
      expect(denied.status).toBe(403)
      for (const body of [
        { addedReactions: ['abc'] },
        { addedReactions: ['123'] },
        { addedReactions: [''] },
        { addedReactions: [5] },
        { addedReactions: ['👍'], removedReactions: ['👍'] },
        { addedReactions: Array.from({ length: 60 }, (_, i) => String.fromCodePoint(0x1f600 + i)) },
      ]) {
        const bad = await alice.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}`, body)
        expect(bad.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      }
      const after = await alice.api.call('getCommentInSpace', { params: { spaceId, commentId: comment.id } })
      expect(after.body.reactions).toEqual([])
    })

    it('runs a reply thread: post, list, get, edit, react, delete', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(owner, spaceId)).body
      const params = { spaceId, commentId: comment.id }

      const first = await bob.api.call('postCommentReplyInSpace', { params, body: { body: { markdown: 'one' } } })
      expect(first.body).toMatchObject({
        object: 'comment-reply',
        postedBy: { id: bob.id },
        body: { markdown: 'one' },
        reactions: [],
        permissions: { view: true, edit: true, reply: true, delete: true },
      })
      expect(first.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`)
      await bob.api.call('postCommentReplyInSpace', { params, body: { body: { markdown: 'two' } } })
      await alice.api.call('postCommentReplyInSpace', { params, body: { body: { markdown: 'three' } } })

      const parent = await owner.api.call('getCommentInSpace', { params })
      expect(parent.body.replies).toBe(3)
      expect(parent.body.repliers.map((r: { user: { id: string }; count: number }) => [r.user.id, r.count])).toEqual([
        [bob.id, 2],
        [alice.id, 1],
      ])
      expect(parent.body.repliers[0].updatedAt).toEqual(expect.any(String))

      const page1 = await owner.api.call('listCommentRepliesInSpace', { params, query: { limit: 2 } })
      expect(page1.body.count).toBe(3)
      expect(page1.body.items.map((r: { body: { markdown: string } }) => r.body.markdown)).toEqual(['one', 'two'])
      const page2 = await owner.api.call('listCommentRepliesInSpace', { params, query: { limit: 2, page: page1.body.next.page } })
      expect(page2.body.items.map((r: { body: { markdown: string } }) => r.body.markdown)).toEqual(['three'])
      expect(page2.body.next).toBeUndefined()

      const replyParams = { ...params, commentReplyId: first.body.id }
      const got = await alice.api.call('getCommentReplyInSpace', { params: replyParams, query: { format: 'document' } })
      expect(got.body.permissions).toEqual({ view: true, edit: false, reply: true, delete: false })
      expect(got.body.body.document).toMatchObject({ object: 'document' })

      const edited = await bob.api.call('updateCommentReplyInSpace', { params: replyParams, body: { body: { markdown: 'one!' }, addedReactions: ['🔥'] } })
      expect(edited.body).toMatchObject({ body: { markdown: 'one!' }, reactions: [{ emoji: '🔥', count: 1 }] })
      expect(edited.body.editedAt).toEqual(expect.any(String))
      const reacted = await alice.api.call('updateCommentReplyInSpace', { params: replyParams, body: { addedReactions: ['🔥'] } })
      expect(reacted.body.reactions).toMatchObject([{ emoji: '🔥', count: 2 }])

      expect((await alice.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`, { body: { markdown: 'x' } })).status).toBe(403)
      expect((await reader.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`, { addedReactions: ['🔥'] })).status).toBe(403)
      expect((await bob.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`, { resolved: true })).status).toBe(400)
      expect((await bob.api.raw('PUT', `/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`, { body: { markdown: '' } })).status).toBe(400)
      expect((await reader.api.raw('POST', `/spaces/${spaceId}/comments/${comment.id}/replies`, { body: { markdown: 'x' } })).status).toBe(403)
      expect((await bob.api.raw('POST', `/spaces/${spaceId}/comments/${comment.id}/replies`, {})).status).toBe(400)
      expect((await bob.api.raw('POST', `/spaces/${spaceId}/comments/${comment.id}/replies`, { body: { markdown: 7 } })).status).toBe(400)
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/comments/${comment.id}/replies?limit=5000`)).status).toBe(400)
      const stillOne = await owner.api.call('getCommentReplyInSpace', { params: replyParams })
      expect(stillOne.body).toMatchObject({ body: { markdown: 'one!' }, reactions: [{ emoji: '🔥', count: 2 }] })

      expect((await alice.api.raw('DELETE', `/spaces/${spaceId}/comments/${comment.id}/replies/${first.body.id}`)).status).toBe(403)
      expect((await bob.api.call('deleteCommentReplyInSpace', { params: replyParams })).status).toBe(205)
      expect((await bob.api.call('deleteCommentReplyInSpace', { params: replyParams })).status).toBe(204)
      expect(t.service.store.repo(CommentsRepository).reactions(first.body.id)).toEqual([])
      const after = await owner.api.call('getCommentInSpace', { params })
      expect(after.body.replies).toBe(2)
      expect(after.body.repliers.map((r: { user: { id: string }; count: number }) => [r.user.id, r.count])).toEqual([
        [bob.id, 1],
        [alice.id, 1],
      ])
    })

    it('deletes a comment with its replies and reactions; deleting again is 204', async () => {
      const { spaceId } = arrangeSpace()
      const comment = (await post(alice, spaceId)).body
      const params = { spaceId, commentId: comment.id }
      const reply = (await bob.api.call('postCommentReplyInSpace', { params, body: { body: { markdown: 'r' } } })).body
      await bob.api.call('updateCommentReplyInSpace', { params: { ...params, commentReplyId: reply.id }, body: { addedReactions: ['👀'] } })
      await bob.api.call('updateCommentInSpace', { params, body: { addedReactions: ['👀'] } })

      const denied = await bob.api.raw('DELETE', `/spaces/${spaceId}/comments/${comment.id}`)
      expect(denied.status).toBe(403)
      expect(commentCount(spaceId)).toBe(1)

      expect((await alice.api.call('deleteCommentInSpace', { params })).status).toBe(205)
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/comments/${comment.id}`)).status).toBe(404)
      expect((await alice.api.call('deleteCommentInSpace', { params })).status).toBe(204)
      expect((await owner.api.call('deleteCommentInSpace', { params: { spaceId, commentId: 'neverExisted' } })).status).toBe(204)
      const repo = t.service.store.repo(CommentsRepository)
      expect(repo.reactions(comment.id)).toEqual([])
      expect(repo.reactions(reply.id)).toEqual([])
      expect(repo.listReplies(comment.id)).toEqual([])
      expect((await owner.api.raw('DELETE', `/spaces/${spaceId}/comments/${comment.id}/replies/${reply.id}`)).status).toBe(204)

      // an admin may delete anyone's comment
      const other = (await post(bob, spaceId)).body
      expect((await owner.api.call('deleteCommentInSpace', { params: { spaceId, commentId: other.id } })).status).toBe(205)
    })
  })

  describe('listing space comments', () => {
    let spaceId: string
    const ids: Record<string, string> = {}

    beforeAll(async () => {
      spaceId = arrangeSpace().spaceId
      ids.a1 = (await post(alice, spaceId, { body: { markdown: 'a1' }, page: 'intro' })).body.id
      ids.b1 = (await post(bob, spaceId, { body: { markdown: 'b1' }, page: 'guide' })).body.id
      ids.a2 = (await post(alice, spaceId, { body: { markdown: 'a2' }, page: 'intro' })).body.id
      ids.o1 = (await post(owner, spaceId, { body: { markdown: 'o1' } })).body.id
      await owner.api.call('updateCommentInSpace', { params: { spaceId, commentId: ids.b1 }, body: { resolved: true } })
    })

    const bodies = (res: { body: { items: Array<{ body: { markdown: string } }> } }) => res.body.items.map((c) => c.body.markdown)
    const list = (query: Record<string, string | number | string[]> = {}, who: Person = reader) =>
      who.api.call('listCommentsInSpace', { params: { spaceId }, query })

    it('lists newest first by default, oldest first with order=asc', async () => {
      const res = await list()
      expect(res.body.count).toBe(4)
      expect(bodies(res)).toEqual(['o1', 'a2', 'b1', 'a1'])
      expect(bodies(await list({ order: 'asc' }))).toEqual(['a1', 'b1', 'a2', 'o1'])
      expect(res.body.items[0].permissions).toEqual({ view: true, edit: false, reply: false, delete: false })
    })

    it('filters by status', async () => {
      expect(bodies(await list({ status: 'open' }))).toEqual(['o1', 'a2', 'a1'])
      expect(bodies(await list({ status: 'resolved' }))).toEqual(['b1'])
      expect(bodies(await list({ status: 'all' }))).toEqual(['o1', 'a2', 'b1', 'a1'])
    })

    it('filters by target page and authors', async () => {
      expect(bodies(await list({ targetPage: 'intro' }))).toEqual(['a2', 'a1'])
      expect(bodies(await list({ targetPage: 'nowhere' }))).toEqual([])
      expect(bodies(await list({ authors: [alice.id] }))).toEqual(['a2', 'a1'])
      expect(bodies(await list({ authors: [alice.id, bob.id], order: 'asc' }))).toEqual(['a1', 'b1', 'a2'])
      expect(bodies(await list({ authors: `${bob.id},${owner.id}` }))).toEqual(['o1', 'b1'])
      expect(bodies(await list({ authors: ['unknown'] }))).toEqual([])
      expect(bodies(await list({ authors: [alice.id], targetPage: 'intro', status: 'open', order: 'asc' }))).toEqual(['a1', 'a2'])
    })

    it('pages with next.page tokens', async () => {
      const first = await list({ limit: 3 })
      expect(first.body.count).toBe(4)
      expect(bodies(first)).toEqual(['o1', 'a2', 'b1'])
      const second = await list({ limit: 3, page: first.body.next.page })
      expect(bodies(second)).toEqual(['a1'])
      expect(second.body.next).toBeUndefined()
    })

    it('rejects hostile query parameters with 400', async () => {
      for (const query of ['limit=5000', 'limit=-1', 'limit=abc', 'status=closed', 'order=sideways', 'page=garbage', 'format=html']) {
        const res = await reader.api.raw('GET', `/spaces/${spaceId}/comments?${query}`)
        expect(res.status, query).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
    })

    it('does not list change request comments with the space comments', async () => {
      const other = arrangeSpace()
      const cr = arrangeChangeRequest(other.spaceId, other.revisionId)
      await owner.api.call('postCommentInChangeRequest', { params: { spaceId: other.spaceId, changeRequestId: cr.id }, body: { body: { markdown: 'cr' } } })
      await post(owner, other.spaceId, { body: { markdown: 'space' } })
      const res = await owner.api.call('listCommentsInSpace', { params: { spaceId: other.spaceId } })
      expect(bodies(res)).toEqual(['space'])
    })
  })

  describe('commenters', () => {
    it('lists who commented or replied, as organization members, first contribution first', async () => {
      const { spaceId, revisionId } = arrangeSpace()
      const carol = person('Carol')
      t.service.store.repo(OrganizationsRepository).setMember(orgId, carol.id, 'comment')
      const first = (await post(carol, spaceId)).body
      await post(alice, spaceId)
      await owner.api.call('postCommentReplyInSpace', { params: { spaceId, commentId: first.id }, body: { body: { markdown: 'r' } } })
      await carol.api.call('postCommentReplyInSpace', { params: { spaceId, commentId: first.id }, body: { body: { markdown: 'r' } } })
      const cr = arrangeChangeRequest(spaceId, revisionId)
      await bob.api.call('postCommentInChangeRequest', { params: { spaceId, changeRequestId: cr.id }, body: { body: { markdown: 'cr' } } })

      const res = await reader.api.call('listCommentersInSpace', { params: { spaceId } })
      expect(res.body.count).toBe(3)
      expect(res.body.items.map((m: { id: string; role: string | null }) => [m.id, m.role])).toEqual([
        [carol.id, 'comment'],
        [alice.id, null],
        [owner.id, 'admin'],
      ])
      expect(res.body.items[0]).toMatchObject({ object: 'member', user: { id: carol.id, displayName: 'Carol' }, disabled: false })

      const paged = await reader.api.call('listCommentersInSpace', { params: { spaceId }, query: { limit: 2 } })
      expect(paged.body.items).toHaveLength(2)
      const rest = await reader.api.call('listCommentersInSpace', { params: { spaceId }, query: { limit: 2, page: paged.body.next.page } })
      expect(rest.body.items.map((m: { id: string }) => m.id)).toEqual([owner.id])

      const inCr = await reader.api.call('listCommentersInChangeRequest', { params: { spaceId, changeRequestId: cr.number } })
      expect(inCr.body.items.map((m: { id: string }) => m.id)).toEqual([bob.id])

      expect((await stranger.api.raw('GET', `/spaces/${spaceId}/commenters`)).status).toBe(404)
      expect((await reader.api.raw('GET', `/spaces/${spaceId}/commenters?limit=abc`)).status).toBe(400)
      expect((await reader.api.raw('GET', `/spaces/${spaceId}/change-requests/nope/commenters`)).status).toBe(404)
    })
  })

  describe('change request comments', () => {
    it('addresses a change request by id or number and keeps its comments apart', async () => {
      const { spaceId, revisionId } = arrangeSpace()
      const cr = arrangeChangeRequest(spaceId, revisionId)

      // the page `draft` only exists in the change request
      const posted = await alice.api.call('postCommentInChangeRequest', {
        params: { spaceId, changeRequestId: cr.number },
        body: { body: { markdown: 'on the draft' }, page: 'draft' },
      })
      expect(posted.body).toMatchObject({
        target: { space: spaceId, revision: cr.revisionId, changeRequest: cr.id, page: { id: 'draft' } },
        status: 'open',
        permissions: { view: true, edit: true, reply: true, delete: true },
      })
      expect(posted.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${spaceId}/change-requests/${cr.id}/comments/${posted.body.id}`)
      expect((await owner.api.raw('POST', `/spaces/${spaceId}/comments`, { body: { markdown: 'x' }, page: 'draft' })).status).toBe(404)

      const byId = await owner.api.call('getCommentInChangeRequest', { params: { spaceId, changeRequestId: cr.id, commentId: posted.body.id } })
      expect(byId.body.id).toBe(posted.body.id)
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/comments/${posted.body.id}`)).status).toBe(404)

      const spaceComment = (await post(owner, spaceId)).body
      expect((await owner.api.raw('GET', `/spaces/${spaceId}/change-requests/${cr.id}/comments/${spaceComment.id}`)).status).toBe(404)

      const listed = await reader.api.call('listCommentsInChangeRequest', { params: { spaceId, changeRequestId: cr.number }, query: { status: 'open' } })
      expect(listed.body.items.map((c: { id: string }) => c.id)).toEqual([posted.body.id])

      expect(openCommentCount(t.service.store, { spaceId, changeRequestId: cr.id })).toBe(1)
      expect(openCommentCount(t.service.store, { spaceId })).toBe(1)
      const resolved = await bob.api.call('updateCommentInChangeRequest', {
        params: { spaceId, changeRequestId: cr.id, commentId: posted.body.id },
        body: { resolved: true, addedReactions: ['✅'] },
      })
      expect(resolved.body).toMatchObject({ status: 'resolved', resolvedBy: { id: bob.id }, reactions: [{ emoji: '✅', count: 1 }] })
      expect(openCommentCount(t.service.store, { spaceId, changeRequestId: cr.id })).toBe(0)
      expect(openCommentCount(t.service.store, { spaceId })).toBe(1)
    })

    it('runs replies inside a change request', async () => {
      const { spaceId, revisionId } = arrangeSpace()
      const cr = arrangeChangeRequest(spaceId, revisionId)
      const comment = (await owner.api.call('postCommentInChangeRequest', { params: { spaceId, changeRequestId: cr.id }, body: { body: { markdown: 'c' } } })).body
      const params = { spaceId, changeRequestId: cr.id, commentId: comment.id }

      const reply = await bob.api.call('postCommentReplyInChangeRequest', { params, query: { format: 'markdown' }, body: { body: { markdown: 'r1' } } })
      expect(reply.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${spaceId}/change-requests/${cr.id}/comments/${comment.id}/replies/${reply.body.id}`)
      await alice.api.call('postCommentReplyInChangeRequest', { params, body: { body: { markdown: 'r2' } } })
      const listed = await owner.api.call('listCommentRepliesInChangeRequest', { params, query: { limit: 1 } })
      expect(listed.body.count).toBe(2)
      expect(listed.body.next.page).toEqual(expect.any(String))

      const replyParams = { ...params, commentReplyId: reply.body.id }
      expect((await alice.api.call('getCommentReplyInChangeRequest', { params: replyParams })).body.body).toEqual({ markdown: 'r1' })
      const edited = await bob.api.call('updateCommentReplyInChangeRequest', { params: replyParams, body: { body: { markdown: 'r1!' } } })
      expect(edited.body.body).toEqual({ markdown: 'r1!' })
      expect((await bob.api.raw('PUT', `/spaces/${spaceId}/change-requests/${cr.id}/comments/${comment.id}/replies/${reply.body.id}`, { resolved: true })).status).toBe(400)
      expect((await alice.api.raw('DELETE', `/spaces/${spaceId}/change-requests/${cr.id}/comments/${comment.id}/replies/${reply.body.id}`)).status).toBe(403)
      expect((await bob.api.call('deleteCommentReplyInChangeRequest', { params: replyParams })).status).toBe(205)
      expect((await bob.api.call('deleteCommentReplyInChangeRequest', { params: replyParams })).status).toBe(204)
      expect((await owner.api.call('getCommentInChangeRequest', { params })).body.replies).toBe(1)

      expect((await owner.api.call('deleteCommentInChangeRequest', { params })).status).toBe(205)
      expect((await owner.api.call('deleteCommentInChangeRequest', { params })).status).toBe(204)
    })

    it('answers 404 for unknown change requests and 403/400 as for space comments', async () => {
      const { spaceId, revisionId } = arrangeSpace()
      const cr = arrangeChangeRequest(spaceId, revisionId)
      const foreign = arrangeSpace()
      const foreignCr = arrangeChangeRequest(foreign.spaceId, foreign.revisionId)
      for (const changeRequestId of ['nope', '999', foreignCr.id]) {
        const res = await owner.api.raw('GET', `/spaces/${spaceId}/change-requests/${changeRequestId}/comments`)
        expect(res.status, changeRequestId).toBe(404)
        expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
      }
      const base = `/spaces/${spaceId}/change-requests/${cr.id}/comments`
      expect((await stranger.api.raw('GET', base)).status).toBe(404)
      expect((await reader.api.raw('POST', base, { body: { markdown: 'x' } })).status).toBe(403)
      expect((await owner.api.raw('POST', base, { body: { markdown: 'x' }, page: 'missing' })).status).toBe(404)
      expect((await owner.api.raw('POST', base, { body: { markdown: '' } })).status).toBe(400)
      expect((await owner.api.raw('GET', `${base}?limit=abc`)).status).toBe(400)
      expect(commentCount(spaceId, cr.id)).toBe(0)
    })
  })
})

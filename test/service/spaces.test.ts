import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ChangeRequestsRepository } from '../../src/main/service/store/change-requests'
import { CollectionsRepository } from '../../src/main/service/store/collections'
import { CommentsRepository } from '../../src/main/service/store/comments'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { errorBody, person as newPerson, type Person } from '../support/fixtures'
import { startTestService, type ApiClient, type TestService } from '../support/service'

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id)
const DAY = 24 * 60 * 60 * 1000

describe('spaces', () => {
  let t: TestService
  let now = new Date('2025-03-01T10:00:00.000Z')
  let orgId: string
  let reader: Person // organization role `read`
  let creator: Person // organization role `create`
  let guest: Person // organization guest (null role)
  let stranger: Person // not in the organization
  const store = () => t.service.store
  const spaces = () => store().repo(SpacesRepository)
  const orgs = () => store().repo(OrganizationsRepository)

  const person = (name: string): Person => newPerson(t, name)
  const createSpace = async (body: Record<string, unknown> = {}, api: ApiClient = t.api, organizationId = orgId) => {
    const res = await api.call('createSpace', { params: { organizationId }, body })
    expect(res.status).toBe(201)
    return res.body as { id: string; title: string; revision: string; parent?: string }
  }

  beforeAll(async () => {
    t = await startTestService({ clock: () => now })
    orgId = orgs().create({ title: 'Spaces Org', owner: t.service.ownerId }).id
    reader = person('Rita')
    creator = person('Cora')
    guest = person('Gus')
    stranger = person('Stan')
    orgs().setMember(orgId, reader.id, 'read')
    orgs().setMember(orgId, creator.id, 'create')
    orgs().setMember(orgId, guest.id, null)
  })
  afterAll(() => t.close())

  describe('createSpace', () => {
    it('creates a space with a first, empty page (201, Location)', async () => {
      const res = await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Handbook', emoji: '\u{1F4D8}', language: 'fr' } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/spaces/${res.body.id}`)
      expect(res.body).toMatchObject({
        object: 'space',
        title: 'Handbook',
        emoji: '\u{1F4D8}',
        language: 'fr',
        organization: orgId,
        visibility: 'private',
        editMode: 'live',
        defaultLevel: 'inherit',
        comments: 0,
        changeRequests: 0,
      })
      const revision = store().repo(RevisionsRepository).get(res.body.revision)
      expect(revision?.tree.pages.map((p) => [p.title, p.type])).toEqual([['Introduction', 'document']])
      const empty = await createSpace({ title: 'Blank', empty: true })
      expect(store().repo(RevisionsRepository).get(empty.revision)?.tree.pages).toEqual([])
    })

    it('makes a member with the create role admin of the space they create', async () => {
      const space = await createSpace({ title: 'Cora space' }, creator.api)
      const res = await creator.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(res.body.permissions.admin).toBe(true)
    })

    it('rejects bad input (400), low roles (403) and unknown organizations (404), creating nothing', async () => {
      const count = () => spaces().listByOrg(orgId).length
      const before = count()
      const bad: unknown[] = [
        { title: 'x'.repeat(51) },
        { title: 12 },
        { emoji: 'hello' },
        { editMode: 'frozen' },
        { language: 'klingon' },
        { parent: 'missing' },
        { template: { id: 'tpl' } },
      ]
      for (const body of bad) {
        const res = await t.api.raw('POST', `/orgs/${orgId}/spaces`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await reader.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'No' } })).status).toBe(403)
      expect((await stranger.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'No' } })).status).toBe(404)
      expect((await t.api.call('createSpace', { params: { organizationId: 'missing' }, body: { title: 'No' } })).status).toBe(404)
      expect(count()).toBe(before)
    })
  })

  describe('getSpaceById', () => {
    it('tells an owner and a read member different, truthful permissions', async () => {
      const space = await createSpace({ title: 'Perms' })
      const owner = await t.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(owner.status).toBe(200)
      expect(owner.body.permissions).toEqual({
        view: true,
        access: true,
        admin: true,
        viewInviteLinks: true,
        edit: true,
        triggerGitSync: true,
        comment: true,
        merge: true,
        review: true,
        installIntegration: true,
      })
      const read = await reader.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(read.body.permissions).toEqual({
        view: true,
        access: true,
        admin: false,
        viewInviteLinks: false,
        edit: false,
        triggerGitSync: false,
        comment: false,
        merge: false,
        review: false,
        installIntegration: false,
      })
      // The reader really cannot administrate it.
      expect((await reader.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { title: 'Mine' } })).status).toBe(403)
      // Locked: nobody edits or merges, admins included.
      await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { editMode: 'locked' } })
      const locked = await t.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(locked.body.permissions).toMatchObject({ admin: true, edit: false, merge: false, comment: true })
    })

    it('counts open comments and change requests by status', async () => {
      const space = await createSpace({ title: 'Counters' })
      const crs = store().repo(ChangeRequestsRepository)
      const base = { spaceId: space.id, createdBy: t.service.ownerId, revisionId: space.revision, baseRevisionId: space.revision }
      const cr = crs.create({ ...base, status: 'open' })
      crs.create({ ...base, status: 'draft' })
      crs.create({ ...base, status: 'merged' })
      const comments = store().repo(CommentsRepository)
      const comment = (changeRequestId: string | null) =>
        comments.create({ spaceId: space.id, changeRequestId, revisionId: space.revision, body: { markdown: 'Hi' }, postedBy: t.service.ownerId })
      comment(null)
      const resolved = comment(null)
      comment(cr.id)
      store().db.prepare('UPDATE comments SET resolved_at = ?, resolved_by = ? WHERE id = ?').run(store().now(), t.service.ownerId, resolved.id)
      const res = await t.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(res.body).toMatchObject({ comments: 1, changeRequests: 3, changeRequestsOpen: 1, changeRequestsDraft: 1 })
    })

    it('hides spaces from callers without a role (404) and answers 404 for unknown ids', async () => {
      const space = await createSpace({ title: 'Private' })
      expect((await stranger.api.call('getSpaceById', { params: { spaceId: space.id } })).status).toBe(404)
      expect((await guest.api.call('getSpaceById', { params: { spaceId: space.id } })).status).toBe(404)
      const unknown = await t.api.call('getSpaceById', { params: { spaceId: 'missing' } })
      expect(unknown.status).toBe(404)
      expect(unknown.body).toEqual(errorBody(404))
      expect((await t.api.raw('GET', '/spaces/bad%20id')).status).toBe(400)
    })
  })

  describe('updateSpaceById', () => {
    it('updates title, emoji or icon, editMode, defaultLevel, language and merge rules', async () => {
      const space = await createSpace({ title: 'Old' })
      const res = await t.api.call('updateSpaceById', {
        params: { spaceId: space.id },
        body: {
          title: 'New',
          emoji: '1f680',
          editMode: 'locked',
          defaultLevel: 'comment',
          language: 'de',
          mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reader.id] }] },
        },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        title: 'New',
        emoji: '1f680',
        editMode: 'locked',
        defaultLevel: 'comment',
        language: 'de',
        mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reader.id] }] },
      })
      // defaultLevel comment now lets the read member comment.
      expect((await reader.api.call('getSpaceById', { params: { spaceId: space.id } })).body.permissions.comment).toBe(true)
      const icon = await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { icon: 'https://example.com/icon.png' } })
      expect(icon.body.urls.icon).toBe('https://example.com/icon.png')
      expect(icon.body.emoji).toBe('')
      const cleared = await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { icon: null, emoji: null } })
      expect(cleared.body.urls.icon).toBeUndefined()
      const inherit = await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { mergeRules: { type: 'inherit' } } })
      expect(inherit.body.mergeRules).toEqual({ type: 'inherit' })
    })

    it('rejects bad input (400), low roles (403), unknown ids (404); nothing changes', async () => {
      const space = await createSpace({ title: 'Steady' })
      const before = spaces().get(space.id)
      const bad: unknown[] = [
        { title: 'x'.repeat(51) },
        { title: null },
        { emoji: 'hello' },
        { emoji: 'x'.repeat(51) },
        { editMode: 'frozen' },
        { language: 'xx' },
        { defaultLevel: 'owner' },
        { mergeRules: { type: 'sometimes' } },
        { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [stranger.id] }] } },
        { emoji: '1f680', icon: 'https://example.com/i.png' },
        { icon: 'not a url' },
      ]
      for (const body of bad) {
        const res = await t.api.raw('PATCH', `/spaces/${space.id}`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await reader.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { title: 'Mine' } })).status).toBe(403)
      expect((await stranger.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { title: 'Mine' } })).status).toBe(404)
      expect((await t.api.call('updateSpaceById', { params: { spaceId: 'missing' }, body: { title: 'Mine' } })).status).toBe(404)
      expect(spaces().get(space.id)).toEqual(before)
    })
  })

  describe('deleteSpaceById / restoreSpace', () => {
    it('trashes a space (205), shows it to admins with deletedAt, restores it within 7 days', async () => {
      const space = await createSpace({ title: 'Trash me' })
      expect((await reader.api.call('deleteSpaceById', { params: { spaceId: space.id } })).status).toBe(403)
      const res = await t.api.call('deleteSpaceById', { params: { spaceId: space.id } })
      expect(res.status).toBe(205)
      const seen = await t.api.call('getSpaceById', { params: { spaceId: space.id } })
      expect(seen.body.deletedAt).toBe(now.toISOString())
      expect(seen.body.permissions).toMatchObject({ view: true, admin: true, edit: false, comment: false })
      expect((await reader.api.call('getSpaceById', { params: { spaceId: space.id } })).status).toBe(404)
      expect((await reader.api.call('restoreSpace', { params: { spaceId: space.id } })).status).toBe(404)
      const listed = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId }, query: { limit: 1000 } })
      expect(ids(listed.body.items)).not.toContain(space.id)
      // Deleting again: the spec's "Space did not exist" (204); it stays in the trash as it was.
      expect((await t.api.call('deleteSpaceById', { params: { spaceId: space.id } })).status).toBe(204)
      expect(spaces().get(space.id)?.deletedAt).toBe(now.toISOString())
      expect((await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { title: 'x' } })).status).toBe(404)

      now = new Date(now.getTime() + 6 * DAY)
      const restored = await t.api.call('restoreSpace', { params: { spaceId: space.id } })
      expect(restored.status).toBe(200)
      expect(restored.body.deletedAt).toBeUndefined()
      expect((await reader.api.call('getSpaceById', { params: { spaceId: space.id } })).status).toBe(200)
      const notDeleted = await t.api.call('restoreSpace', { params: { spaceId: space.id } })
      expect(notDeleted.status).toBe(400)
    })

    it('removes a space for good 7 days after deletion', async () => {
      const space = await createSpace({ title: 'Gone for good' })
      expect((await t.api.call('deleteSpaceById', { params: { spaceId: space.id } })).status).toBe(205)
      now = new Date(now.getTime() + 7 * DAY + 1000)
      expect((await t.api.call('restoreSpace', { params: { spaceId: space.id } })).status).toBe(404)
      expect((await t.api.call('getSpaceById', { params: { spaceId: space.id } })).status).toBe(404)
      expect(spaces().get(space.id)).toBeUndefined()
    })

    it('answers 204 "did not exist" to deleting unknown or invisible spaces, 404 to restoring them', async () => {
      const hidden = await createSpace({ title: 'Hidden from strangers' })
      expect((await t.api.call('deleteSpaceById', { params: { spaceId: 'missing' } })).status).toBe(204)
      expect((await stranger.api.call('deleteSpaceById', { params: { spaceId: hidden.id } })).status).toBe(204)
      expect(spaces().get(hidden.id)?.deletedAt).toBeNull()
      expect((await t.api.call('restoreSpace', { params: { spaceId: 'missing' } })).status).toBe(404)
    })
  })

  describe('duplicateSpace', () => {
    it('copies settings and the current content into a new space (201)', async () => {
      const source = await createSpace({ title: 'Original', emoji: '1f4d8' })
      const res = await t.api.call('duplicateSpace', { params: { spaceId: source.id } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/spaces/${res.body.id}`)
      expect(res.body).toMatchObject({ title: 'Original (copy)', emoji: '1f4d8', organization: orgId })
      expect(res.body.id).not.toBe(source.id)
      const revisions = store().repo(RevisionsRepository)
      expect(revisions.get(res.body.revision)?.tree).toEqual(revisions.get(source.revision)?.tree)
      expect(revisions.get(res.body.revision)?.spaceId).toBe(res.body.id)
    })

    it('needs the create role (403) and a visible space (404)', async () => {
      const source = await createSpace({ title: 'Protected' })
      const before = spaces().listByOrg(orgId).length
      expect((await reader.api.call('duplicateSpace', { params: { spaceId: source.id } })).status).toBe(403)
      expect((await stranger.api.call('duplicateSpace', { params: { spaceId: source.id } })).status).toBe(404)
      expect((await t.api.call('duplicateSpace', { params: { spaceId: 'missing' } })).status).toBe(404)
      expect(spaces().listByOrg(orgId).length).toBe(before)
    })
  })

  describe('moveSpace', () => {
    it('moves a space into a collection and orders it before or after others', async () => {
      const org = orgs().create({ title: 'Move Org', owner: t.service.ownerId }).id
      const a = await createSpace({ title: 'A' }, t.api, org)
      const b = await createSpace({ title: 'B' }, t.api, org)
      const c = await createSpace({ title: 'C' }, t.api, org)
      const col = (await t.api.call('createCollection', { params: { organizationId: org }, body: { title: 'Col' } })).body
      const top = () => ids(spaces().listByOrg(org).filter((s) => !s.collectionId))
      expect(top()).toEqual([a.id, b.id, c.id])
      const first = await t.api.call('moveSpace', { params: { spaceId: c.id }, body: { position: { before: { type: 'space', space: a.id } } } })
      expect(first.status).toBe(200)
      expect(top()).toEqual([c.id, a.id, b.id])
      await t.api.call('moveSpace', { params: { spaceId: c.id }, body: { position: { after: { type: 'space', space: a.id }, before: { type: 'space', space: b.id } } } })
      expect(top()).toEqual([a.id, c.id, b.id])
      const into = await t.api.call('moveSpace', { params: { spaceId: a.id }, body: { parent: col.id } })
      expect(into.body.parent).toBe(col.id)
      expect(top()).toEqual([c.id, b.id])
      const inCol = await t.api.call('listSpacesInCollectionById', { params: { collectionId: col.id } })
      expect(ids(inCol.body.items)).toEqual([a.id])
      const out = await t.api.call('moveSpace', { params: { spaceId: a.id }, body: { parent: null, position: { after: { type: 'collection', collection: col.id } } } })
      expect(out.body.parent).toBeUndefined()
    })

    it('rejects invalid positions and collections (400), no-op moves (409), low roles (403), unknown ids (404)', async () => {
      const org = orgs().create({ title: 'Move Errors', owner: t.service.ownerId }).id
      orgs().setMember(org, reader.id, 'read')
      const a = await createSpace({ title: 'A' }, t.api, org)
      const b = await createSpace({ title: 'B' }, t.api, org)
      const otherOrgCollection = store().repo(CollectionsRepository).create({ orgId, title: 'Elsewhere' })
      const snapshot = () => spaces().listByOrg(org).map((s) => [s.id, s.collectionId, s.position])
      const before = snapshot()
      const bad: unknown[] = [
        {},
        { parent: 'missing' },
        { parent: otherOrgCollection.id },
        { parent: 3 },
        { position: { before: { type: 'space', space: 'missing' } } },
        { position: { before: { type: 'space', space: a.id } } },
        { position: { after: { type: 'space', space: a.id }, before: { type: 'space', space: a.id } } },
        { position: { after: { type: 'page', page: 'x' } } },
      ]
      for (const body of bad) {
        const res = await t.api.raw('POST', `/spaces/${a.id}/move`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const noop = await t.api.call('moveSpace', { params: { spaceId: a.id }, body: { position: { before: { type: 'space', space: b.id } } } })
      // The spec's 409: "Operation would not result in any update".
      expect(noop.status).toBe(409)
      expect(noop.body.error.message).toMatch(/no update/i)
      expect((await t.api.call('moveSpace', { params: { spaceId: b.id }, body: { parent: null } })).status).toBe(409)
      expect((await reader.api.call('moveSpace', { params: { spaceId: a.id }, body: { position: { after: { type: 'space', space: b.id } } } })).status).toBe(403)
      expect((await t.api.call('moveSpace', { params: { spaceId: 'missing' }, body: { parent: null } })).status).toBe(404)
      expect(snapshot()).toEqual(before)
    })
  })

  describe('transferSpace', () => {
    it('moves a top-level space to another organization', async () => {
      const target = orgs().create({ title: 'Target', owner: t.service.ownerId }).id
      const space = await createSpace({ title: 'Traveller' })
      const res = await t.api.call('transferSpace', { params: { spaceId: space.id }, body: { organization: target } })
      expect(res.status).toBe(200)
      expect(res.body.organization).toBe(target)
      const listed = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: target } })
      expect(ids(listed.body.items)).toEqual([space.id])
    })

    it('refuses no-op, nested, unknown and unauthorized transfers, changing nothing', async () => {
      const target = orgs().create({ title: 'Read-only target', owner: t.service.ownerId }).id
      orgs().setMember(target, creator.id, 'read')
      const space = await createSpace({ title: 'Homebody' })
      const collection = (await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Home' } })).body
      const nested = await createSpace({ title: 'Nested', parent: collection.id })
      const own = await createSpace({ title: 'Cora owns' }, creator.api)
      const snapshot = () => spaces().listByOrg(orgId).map((s) => [s.id, s.orgId, s.collectionId])
      const before = snapshot()
      const same = await t.api.call('transferSpace', { params: { spaceId: space.id }, body: { organization: orgId } })
      expect(same.status).toBe(409)
      expect(same.body.error.message).toMatch(/no update/i)
      expect((await t.api.call('transferSpace', { params: { spaceId: nested.id }, body: { organization: target } })).status).toBe(412)
      expect((await t.api.call('transferSpace', { params: { spaceId: space.id }, body: { organization: 'missing' } })).status).toBe(404)
      expect((await creator.api.call('transferSpace', { params: { spaceId: own.id }, body: { organization: target } })).status).toBe(403)
      expect((await reader.api.call('transferSpace', { params: { spaceId: space.id }, body: { organization: target } })).status).toBe(403)
      expect((await t.api.call('transferSpace', { params: { spaceId: 'missing' }, body: { organization: target } })).status).toBe(404)
      for (const body of [{}, { organization: '' }, { organization: 5 }, { organization: target, extra: true }]) {
        expect((await t.api.raw('POST', `/spaces/${space.id}/transfer`, body)).status, JSON.stringify(body)).toBe(400)
      }
      expect(snapshot()).toEqual(before)
    })
  })

  describe('listSpacesInOrganizationById', () => {
    it('lists the live spaces the caller can read, paged', async () => {
      const org = orgs().create({ title: 'Listing', owner: t.service.ownerId }).id
      orgs().setMember(org, guest.id, null)
      const made = [await createSpace({ title: 'L1' }, t.api, org), await createSpace({ title: 'L2' }, t.api, org), await createSpace({ title: 'L3' }, t.api, org)]
      const page1 = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: org }, query: { limit: 2 } })
      expect(page1.body.count).toBe(3)
      expect(ids(page1.body.items)).toEqual([made[0].id, made[1].id])
      const page2 = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: org }, query: { limit: 2, page: page1.body.next.page } })
      expect(ids(page2.body.items)).toEqual([made[2].id])
      // A guest sees only what is shared with them.
      spaces().setUserRole(made[1].id, guest.id, 'read')
      const guestList = await guest.api.call('listSpacesInOrganizationById', { params: { organizationId: org } })
      expect(ids(guestList.body.items)).toEqual([made[1].id])
      expect((await stranger.api.call('listSpacesInOrganizationById', { params: { organizationId: org } })).status).toBe(404)
      for (const limit of ['5000', '-1', 'abc']) {
        const res = await t.api.raw('GET', `/orgs/${org}/spaces?limit=${limit}`)
        expect(res.status).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
    })
  })
})

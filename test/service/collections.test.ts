import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CollectionsRepository } from '../../src/main/service/store/collections'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { errorBody, person as newPerson, type Person } from '../support/fixtures'
import { startTestService, type ApiClient, type TestService } from '../support/service'

const ids = (items: Array<{ id: string }>) => items.map((i) => i.id)

describe('collections', () => {
  let t: TestService
  let orgId: string
  let reader: Person // organization role `read`
  let creator: Person // organization role `create`
  let stranger: Person // not in the organization
  const collections = () => t.service.store.repo(CollectionsRepository)
  const spaces = () => t.service.store.repo(SpacesRepository)
  const orgs = () => t.service.store.repo(OrganizationsRepository)

  const person = (name: string): Person => newPerson(t, name)
  const create = async (body: Record<string, unknown> = {}, api: ApiClient = t.api) => {
    const res = await api.call('createCollection', { params: { organizationId: orgId }, body })
    expect(res.status).toBe(201)
    return res.body as { id: string; title: string; parent?: string }
  }
  beforeAll(async () => {
    t = await startTestService()
    orgId = orgs().create({ title: 'Collections Org', owner: t.service.ownerId }).id
    reader = person('Rita')
    creator = person('Cora')
    stranger = person('Stan')
    orgs().setMember(orgId, reader.id, 'read')
    orgs().setMember(orgId, creator.id, 'create')
  })
  afterAll(() => t.close())

  describe('createCollection', () => {
    it('creates top-level and nested collections (201, Location)', async () => {
      const res = await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Guides' } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/collections/${res.body.id}`)
      expect(res.body).toMatchObject({
        object: 'collection',
        title: 'Guides',
        organization: orgId,
        defaultLevel: 'inherit',
        permissions: { view: true, admin: true, viewInviteLinks: true, create: true },
      })
      const child = await create({ title: 'Child', parent: res.body.id })
      expect(child.parent).toBe(res.body.id)
      const untitled = await t.api.call('createCollection', { params: { organizationId: orgId } })
      expect(untitled.body.title).toBe('Untitled')
    })

    it('rejects bad input (400), low roles (403) and unknown organizations (404), creating nothing', async () => {
      const before = collections().listByOrg(orgId).length
      for (const body of [{ title: 'x'.repeat(51) }, { title: 7 }, { parent: 'missing' }, { parent: 42 }]) {
        const res = await t.api.raw('POST', `/orgs/${orgId}/collections`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const denied = await reader.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Nope' } })
      expect(denied.status).toBe(403)
      expect((await stranger.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Nope' } })).status).toBe(404)
      expect((await t.api.call('createCollection', { params: { organizationId: 'nope' }, body: { title: 'Nope' } })).status).toBe(404)
      expect(collections().listByOrg(orgId).length).toBe(before)
      // A member with the create role may.
      expect((await create({ title: 'By creator' }, creator.api)).title).toBe('By creator')
    })
  })

  describe('getCollectionById / updateCollectionById', () => {
    it('answers the collection, with permissions that differ by role', async () => {
      const c = await create({ title: 'Readable' })
      const own = await t.api.call('getCollectionById', { params: { collectionId: c.id } })
      expect(own.status).toBe(200)
      expect(own.body.permissions).toEqual({ view: true, admin: true, viewInviteLinks: true, create: true })
      const read = await reader.api.call('getCollectionById', { params: { collectionId: c.id } })
      expect(read.body.permissions).toEqual({ view: true, admin: false, viewInviteLinks: false, create: false })
      expect((await stranger.api.call('getCollectionById', { params: { collectionId: c.id } })).status).toBe(404)
      expect((await t.api.call('getCollectionById', { params: { collectionId: 'missing' } })).status).toBe(404)
    })

    it('updates title, description and defaultLevel', async () => {
      const c = await create({ title: 'Before' })
      const res = await t.api.call('updateCollectionById', {
        params: { collectionId: c.id },
        body: { title: 'After', description: 'What is inside', defaultLevel: 'edit' },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ title: 'After', description: 'What is inside', defaultLevel: 'edit' })
      // The level now applies to members below admin.
      const read = await reader.api.call('getCollectionById', { params: { collectionId: c.id } })
      expect(read.body.permissions.view).toBe(true)
      const hidden = await t.api.call('updateCollectionById', { params: { collectionId: c.id }, body: { defaultLevel: null } })
      expect(hidden.body.defaultLevel).toBeNull()
    })

    it('rejects bad input with 400, low roles with 403, unknown ids with 404; nothing changes', async () => {
      const c = await create({ title: 'Stable' })
      const before = collections().get(c.id)
      for (const body of [{ title: 'x'.repeat(51) }, { description: 'd'.repeat(101) }, { defaultLevel: 'owner' }, { title: ['x'] }]) {
        const res = await t.api.raw('PATCH', `/collections/${c.id}`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await reader.api.call('updateCollectionById', { params: { collectionId: c.id }, body: { title: 'Mine' } })).status).toBe(403)
      expect((await stranger.api.call('updateCollectionById', { params: { collectionId: c.id }, body: { title: 'Mine' } })).status).toBe(404)
      expect((await t.api.call('updateCollectionById', { params: { collectionId: 'missing' }, body: { title: 'Mine' } })).status).toBe(404)
      expect(collections().get(c.id)).toEqual(before)
    })
  })

  describe('listCollectionsInOrganizationById', () => {
    it('lists nested collections by default, top level with nested=false, paged', async () => {
      const org2 = orgs().create({ title: 'Listing Org', owner: t.service.ownerId }).id
      const make = async (title: string, parent?: string) =>
        (await t.api.call('createCollection', { params: { organizationId: org2 }, body: { title, ...(parent ? { parent } : {}) } })).body
      const a = await make('A')
      const a1 = await make('A1', a.id)
      const b = await make('B')
      const all = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: org2 } })
      expect(ids(all.body.items)).toEqual([a.id, a1.id, b.id])
      const top = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: org2 }, query: { nested: false } })
      expect(ids(top.body.items)).toEqual([a.id, b.id])
      const page1 = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: org2 }, query: { limit: 2 } })
      expect(page1.body.count).toBe(3)
      const page2 = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: org2 }, query: { limit: 2, page: page1.body.next.page } })
      expect(ids(page2.body.items)).toEqual([b.id])
    })

    it('rejects hostile query values and hides the organization from strangers', async () => {
      for (const q of ['limit=5000', 'limit=-1', 'limit=abc', 'nested=maybe']) {
        const res = await t.api.raw('GET', `/orgs/${orgId}/collections?${q}`)
        expect(res.status, q).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await stranger.api.call('listCollectionsInOrganizationById', { params: { organizationId: orgId } })).status).toBe(404)
    })
  })

  describe('listSpacesInCollectionById', () => {
    it('lists the live spaces of the collection the caller can read', async () => {
      const c = await create({ title: 'With spaces' })
      const s1 = spaces().create({ orgId, title: 'One', collectionId: c.id })
      const s2 = spaces().create({ orgId, title: 'Two', collectionId: c.id })
      const gone = spaces().create({ orgId, title: 'Gone', collectionId: c.id })
      spaces().markDeleted(gone.id, t.service.store.now())
      const res = await t.api.call('listSpacesInCollectionById', { params: { collectionId: c.id }, query: { limit: 1 } })
      expect(res.status).toBe(200)
      expect(res.body.count).toBe(2)
      expect(ids(res.body.items)).toEqual([s1.id])
      const rest = await t.api.call('listSpacesInCollectionById', { params: { collectionId: c.id }, query: { page: res.body.next.page } })
      expect(ids(rest.body.items)).toEqual([s2.id])
      expect((await t.api.raw('GET', `/collections/${c.id}/spaces?limit=5000`)).status).toBe(400)
      expect((await t.api.call('listSpacesInCollectionById', { params: { collectionId: 'missing' } })).status).toBe(404)
    })
  })

  describe('moveCollection', () => {
    it('moves into another collection and reorders among spaces and collections', async () => {
      const org3 = orgs().create({ title: 'Move Org', owner: t.service.ownerId }).id
      const make = async (title: string, parent?: string) =>
        (await t.api.call('createCollection', { params: { organizationId: org3 }, body: { title, ...(parent ? { parent } : {}) } })).body
      const a = await make('A')
      const b = await make('B')
      const c = await make('C')
      const space = (await t.api.call('createSpace', { params: { organizationId: org3 }, body: { title: 'S' } })).body
      const topOrder = () => {
        const cols = collections().children(org3, null).map((x) => ({ k: x.title, p: x.position }))
        const sps = spaces().listByOrg(org3).filter((s) => !s.collectionId).map((s) => ({ k: `space:${s.title}`, p: s.position }))
        return [...cols, ...sps].sort((x, y) => x.p - y.p).map((x) => x.k)
      }
      expect(topOrder()).toEqual(['A', 'B', 'C', 'space:S'])

      const before = await t.api.call('moveCollection', { params: { collectionId: c.id }, body: { position: { before: { type: 'collection', collection: a.id } } } })
      expect(before.status).toBe(200)
      expect(topOrder()).toEqual(['C', 'A', 'B', 'space:S'])
      await t.api.call('moveCollection', { params: { collectionId: a.id }, body: { position: { after: { type: 'space', space: space.id } } } })
      expect(topOrder()).toEqual(['C', 'B', 'space:S', 'A'])

      const nested = await t.api.call('moveCollection', { params: { collectionId: b.id }, body: { parent: c.id } })
      expect(nested.body.parent).toBe(c.id)
      expect(topOrder()).toEqual(['C', 'space:S', 'A'])
      const back = await t.api.call('moveCollection', { params: { collectionId: b.id }, body: { parent: null, position: { before: { type: 'collection', collection: c.id } } } })
      expect(back.body.parent).toBeUndefined()
      expect(topOrder()).toEqual(['B', 'C', 'space:S', 'A'])
    })

    it('rejects invalid parents and positions and moves that change nothing (400); nothing moves', async () => {
      const parent = await create({ title: 'Parent' })
      const child = await create({ title: 'Kid', parent: parent.id })
      const sibling = await create({ title: 'Sib' })
      const snapshot = () => collections().listByOrg(orgId)
      const before = snapshot()
      const bad: unknown[] = [
        {},
        { parent: 'missing' },
        { parent: parent.id, position: { before: { type: 'collection', collection: sibling.id } } },
        { position: { before: { type: 'collection', collection: 'missing' } } },
        { position: { after: { type: 'space' } } },
        { position: { before: { type: 'collection', collection: parent.id } } },
        { parent: 5 },
      ]
      for (const body of bad) {
        const res = await t.api.raw('POST', `/collections/${parent.id}/move`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      // Into itself or its own child.
      expect((await t.api.raw('POST', `/collections/${parent.id}/move`, { parent: parent.id })).status).toBe(400)
      expect((await t.api.raw('POST', `/collections/${parent.id}/move`, { parent: child.id })).status).toBe(400)
      // Already there: no update.
      const same = await t.api.call('moveCollection', { params: { collectionId: child.id }, body: { parent: parent.id } })
      // The spec's 409: "Operation would not result in any update".
      expect(same.status).toBe(409)
      expect(same.body.error.message).toMatch(/no update/i)
      expect((await reader.api.call('moveCollection', { params: { collectionId: sibling.id }, body: { parent: parent.id } })).status).toBe(403)
      expect((await t.api.call('moveCollection', { params: { collectionId: 'missing' }, body: { parent: null } })).status).toBe(404)
      expect(snapshot()).toEqual(before)
    })
  })

  describe('transferCollection', () => {
    it('moves the collection, its nested collections and their spaces to another organization', async () => {
      const target = orgs().create({ title: 'Target Org', owner: t.service.ownerId }).id
      const c = await create({ title: 'Moving' })
      const inner = await create({ title: 'Inner', parent: c.id })
      const s = spaces().create({ orgId, title: 'Inside', collectionId: inner.id })
      const res = await t.api.call('transferCollection', { params: { collectionId: c.id }, body: { organization: target } })
      expect(res.status).toBe(200)
      expect(res.body.organization).toBe(target)
      expect(collections().get(inner.id)?.orgId).toBe(target)
      expect(spaces().get(s.id)?.orgId).toBe(target)
      const listed = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: target } })
      expect(ids(listed.body.items)).toEqual([c.id, inner.id])
    })

    it('refuses no-op, nested, unknown and unauthorized transfers, changing nothing', async () => {
      const target = orgs().create({ title: 'Other Target', owner: t.service.ownerId }).id
      orgs().setMember(target, reader.id, 'read')
      const c = await create({ title: 'Stays' })
      const nested = await create({ title: 'Nested', parent: c.id })
      const before = collections().listByOrg(orgId)
      const same = await t.api.call('transferCollection', { params: { collectionId: c.id }, body: { organization: orgId } })
      expect(same.status).toBe(409)
      const inside = await t.api.call('transferCollection', { params: { collectionId: nested.id }, body: { organization: target } })
      expect(inside.status).toBe(412)
      expect((await t.api.call('transferCollection', { params: { collectionId: c.id }, body: { organization: 'missing' } })).status).toBe(404)
      expect((await t.api.raw('POST', `/collections/${c.id}/transfer`, {})).status).toBe(400)
      expect((await t.api.raw('POST', `/collections/${c.id}/transfer`, { organization: 3 })).status).toBe(400)
      expect((await reader.api.call('transferCollection', { params: { collectionId: c.id }, body: { organization: target } })).status).toBe(403)
      expect((await t.api.call('transferCollection', { params: { collectionId: 'missing' }, body: { organization: target } })).status).toBe(404)
      expect(collections().listByOrg(orgId)).toEqual(before)
    })
  })

  describe('deleteCollectionById', () => {
    it('deletes the collection and its nested ones (205); their spaces go to the trash', async () => {
      const c = await create({ title: 'Doomed' })
      const inner = await create({ title: 'Doomed inner', parent: c.id })
      const s = spaces().create({ orgId, title: 'Trashed', collectionId: inner.id })
      expect((await reader.api.call('deleteCollectionById', { params: { collectionId: c.id } })).status).toBe(403)
      expect(collections().get(c.id)).toBeDefined()
      const res = await t.api.call('deleteCollectionById', { params: { collectionId: c.id } })
      expect(res.status).toBe(205)
      expect(collections().get(c.id)).toBeUndefined()
      expect(collections().get(inner.id)).toBeUndefined()
      expect(spaces().get(s.id)).toMatchObject({ deletedAt: expect.any(String), collectionId: null })
      expect((await t.api.call('getCollectionById', { params: { collectionId: c.id } })).status).toBe(404)
      // The spec's "Collection did not exist"; likewise for one the caller cannot see.
      expect((await t.api.call('deleteCollectionById', { params: { collectionId: c.id } })).status).toBe(204)
      const kept = await create({ title: 'Kept' })
      expect((await stranger.api.call('deleteCollectionById', { params: { collectionId: kept.id } })).status).toBe(204)
      expect(collections().get(kept.id)).toBeDefined()
    })
  })
})

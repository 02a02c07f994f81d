import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { TeamsRepository } from '../../src/main/service/store/teams'
import { errorBody, person as newPerson, type Person } from '../support/fixtures'
import { startTestService, type ApiClient, type TestService } from '../support/service'

describe('space users and teams', () => {
  let t: TestService
  let orgId: string
  let reader: Person // organization role `read`
  let editor: Person // organization role `edit`
  let outsider: Person // not in the organization
  const spaces = () => t.service.store.repo(SpacesRepository)
  const orgs = () => t.service.store.repo(OrganizationsRepository)
  const teams = () => t.service.store.repo(TeamsRepository)

  const person = (name: string): Person => newPerson(t, name)
  const newSpace = async (title: string) => {
    const res = await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })
    expect(res.status).toBe(201)
    return res.body.id as string
  }
  const invite = (spaceId: string, body: unknown, api: ApiClient = t.api) => api.call('inviteToSpace', { params: { spaceId }, body })

  beforeAll(async () => {
    t = await startTestService()
    orgId = orgs().create({ title: 'Permissions Org', owner: t.service.ownerId }).id
    reader = person('Rita')
    editor = person('Ed')
    outsider = person('Olly')
    orgs().setMember(orgId, reader.id, 'read')
    orgs().setMember(orgId, editor.id, 'edit')
  })
  afterAll(() => t.close())

  describe('inviteToSpace / listUserPermissionsInSpace', () => {
    it('grants roles to users (even outside the organization) and lists them, paged', async () => {
      const spaceId = await newSpace('Shared')
      expect((await outsider.api.call('getSpaceById', { params: { spaceId } })).status).toBe(404)
      const res = await invite(spaceId, { role: 'comment', users: [outsider.id, reader.id] })
      expect(res.status).toBe(204)
      const seen = await outsider.api.call('getSpaceById', { params: { spaceId } })
      expect(seen.status).toBe(200)
      expect(seen.body.permissions).toMatchObject({ view: true, comment: true, edit: false, admin: false })

      const page1 = await t.api.call('listUserPermissionsInSpace', { params: { spaceId }, query: { limit: 1 } })
      expect(page1.status).toBe(200)
      expect(page1.body.count).toBe(2)
      expect(page1.body.items).toEqual([{ permission: 'comment', user: expect.objectContaining({ id: outsider.id, object: 'user' }) }])
      const page2 = await t.api.call('listUserPermissionsInSpace', { params: { spaceId }, query: { page: page1.body.next.page } })
      expect(page2.body.items.map((i: { user: { id: string } }) => i.user.id)).toEqual([reader.id])

      // Inviting again changes the role; a null role withdraws the grant.
      await invite(spaceId, { role: 'edit', users: [outsider.id] })
      expect(spaces().userRole(spaceId, outsider.id)).toBe('edit')
      await invite(spaceId, { role: null, users: [outsider.id] })
      expect(spaces().userRole(spaceId, outsider.id)).toBeUndefined()
      expect((await outsider.api.call('getSpaceById', { params: { spaceId } })).status).toBe(404)
    })

    it('rejects bad input (400), low roles (403), unknown spaces (404), granting nothing', async () => {
      const spaceId = await newSpace('Guarded')
      const bad: unknown[] = [
        {},
        { users: [outsider.id] },
        { role: 'owner', users: [outsider.id] },
        { role: 'read' },
        { role: 'read', users: [] },
        { role: 'read', users: 'x' },
      ]
      for (const body of bad) {
        const res = await t.api.raw('POST', `/spaces/${spaceId}/permissions`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      // The spec's 404 "No team or user with the provided Id".
      for (const body of [{ role: 'read', users: [outsider.id, 'missing'] }, { role: 'read', teams: ['missing'] }]) {
        const res = await invite(spaceId, body)
        expect(res.status, JSON.stringify(body)).toBe(404)
        expect(res.body).toEqual(errorBody(404))
      }
      expect((await invite(spaceId, { role: 'admin', users: [reader.id] }, reader.api)).status).toBe(403)
      expect((await invite(spaceId, { role: 'read', users: [outsider.id] }, outsider.api)).status).toBe(404)
      expect((await invite('missing', { role: 'read', users: [outsider.id] })).status).toBe(404)
      expect(spaces().users(spaceId).map((u) => u.userId)).toEqual([])
      expect((await t.api.raw('GET', `/spaces/${spaceId}/permissions/users?limit=5000`)).status).toBe(400)
      expect((await t.api.raw('GET', `/spaces/${spaceId}/permissions/users?limit=abc`)).status).toBe(400)
      expect((await outsider.api.call('listUserPermissionsInSpace', { params: { spaceId } })).status).toBe(404)
    })
  })

  describe('updateUserPermissionInSpace / removeUserFromSpace', () => {
    it('changes and removes a grant (204, then 205 removed, 204 not found)', async () => {
      const spaceId = await newSpace('Changing')
      await invite(spaceId, { role: 'read', users: [outsider.id] })
      const res = await t.api.call('updateUserPermissionInSpace', { params: { spaceId, userId: outsider.id }, body: { role: 'admin' } })
      expect(res.status).toBe(204)
      expect((await outsider.api.call('getSpaceById', { params: { spaceId } })).body.permissions.admin).toBe(true)
      const removed = await t.api.call('removeUserFromSpace', { params: { spaceId, userId: outsider.id } })
      expect(removed.status).toBe(205)
      expect((await outsider.api.call('getSpaceById', { params: { spaceId } })).status).toBe(404)
      const absent = await t.api.call('removeUserFromSpace', { params: { spaceId, userId: outsider.id } })
      expect(absent.status).toBe(204)
    })

    it('rejects bad input (400), users not in the space (404), low roles (403); nothing changes', async () => {
      const spaceId = await newSpace('Fixed')
      await invite(spaceId, { role: 'comment', users: [outsider.id] })
      for (const body of [{}, { role: 'owner' }, { role: 5 }]) {
        const res = await t.api.raw('PATCH', `/spaces/${spaceId}/permissions/users/${outsider.id}`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const notThere = await t.api.call('updateUserPermissionInSpace', { params: { spaceId, userId: editor.id }, body: { role: 'read' } })
      expect(notThere.status).toBe(404)
      expect((await reader.api.call('updateUserPermissionInSpace', { params: { spaceId, userId: outsider.id }, body: { role: 'admin' } })).status).toBe(403)
      expect((await reader.api.call('removeUserFromSpace', { params: { spaceId, userId: outsider.id } })).status).toBe(403)
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: 'missing', userId: outsider.id } })).status).toBe(404)
      expect(spaces().users(spaceId)).toEqual([{ userId: outsider.id, role: 'comment' }])
    })
  })

  describe('listPermissionsAggregateInSpace', () => {
    it('lists everyone who can read the space with their effective role, filtered by role', async () => {
      const spaceId = await newSpace('Everyone')
      await invite(spaceId, { role: 'review', users: [outsider.id, reader.id] })
      const res = await t.api.call('listPermissionsAggregateInSpace', { params: { spaceId } })
      expect(res.status).toBe(200)
      const byUser = Object.fromEntries(res.body.items.map((i: { user: { id: string }; permission: string }) => [i.user.id, i.permission]))
      expect(byUser).toEqual({ [t.service.ownerId]: 'admin', [reader.id]: 'review', [editor.id]: 'edit', [outsider.id]: 'review' })
      expect(res.body.items[0].permission).toBe('admin')

      const reviewers = await t.api.call('listPermissionsAggregateInSpace', { params: { spaceId }, query: { role: 'review' } })
      expect(reviewers.body.count).toBe(2)
      const paged = await t.api.call('listPermissionsAggregateInSpace', { params: { spaceId }, query: { limit: 3 } })
      expect(paged.body.items).toHaveLength(3)
      expect(paged.body.next.page).toEqual(expect.any(String))
    })

    it('rejects a bad role filter and hostile limits with 400', async () => {
      const spaceId = await newSpace('Filtered')
      for (const q of ['role=owner', 'limit=5000', 'limit=-1', 'limit=abc']) {
        const res = await t.api.raw('GET', `/spaces/${spaceId}/permissions/aggregate?${q}`)
        expect(res.status, q).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await outsider.api.call('listPermissionsAggregateInSpace', { params: { spaceId } })).status).toBe(404)
    })
  })

  describe('team permissions', () => {
    it('grants, lists, changes and removes a team role', async () => {
      const spaceId = await newSpace('Teamwork')
      const team = teams().create({ orgId, title: 'Writers', members: [{ userId: editor.id }] })
      expect((await invite(spaceId, { role: 'comment', teams: [team.id] })).status).toBe(204)
      const list = await t.api.call('listTeamPermissionsInSpace', { params: { spaceId } })
      expect(list.status).toBe(200)
      expect(list.body.items).toEqual([{ permission: 'comment', team: expect.objectContaining({ id: team.id, object: 'team', title: 'Writers' }) }])

      const update = await t.api.call('updateTeamPermissionInSpace', { params: { spaceId, teamId: team.id }, body: { role: 'admin' } })
      expect(update.status).toBe(204)
      expect(spaces().teamRole(spaceId, team.id)).toBe('admin')
      expect((await reader.api.call('updateTeamPermissionInSpace', { params: { spaceId, teamId: team.id }, body: { role: 'read' } })).status).toBe(403)
      expect((await t.api.raw('PATCH', `/spaces/${spaceId}/permissions/teams/${team.id}`, { role: 'owner' })).status).toBe(400)
      expect((await t.api.raw('PATCH', `/spaces/${spaceId}/permissions/teams/${team.id}`, {})).status).toBe(400)
      expect((await t.api.call('updateTeamPermissionInSpace', { params: { spaceId, teamId: 'missing' }, body: { role: 'read' } })).status).toBe(404)
      expect(spaces().teamRole(spaceId, team.id)).toBe('admin')

      expect((await t.api.call('removeTeamFromSpace', { params: { spaceId, teamId: team.id } })).status).toBe(205)
      expect((await t.api.call('removeTeamFromSpace', { params: { spaceId, teamId: team.id } })).status).toBe(204)
      expect((await t.api.call('listTeamPermissionsInSpace', { params: { spaceId } })).body).toEqual({ count: 0, items: [] })
      expect((await t.api.raw('GET', `/spaces/${spaceId}/permissions/teams?limit=5000`)).status).toBe(400)
    })

    it('refuses teams of another organization', async () => {
      const spaceId = await newSpace('Foreign teams')
      const otherOrg = orgs().create({ title: 'Elsewhere', owner: t.service.ownerId }).id
      const foreign = teams().create({ orgId: otherOrg, title: 'Foreigners' })
      const res = await invite(spaceId, { role: 'read', teams: [foreign.id] })
      expect(res.status).toBe(404)
      expect(spaces().teams(spaceId)).toEqual([])
    })
  })
})

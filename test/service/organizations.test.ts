import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { errorBody, person as newPerson, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

describe('organizations', () => {
  let t: TestService
  let orgId: string
  let reader: Person // organization role `read`
  let stranger: Person // not in the organization
  const orgs = () => t.service.store.repo(OrganizationsRepository)

  const person = (name: string, domain = 'example.com'): Person => newPerson(t, name, `${name.toLowerCase()}@${domain}`)

  beforeAll(async () => {
    t = await startTestService()
    orgId = orgs().create({ title: 'Acme Docs', owner: t.service.ownerId }).id
    reader = person('Rita')
    stranger = person('Stan')
    orgs().setMember(orgId, reader.id, 'read')
  })
  afterAll(() => t.close())

  describe('listOrganizationsForAuthenticatedUser', () => {
    it('lists the organizations the caller belongs to, paged', async () => {
      const extra = [orgs().create({ title: 'Second Org', owner: t.service.ownerId }).id, orgs().create({ title: 'Third Org', owner: t.service.ownerId }).id]
      const first = await t.api.call('listOrganizationsForAuthenticatedUser', { query: { limit: 2 } })
      expect(first.status).toBe(200)
      expect(first.body.count).toBe(3)
      expect(first.body.items.map((o: { id: string }) => o.id)).toEqual([orgId, extra[0]])
      expect(first.body.next.page).toEqual(expect.any(String))
      const second = await t.api.call('listOrganizationsForAuthenticatedUser', { query: { limit: 2, page: first.body.next.page } })
      expect(second.body.items.map((o: { id: string }) => o.id)).toEqual([extra[1]])
      expect(second.body.next).toBeUndefined()

      const mine = await stranger.api.call('listOrganizationsForAuthenticatedUser')
      expect(mine.body).toEqual({ count: 0, items: [] })
    })

    it('rejects hostile limits and page tokens with 400', async () => {
      for (const limit of ['5000', '-1', 'abc']) {
        const res = await t.api.raw('GET', `/orgs?limit=${limit}`)
        expect(res.status).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const res = await t.api.raw('GET', '/orgs?page=garbage')
      expect(res.status).toBe(400)
    })
  })

  describe('getOrganizationById', () => {
    it('answers the organization with permissions that tell the truth for each caller', async () => {
      const owner = await t.api.call('getOrganizationById', { params: { organizationId: orgId } })
      expect(owner.status).toBe(200)
      expect(owner.body).toMatchObject({
        object: 'organization',
        id: orgId,
        title: 'Acme Docs',
        type: 'business',
        plan: 'free_2024',
        trial: { status: 'notapplicable', count: 0 },
        urls: { location: `${t.service.baseUrl}/orgs/${orgId}` },
      })
      expect(owner.body.permissions).toMatchObject({ view: true, admin: true, createContent: true, viewBilling: true, listMembers: true })

      const read = await reader.api.call('getOrganizationById', { params: { organizationId: orgId } })
      expect(read.body.permissions).toMatchObject({ view: true, access: true, admin: false, createContent: false, viewBilling: false, listMembers: true })
    })

    it('answers 404 for unknown ids and for organizations the caller is not in', async () => {
      expect((await t.api.call('getOrganizationById', { params: { organizationId: 'nope' } })).status).toBe(404)
      const hidden = await stranger.api.call('getOrganizationById', { params: { organizationId: orgId } })
      expect(hidden.status).toBe(404)
      expect(hidden.body).toEqual(errorBody(404))
      expect((await t.api.raw('GET', '/orgs/bad%20id')).status).toBe(400)
    })
  })

  describe('updateOrganizationById', () => {
    it('updates every field an admin may set', async () => {
      const site = (await t.api.call('createSite', { params: { organizationId: orgId }, body: { title: 'Home' } })).body
      const res = await t.api.call('updateOrganizationById', {
        params: { organizationId: orgId },
        body: {
          title: 'Acme Documentation',
          emailDomains: ['Acme.com', 'acme.com', 'docs.acme.io'],
          hostname: 'acme-docs',
          defaultRole: 'comment',
          defaultContent: { type: 'site', site: site.id },
          logo: 'https://acme.com/logo.png',
          sso: false,
          ai: true,
          inviteLinks: false,
          mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reader.id] }] },
        },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        title: 'Acme Documentation',
        emailDomains: ['acme.com', 'docs.acme.io'],
        hostname: 'acme-docs',
        defaultRole: 'comment',
        defaultContent: { type: 'site', site: site.id },
        urls: { logo: 'https://acme.com/logo.png' },
        sso: false,
        ai: true,
        inviteLinks: false,
        mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [reader.id] }] },
      })
      const again = await t.api.call('getOrganizationById', { params: { organizationId: orgId } })
      expect(again.body).toEqual(res.body)

      const cleared = await t.api.call('updateOrganizationById', { params: { organizationId: orgId }, body: { logo: null, defaultContent: null, defaultRole: null } })
      expect(cleared.status).toBe(200)
      expect(cleared.body.urls.logo).toBeUndefined()
      expect(cleared.body.defaultContent).toBeUndefined()
      expect(cleared.body.defaultRole).toBeNull()
    })

    it('rejects bad input with 400 and changes nothing', async () => {
      const before = orgs().get(orgId)
      const bad: unknown[] = [
        { title: 'a' },
        { title: 'x'.repeat(256) },
        { title: 42 },
        { hostname: 'ab' },
        { hostname: 'h'.repeat(33) },
        { hostname: 'Bad_Host!' },
        { logo: 'not a uri' },
        { logo: `https://acme.com/${'l'.repeat(2048)}` },
        { defaultContent: { type: 'space', space: 'x' } },
        { defaultContent: { type: 'site' } },
        { defaultContent: { type: 'site', site: 'no-such-site' } },
        { defaultRole: 'owner' },
        { emailDomains: 'acme.com' },
        { emailDomains: ['not a domain'] },
        { sso: 'yes' },
        { mergeRules: { type: 'inherit' } },
        { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: [stranger.id] }] } },
        { title: 'Valid Title', hostname: 'x' },
      ]
      for (const body of bad) {
        const res = await t.api.raw('PATCH', `/orgs/${orgId}`, body)
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await t.api.raw('PATCH', `/orgs/${orgId}`, '{"title":')).status).toBe(400)
      expect(orgs().get(orgId)).toEqual(before)
    })

    it('refuses a hostname another organization holds (409)', async () => {
      const other = orgs().create({ title: 'Other', owner: t.service.ownerId, data: { hostname: 'taken' } })
      const res = await t.api.call('updateOrganizationById', { params: { organizationId: orgId }, body: { hostname: 'taken' } })
      expect(res.status).toBe(409)
      expect(orgs().get(orgId)?.data.hostname).not.toBe('taken')
      expect(orgs().get(other.id)?.data.hostname).toBe('taken')
    })

    it('answers 403 to a non-admin member and 404 to a stranger, changing nothing', async () => {
      const before = orgs().get(orgId)
      const denied = await reader.api.call('updateOrganizationById', { params: { organizationId: orgId }, body: { title: 'Hijacked' } })
      expect(denied.status).toBe(403)
      expect(denied.body).toEqual(errorBody(403))
      const hidden = await stranger.api.call('updateOrganizationById', { params: { organizationId: orgId }, body: { title: 'Hijacked' } })
      expect(hidden.status).toBe(404)
      expect((await t.api.call('updateOrganizationById', { params: { organizationId: 'nope' }, body: { title: 'Nope' } })).status).toBe(404)
      expect(orgs().get(orgId)).toEqual(before)
    })
  })

  describe('listMembersInOrganizationById', () => {
    it('lists members with filters, sorting and pages', async () => {
      const org = orgs().create({ title: 'Members Org', owner: t.service.ownerId }).id
      const ann = person('Ann')
      const bob = person('Bob')
      const gil = person('Gil')
      orgs().setMember(org, ann.id, 'edit')
      orgs().setMember(org, bob.id, 'read')
      orgs().setMember(org, gil.id, null)
      const all = await t.api.call('listMembersInOrganizationById', { params: { organizationId: org }, query: { sort: 'name', order: 'asc' } })
      expect(all.status).toBe(200)
      expect(all.body.items.map((m: { user: { displayName: string } }) => m.user.displayName)).toEqual(['Ann', 'Bob', 'Gil', 'Quire Owner'])
      expect(all.body.items[0]).toMatchObject({ object: 'member', id: ann.id, role: 'edit', disabled: false })
      const guests = await t.api.call('listMembersInOrganizationById', { params: { organizationId: org }, query: { role: 'guest' } })
      expect(guests.body.items.map((m: { id: string }) => m.id)).toEqual([gil.id])
      const found = await t.api.call('listMembersInOrganizationById', { params: { organizationId: org }, query: { search: 'BOB@' } })
      expect(found.body.items.map((m: { id: string }) => m.id)).toEqual([bob.id])
      const page = await t.api.call('listMembersInOrganizationById', { params: { organizationId: org }, query: { limit: 3 } })
      expect(page.body.count).toBe(4)
      expect(page.body.next.page).toEqual(expect.any(String))

      expect((await gil.api.call('listMembersInOrganizationById', { params: { organizationId: org } })).status).toBe(403)
      expect((await stranger.api.call('listMembersInOrganizationById', { params: { organizationId: org } })).status).toBe(404)
      for (const q of ['limit=5000', 'limit=-1', 'limit=abc', 'role=owner', 'sort=height', 'order=up']) {
        const res = await t.api.raw('GET', `/orgs/${org}/members?${q}`)
        expect(res.status, q).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
    })
  })

  describe('joinOrganization', () => {
    it('lets a user whose e-mail domain is allowed join with the default role', async () => {
      const org = orgs().create({ title: 'Joinable', owner: t.service.ownerId, data: { emailDomains: ['joiners.org'], defaultRole: 'comment' } })
      const joiner = person('Jo', 'JOINERS.org')
      const res = await joiner.api.call('joinOrganization', { params: { organizationId: org.id } })
      expect(res.status).toBe(204)
      expect(orgs().member(org.id, joiner.id)?.role).toBe('comment')
      const visible = await joiner.api.call('getOrganizationById', { params: { organizationId: org.id } })
      expect(visible.status).toBe(200)
      // Joining again keeps the membership as it is.
      orgs().setMember(org.id, joiner.id, 'edit')
      expect((await joiner.api.call('joinOrganization', { params: { organizationId: org.id } })).status).toBe(204)
      expect(orgs().member(org.id, joiner.id)?.role).toBe('edit')
    })

    it('answers 403 for another domain and 404 for an unknown organization, adding nobody', async () => {
      const org = orgs().create({ title: 'Closed', owner: t.service.ownerId, data: { emailDomains: ['closed.org'] } })
      const outsider = person('Olga', 'elsewhere.org')
      const res = await outsider.api.call('joinOrganization', { params: { organizationId: org.id } })
      // The spec's answer: 400 "User's email domain is not valid".
      expect(res.status).toBe(400)
      expect(res.body).toEqual(errorBody(400))
      expect((await outsider.api.call('joinOrganization', { params: { organizationId: 'nope' } })).status).toBe(404)
      expect(orgs().members(org.id).map((m) => m.userId)).toEqual([t.service.ownerId])
    })
  })
})

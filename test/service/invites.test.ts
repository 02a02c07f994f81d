import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { InvitesRepository } from '../../src/main/service/store/invites'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { SamlProvidersRepository } from '../../src/main/service/store/saml-providers'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { startTestService, type ApiClient, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  email: string
  api: ApiClient
}

describe('invites', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let counter = 0

  const person = (name: string): Person => {
    const email = `${name.toLowerCase()}${++counter}@example.com`
    const user = t.service.createUser({ displayName: name, email })
    return { ...user, email, api: t.api.as(user.token) }
  }
  const orgs = () => t.service.store.repo(OrganizationsRepository)
  const invitesOf = (kind: 'link' | 'email') => t.service.store.repo(InvitesRepository).list(orgId, kind)
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const createLink = async (role: string | null) => {
    const res = await t.api.call('createOrganizationInvite', { params: params(), body: { role } })
    expect(res.status).toBe(201)
    return res.body
  }

  beforeAll(async () => {
    t = await startTestService()
    orgId = orgs().create({ title: 'Invite Org', owner: t.service.ownerId, data: { defaultRole: 'comment' } }).id
    member = person('Mia')
    orgs().setMember(orgId, member.id, 'edit')
  })
  afterAll(() => t.close())

  describe('e-mail invites', () => {
    it('adds known accounts, records invitations for unknown addresses, and skips members', async () => {
      const known = person('Kim')
      const res = await t.api.call('inviteUsersToOrganization', {
        params: params(),
        body: { emails: [known.email.toUpperCase(), 'new.person@example.com', member.email, { email: 'lead@example.com', role: 'admin' }], role: 'review' },
      })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ users: [known.id], invited: 3, failedSSOEmails: [] })
      expect(orgs().member(orgId, known.id)?.role).toBe('review')
      expect(orgs().member(orgId, member.id)?.role).toBe('edit')
      const pending = invitesOf('email')
      expect(pending.map((i) => [i.email, i.role])).toEqual([
        ['new.person@example.com', 'review'],
        ['lead@example.com', 'admin'],
      ])
    })

    it('gives the organization default role when the request names none, and turns guests into members', async () => {
      const known = person('Dee')
      const guest = person('Gia')
      orgs().setMember(orgId, guest.id, null)
      const res = await t.api.call('inviteUsersToOrganization', { params: params(), body: { emails: [known.email, guest.email] } })
      expect(res.body).toEqual({ users: [known.id, guest.id], invited: 2, failedSSOEmails: [] })
      expect(orgs().member(orgId, known.id)?.role).toBe('comment')
      expect(orgs().member(orgId, guest.id)?.role).toBe('comment')
    })

    it('reports SSO invites as failed while the organization has no active SAML provider', async () => {
      const known = person('Sam')
      const failed = await t.api.call('inviteUsersToOrganization', { params: params(), body: { emails: [known.email, 'x@example.com'], sso: true } })
      expect(failed.body).toEqual({ users: [], invited: 0, failedSSOEmails: [known.email, 'x@example.com'] })
      expect(orgs().member(orgId, known.id)).toBeUndefined()

      const providers = t.service.store.repo(SamlProvidersRepository)
      const provider = providers.create(orgId, { label: 'IdP', ssoUrl: 'https://idp.example.com/sso', entityId: 'idp', certificate: 'MIIC', defaultRole: null })
      try {
        const ok = await t.api.call('inviteUsersToOrganization', { params: params(), body: { emails: [known.email], sso: true, role: 'read' } })
        expect(ok.body).toEqual({ users: [known.id], invited: 1, failedSSOEmails: [] })
      } finally {
        providers.delete(provider.id)
      }
    })

    it('lets the addressee join through a pending invitation, once', async () => {
      const res = await t.api.call('inviteUsersToOrganization', { params: params(), body: { emails: ['later@example.com'], role: 'create' } })
      expect(res.body.invited).toBe(1)
      const invite = t.service.store.repo(InvitesRepository).pendingEmailInvite(orgId, 'later@example.com')!
      const other = person('Oz')
      expect((await other.api.call('joinOrganizationWithInvite', { params: params({ inviteId: invite.id }) })).status).toBe(403)
      expect(orgs().member(orgId, other.id)).toBeUndefined()

      const later = t.service.createUser({ displayName: 'Later', email: 'later@example.com' })
      const joined = await t.api.as(later.token).call('joinOrganizationWithInvite', { params: params({ inviteId: invite.id }) })
      expect(joined.status).toBe(200)
      expect(joined.body).toEqual({})
      expect(orgs().member(orgId, later.id)?.role).toBe('create')
      const again = await t.api.as(later.token).call('joinOrganizationWithInvite', { params: params({ inviteId: invite.id }) })
      expect(again.status).toBe(404)
    })

    it('rejects bad input with 400 and writes nothing', async () => {
      const known = person('Nia')
      const before = invitesOf('email').length
      const bad: unknown[] = [
        {},
        { emails: [] },
        { emails: ['not-an-email'] },
        { emails: 'a@example.com' },
        { emails: [known.email, 'ok@example.com'], role: 'boss' },
        { emails: [{ email: known.email }] },
        { emails: [known.email], sso: 'yes' },
      ]
      for (const body of bad) {
        const res = await t.api.call('inviteUsersToOrganization', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body.error.code).toBe(400)
      }
      expect(invitesOf('email').length).toBe(before)
      expect(orgs().member(orgId, known.id)).toBeUndefined()
    })

    it('is for organization admins: 403 for members, 404 for outsiders and unknown organizations', async () => {
      const outsider = person('Out')
      const body = { emails: ['someone@example.com'] }
      expect((await member.api.call('inviteUsersToOrganization', { params: params(), body })).status).toBe(403)
      expect((await outsider.api.call('inviteUsersToOrganization', { params: params(), body })).status).toBe(404)
      expect((await t.api.call('inviteUsersToOrganization', { params: { organizationId: 'nope' }, body })).status).toBe(404)
      expect(t.service.store.repo(InvitesRepository).pendingEmailInvite(orgId, 'someone@example.com')).toBeUndefined()
    })
  })

  describe('link invites', () => {
    it('creates (201), gets, patches and deletes link invites, with `redundant` for duplicate roles', async () => {
      const first = await createLink('read')
      expect(first).toEqual({ object: 'invite', id: expect.any(String), role: 'read', redundant: false })
      const duplicate = await createLink('read')
      expect(duplicate.redundant).toBe(true)
      const guestLink = await createLink(null)
      expect(guestLink).toMatchObject({ role: null, redundant: false })

      const got = await t.api.call('getOrganizationInviteLink', { params: params({ inviteId: duplicate.id }) })
      expect(got.status).toBe(200)
      expect(got.body).toEqual(duplicate)

      const patched = await t.api.call('updateOrganizationInviteById', { params: params({ inviteId: duplicate.id }), body: { role: 'edit' } })
      expect(patched.status).toBe(200)
      expect(patched.body).toMatchObject({ role: 'edit', redundant: false })

      const again = await createLink('edit')
      expect(again.redundant).toBe(true)
      expect((await t.api.call('deleteOrganizationInviteById', { params: params({ inviteId: duplicate.id }) })).status).toBe(205)
      expect((await t.api.call('getOrganizationInviteLink', { params: params({ inviteId: again.id }) })).body.redundant).toBe(false)
      expect((await t.api.call('getOrganizationInviteLink', { params: params({ inviteId: duplicate.id }) })).status).toBe(404)
      // The spec's "did not exist" outcome.
      expect((await t.api.call('deleteOrganizationInviteById', { params: params({ inviteId: duplicate.id }) })).status).toBe(204)
    })

    it('lists organization link invites with paging and rejects hostile limits', async () => {
      await createLink('comment')
      const all = invitesOf('link').filter((i) => i.spaceId === null)
      const first = await t.api.call('listOrganizationInviteLinks', { params: params(), query: { limit: 1 } })
      expect(first.status).toBe(200)
      expect(first.body.count).toBe(all.length)
      expect(first.body.items[0].id).toBe(all[0].id)
      const second = await t.api.call('listOrganizationInviteLinks', { params: params(), query: { limit: 1, page: first.body.next.page } })
      expect(second.body.items[0].id).toBe(all[1].id)
      for (const limit of [5000, -1, 'abc']) {
        expect((await t.api.call('listOrganizationInviteLinks', { params: params(), query: { limit } })).status).toBe(400)
      }
    })

    it('joins through a link invite with its role; members keep theirs; disabled links are refused', async () => {
      const link = await createLink('review')
      const newcomer = person('New')
      const res = await newcomer.api.call('joinOrganizationWithInvite', { params: params({ inviteId: link.id }) })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({})
      expect(orgs().member(orgId, newcomer.id)?.role).toBe('review')
      // Link invites are reusable.
      expect((await member.api.call('joinOrganizationWithInvite', { params: params({ inviteId: link.id }) })).status).toBe(200)
      expect(orgs().member(orgId, member.id)?.role).toBe('edit')
      const guest = person('Gil')
      orgs().setMember(orgId, guest.id, null)
      expect((await guest.api.call('joinOrganizationWithInvite', { params: params({ inviteId: link.id }) })).status).toBe(200)
      expect(orgs().member(orgId, guest.id)?.role).toBe('review')

      orgs().update(orgId, { data: { inviteLinks: false } })
      try {
        const late = person('Late')
        expect((await late.api.call('joinOrganizationWithInvite', { params: params({ inviteId: link.id }) })).status).toBe(403)
        expect(orgs().member(orgId, late.id)).toBeUndefined()
      } finally {
        orgs().update(orgId, { data: { inviteLinks: true } })
      }
      const other = orgs().create({ title: 'Other', owner: t.service.ownerId })
      const wrongOrg = await newcomer.api.call('joinOrganizationWithInvite', { params: { organizationId: other.id, inviteId: link.id } })
      expect(wrongOrg.status).toBe(404)
      expect((await newcomer.api.call('joinOrganizationWithInvite', { params: params({ inviteId: 'missing' }) })).status).toBe(404)
    })

    it('invites to a space: the invitee becomes a guest of the organization with the level on the space', async () => {
      const space = t.service.store.repo(SpacesRepository).create({ orgId, title: 'Handbook' })
      const res = await t.api.call('createOrganizationInvite', { params: params(), body: { level: 'comment', space: space.id } })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({ object: 'invite', level: 'comment', redundant: false, space: { object: 'space', id: space.id } })
      // Space invites are not organization invites: the organization list leaves them out.
      const list = await t.api.call('listOrganizationInviteLinks', { params: params(), query: { limit: 1000 } })
      expect(list.body.items.map((i: any) => i.id)).not.toContain(res.body.id)

      const reader = person('Rea')
      expect((await reader.api.call('joinOrganizationWithInvite', { params: params({ inviteId: res.body.id }) })).status).toBe(200)
      expect(orgs().member(orgId, reader.id)?.role).toBeNull()
      expect(t.service.store.repo(SpacesRepository).userRole(space.id, reader.id)).toBe('comment')

      const patched = await t.api.call('updateOrganizationInviteById', { params: params({ inviteId: res.body.id }), body: { level: 'edit' } })
      expect(patched.body.level).toBe('edit')
      const wrongShape = await t.api.call('updateOrganizationInviteById', { params: params({ inviteId: res.body.id }), body: { role: 'edit' } })
      expect(wrongShape.status).toBe(400)
      // A member without admin rights on the space cannot manage its invites.
      expect((await member.api.call('getOrganizationInviteLink', { params: params({ inviteId: res.body.id }) })).status).toBe(403)
    })

    it('rejects bad bodies and unsupported targets with 400, writing nothing', async () => {
      const space = t.service.store.repo(SpacesRepository).create({ orgId, title: 'Spare' })
      const link = await createLink('read')
      const before = invitesOf('link').length
      const bad: unknown[] = [
        {},
        { role: 'boss' },
        { level: 'read' },
        { level: null, space: space.id },
        { level: 'read', collection: 'some-collection' },
        { role: 'read', level: 'read', space: space.id },
      ]
      for (const body of bad) {
        const res = await t.api.call('createOrganizationInvite', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(400)
      }
      const unknownSpace = await t.api.call('createOrganizationInvite', { params: params(), body: { level: 'read', space: 'missing' } })
      expect(unknownSpace.status).toBe(404)
      expect(invitesOf('link').length).toBe(before)

      for (const body of [{}, { role: 'boss' }, { level: 'read' }, { role: 'read', level: 'read' }]) {
        const res = await t.api.call('updateOrganizationInviteById', { params: params({ inviteId: link.id }), body })
        expect(res.status, JSON.stringify(body)).toBe(400)
      }
      expect(t.service.store.repo(InvitesRepository).get(link.id)?.role).toBe('read')
      expect((await t.api.call('updateOrganizationInviteById', { params: params({ inviteId: 'missing' }), body: { role: 'read' } })).status).toBe(404)
    })

    it('is for organization admins: 403 for members, 404 for outsiders', async () => {
      const link = await createLink('read')
      const outsider = person('Far')
      const before = invitesOf('link').length
      expect((await member.api.call('listOrganizationInviteLinks', { params: params() })).status).toBe(403)
      expect((await member.api.call('createOrganizationInvite', { params: params(), body: { role: 'admin' } })).status).toBe(403)
      expect((await member.api.call('updateOrganizationInviteById', { params: params({ inviteId: link.id }), body: { role: 'admin' } })).status).toBe(403)
      expect((await member.api.call('deleteOrganizationInviteById', { params: params({ inviteId: link.id }) })).status).toBe(403)
      expect((await outsider.api.call('getOrganizationInviteLink', { params: params({ inviteId: link.id }) })).status).toBe(404)
      expect((await outsider.api.call('listOrganizationInviteLinks', { params: params() })).status).toBe(404)
      expect(invitesOf('link').length).toBe(before)
      expect(t.service.store.repo(InvitesRepository).get(link.id)?.role).toBe('read')
    })
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { seedOrgAdminDemo } from '../../src/main/service/demo/org-admin'
import { SamlProvidersRepository } from '../../src/main/service/store/saml-providers'
import { startTestService, type ApiClient, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  api: ApiClient
}

const CERTIFICATE = 'MIIC' + 'A'.repeat(200)
const complete = {
  label: 'Okta',
  entityID: 'http://www.okta.com/exk1',
  certificate: CERTIFICATE,
  ssoURL: 'https://acme.okta.com/app/sso/saml',
}

describe('SAML providers and SSO logins', () => {
  let t: TestService
  let orgId: string
  let member: Person
  let stranger: Person
  let teamId: string

  const person = (name: string): Person => {
    const user = t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    return { ...user, api: t.api.as(user.token) }
  }
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const providerCount = () => t.service.store.repo(SamlProvidersRepository).listByOrg(orgId).length
  const create = async (body: Record<string, unknown>) => {
    const res = await t.api.call('createOrganizationSAMLProvider', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }

  beforeAll(async () => {
    t = await startTestService()
    const orgs = t.service.store.repo(OrganizationsRepository)
    orgId = orgs.create({ title: 'SSO Org', owner: t.service.ownerId, data: { defaultRole: 'comment' } }).id
    member = person('Mia')
    stranger = person('Stan')
    orgs.setMember(orgId, member.id, 'create')
    const team = await t.api.call('createOrganizationTeam', { params: params(), body: { title: 'SSO people' } })
    teamId = team.body.id
  })
  afterAll(() => t.close())

  it('creates an active provider (201) with generated service URLs and the default team embedded', async () => {
    const res = await t.api.call('createOrganizationSAMLProvider', { params: params(), body: { ...complete, defaultTeam: teamId, defaultRole: 'edit' } })
    expect(res.status).toBe(201)
    const p = res.body
    expect(p).toMatchObject({ object: 'saml-provider', status: 'active', defaultRole: 'edit', ...complete })
    expect(p.defaultTeam).toMatchObject({ object: 'team', id: teamId, title: 'SSO people' })
    const base = `${t.service.origin}/sso/saml/${orgId}/${p.id}`
    expect(p.service).toEqual({ acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: `${base}/metadata` })
    expect(p.urls.location).toBe(`${t.service.baseUrl}/orgs/${orgId}/saml/${p.id}`)
    expect(res.headers.get('location')).toBe(p.urls.location)

    const got = await t.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: p.id }) })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(p)
  })

  it('keeps a provider with only a label pending, with the organization default role', async () => {
    const p = await create({ label: 'Later' })
    expect(p).toMatchObject({ status: 'pending', defaultRole: 'comment', entityID: '', certificate: '', ssoURL: 'about:blank' })
    expect(p.defaultTeam).toBeUndefined()
  })

  it('patches fields and becomes active once configured', async () => {
    const p = await create({ label: 'Azure' })
    const res = await t.api.call('updateOrganizationSAMLProvider', {
      params: params({ samlProviderId: p.id }),
      body: { entityID: complete.entityID, certificate: CERTIFICATE, ssoURL: complete.ssoURL, defaultRole: null },
    })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ label: 'Azure', status: 'active', defaultRole: null, ssoURL: complete.ssoURL })
    const renamed = await t.api.call('updateOrganizationSAMLProvider', { params: params({ samlProviderId: p.id }), body: { label: 'Entra' } })
    expect(renamed.body).toMatchObject({ label: 'Entra', entityID: complete.entityID })
  })

  it('lists providers with paging', async () => {
    const first = await t.api.call('listSAMLProvidersInOrganizationById', { params: params(), query: { limit: 1 } })
    expect(first.status).toBe(200)
    expect(first.body.items).toHaveLength(1)
    expect(first.body.count).toBe(providerCount())
    const second = await t.api.call('listSAMLProvidersInOrganizationById', { params: params(), query: { limit: 1, page: first.body.next.page } })
    expect(second.body.items[0].id).not.toBe(first.body.items[0].id)
    for (const limit of [5000, -1, 'abc']) {
      expect((await t.api.call('listSAMLProvidersInOrganizationById', { params: params(), query: { limit } })).status).toBe(400)
    }
  })

  it('hits every limit: label 1..30, entityID 1024, certificate 10000, ssoURL URI 2048', async () => {
    const before = providerCount()
    const longUrl = `https://idp.example.com/${'a'.repeat(2048 - 24)}`
    expect(longUrl).toHaveLength(2048)
    const bad: Array<Record<string, unknown>> = [
      { label: '' },
      { label: 'x'.repeat(31) },
      { label: '   ' },
      { label: 'ok', entityID: 'e'.repeat(1025) },
      { label: 'ok', certificate: 'c'.repeat(10001) },
      { label: 'ok', ssoURL: `${longUrl}b` },
      { label: 'ok', ssoURL: 'not a url' },
      { label: 'ok', ssoURL: 'mailto:idp@example.com' },
      { label: 'ok', defaultRole: 'boss' },
      { label: 'ok', defaultTeam: 'no-such-team' },
      { entityID: 'missing label' },
      { label: 7 },
    ]
    for (const body of bad) {
      const res = await t.api.call('createOrganizationSAMLProvider', { params: params(), body })
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.error.code).toBe(400)
    }
    expect(providerCount()).toBe(before)

    const edge = await create({ label: 'x'.repeat(30), entityID: 'e'.repeat(1024), certificate: 'c'.repeat(10000), ssoURL: longUrl })
    expect(edge.status).toBe('active')

    for (const body of [{ label: '' }, { label: 'y'.repeat(31) }, { entityID: 'e'.repeat(1025) }, { certificate: 'c'.repeat(10001) }, { ssoURL: `${longUrl}b` }]) {
      const res = await t.api.call('updateOrganizationSAMLProvider', { params: params({ samlProviderId: edge.id }), body })
      expect(res.status).toBe(400)
    }
    const unchanged = await t.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: edge.id }) })
    expect(unchanged.body).toEqual(edge)
  })

  it('deletes providers', async () => {
    const p = await create({ label: 'Temp' })
    expect((await t.api.call('deleteOrganizationSAMLProvider', { params: params({ samlProviderId: p.id }) })).status).toBe(205)
    expect((await t.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: p.id }) })).status).toBe(404)
    // The spec's "did not exist" outcome.
    expect((await t.api.call('deleteOrganizationSAMLProvider', { params: params({ samlProviderId: p.id }) })).status).toBe(204)
  })

  it('is for organization admins only: 403 for members, 404 for outsiders and unknown ids', async () => {
    const p = await create({ label: 'Guarded' })
    const before = providerCount()
    expect((await member.api.call('listSAMLProvidersInOrganizationById', { params: params() })).status).toBe(403)
    expect((await member.api.call('createOrganizationSAMLProvider', { params: params(), body: { label: 'Mine' } })).status).toBe(403)
    expect((await member.api.call('updateOrganizationSAMLProvider', { params: params({ samlProviderId: p.id }), body: { label: 'Mine' } })).status).toBe(
      403,
    )
    expect((await member.api.call('deleteOrganizationSAMLProvider', { params: params({ samlProviderId: p.id }) })).status).toBe(403)
    expect((await stranger.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: p.id }) })).status).toBe(404)
    expect((await t.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: 'nope' }) })).status).toBe(404)
    expect((await t.api.call('listSAMLProvidersInOrganizationById', { params: { organizationId: 'nope' } })).status).toBe(404)
    expect(providerCount()).toBe(before)
    expect((await t.api.call('getOrganizationSAMLProviderById', { params: params({ samlProviderId: p.id }) })).body.label).toBe('Guarded')
  })

  it('offers only active providers as SSO logins, to anyone signed in', async () => {
    const res = await stranger.api.call('listSSOProviderLoginsInOrganization', { params: params() })
    expect(res.status).toBe(200)
    const active = t.service.store
      .repo(SamlProvidersRepository)
      .listByOrg(orgId)
      .filter((p) => p.ssoUrl && p.entityId && p.certificate)
    expect(res.body.items.map((i: any) => i.id)).toEqual(active.map((p) => p.id))
    expect(res.body.items[0]).toEqual({
      id: active[0].id,
      label: active[0].label,
      startURL: `${t.service.origin}/sso/saml/${orgId}/${active[0].id}/start`,
    })
    expect((await t.api.call('listSSOProviderLoginsInOrganization', { params: { organizationId: 'nope' } })).status).toBe(404)
  })
})

describe('organization admin demo', () => {
  it('gives the demo organization a team, an active SAML provider and a font, served by the API', async () => {
    const t = await startTestService()
    try {
      const org = t.service.store.repo(OrganizationsRepository).create({ title: 'Demo', owner: t.service.ownerId })
      seedOrgAdminDemo(t.service.store, org.id, t.service.ownerId)
      const params = { organizationId: org.id }

      const teams = await t.api.call('listTeamsInOrganizationById', { params })
      expect(teams.body.items).toEqual([expect.objectContaining({ title: 'Docs writers', members: 1 })])
      const providers = await t.api.call('listSAMLProvidersInOrganizationById', { params })
      expect(providers.body.items).toEqual([expect.objectContaining({ status: 'active', defaultTeam: expect.objectContaining({ title: 'Docs writers' }) })])
      const logins = await t.api.call('listSSOProviderLoginsInOrganization', { params })
      expect(logins.body.items).toHaveLength(1)
      const fonts = await t.api.call('listCustomFonts', { params })
      expect(fonts.body.items[0].fontFaces.map((f: any) => f.weight)).toEqual([400, 700])
    } finally {
      await t.close()
    }
  })
})

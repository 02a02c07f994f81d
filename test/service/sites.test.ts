import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { seedSitesDemo } from '../../src/main/service/demo/sites'
import { SitesRepository } from '../../src/main/service/store/sites'
import { startTestService, type ApiClient, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  api: ApiClient
}

const errorBody = (code: number) => ({ error: { code, message: expect.any(String) } })
const ids = (items: Array<{ id: string }>) => items.map((i) => i.id)

describe('sites', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let stranger: Person // not in the organization
  const spaceIds: string[] = []
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const sites = () => t.service.store.repo(SitesRepository)

  const person = (name: string): Person => {
    const user = t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    return { ...user, api: t.api.as(user.token) }
  }
  const createSite = async (body: Record<string, unknown> = {}) => {
    const res = await t.api.call('createSite', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }
  const getSite = async (siteId: string, api: ApiClient = t.api) => (await api.call('getSiteById', { params: params({ siteId }) })).body
  const publish = (siteId: string) => t.api.call('publishSite', { params: params({ siteId }) })

  beforeAll(async () => {
    t = await startTestService()
    const orgs = t.service.store.repo(OrganizationsRepository)
    orgId = orgs.create({ title: 'Sites Org', owner: t.service.ownerId }).id
    member = person('Mia')
    stranger = person('Stan')
    orgs.setMember(orgId, member.id, 'edit')
    for (const title of ['Guide', 'API', 'Changelog']) {
      const res = await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title } })
      spaceIds.push(res.body.id)
    }
  })
  afterAll(() => t.close())

  describe('createSite', () => {
    it('creates a basic public site (201, Location) and attaches `spaces` as site spaces', async () => {
      const res = await t.api.call('createSite', { params: params(), body: { title: 'Docs', spaces: [spaceIds[0], spaceIds[1]] } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/orgs/${orgId}/sites/${res.body.id}`)
      expect(res.body).toMatchObject({
        object: 'site',
        type: 'basic',
        title: 'Docs',
        visibility: 'public',
        published: false,
        siteSpaces: 2,
        defaultLevel: 'inherit',
        features: [],
        permissions: { view: true, admin: true, editAdaptiveSchema: true },
      })
      expect(res.body.urls.published).toBeUndefined()
      const listed = await t.api.call('listSiteSpaces', { params: params({ siteId: res.body.id }) })
      expect(listed.body.items.map((s: any) => [s.space.id, s.default, s.path])).toEqual([
        [spaceIds[0], true, 'guide'],
        [spaceIds[1], false, 'api'],
      ])
    })

    it('takes the type and visibility given, and titles an untitled site after the organization', async () => {
      const site = await createSite({ type: 'ultimate', visibility: 'unlisted' })
      expect(site).toMatchObject({ type: 'ultimate', appliedType: 'ultimate', visibility: 'unlisted', title: 'Sites Org', siteSpaces: 0 })
      expect(site.features).toEqual([{ id: 'sites-advanced-customization', plan: 'ultimate', frozen: false, customizations: [] }])
    })

    it('rejects bad input with 400 or 404 and creates nothing', async () => {
      const before = sites().listByOrg(orgId).length
      const bad = [
        { title: 'x' },
        { title: 'y'.repeat(129) },
        { type: 'gold' },
        { visibility: 'secret' },
        { spaces: 'not-a-list' },
        { spaces: [spaceIds[0], spaceIds[0]] },
      ]
      for (const body of bad) {
        const res = await t.api.call('createSite', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const unknown = await t.api.call('createSite', { params: params(), body: { title: 'Ghost', spaces: [spaceIds[0], 'nope'] } })
      expect(unknown.status).toBe(404)
      expect((await t.api.raw('POST', `/orgs/${orgId}/sites`, '{not json', t.service.token)).status).toBe(400)
      expect(sites().listByOrg(orgId).length).toBe(before)
    })

    it('lets only organization admins create sites; outsiders do not see the organization', async () => {
      expect((await member.api.call('createSite', { params: params(), body: { title: 'Mine' } })).status).toBe(403)
      expect((await stranger.api.call('createSite', { params: params(), body: { title: 'Mine' } })).status).toBe(404)
      expect((await t.api.call('createSite', { params: { organizationId: 'nope' }, body: {} })).status).toBe(404)
    })
  })

  describe('listSites', () => {
    it('pages and filters by space, title (case-insensitive), published and type', async () => {
      const a = await createSite({ title: 'Alpha Handbook', spaces: [spaceIds[2]] })
      const b = await createSite({ title: 'Beta handbook', type: 'premium' })
      await publish(b.id)
      const all = sites().listByOrg(orgId).length

      const first = await t.api.call('listSites', { params: params(), query: { limit: 2 } })
      expect(first.body.count).toBe(all)
      expect(first.body.items).toHaveLength(2)
      const second = await t.api.call('listSites', { params: params(), query: { limit: 2, page: first.body.next.page } })
      expect(ids(second.body.items)).not.toContain(first.body.items[0].id)

      const bySpace = await t.api.call('listSites', { params: params(), query: { space: spaceIds[2] } })
      expect(ids(bySpace.body.items)).toEqual([a.id])
      const byTitle = await t.api.call('listSites', { params: params(), query: { title: 'HANDBOOK' } })
      expect(ids(byTitle.body.items).sort()).toEqual([a.id, b.id].sort())
      const published = await t.api.call('listSites', { params: params(), query: { published: true } })
      expect(ids(published.body.items)).toEqual([b.id])
      const unpublished = await t.api.call('listSites', { params: params(), query: { published: false } })
      expect(ids(unpublished.body.items)).not.toContain(b.id)
      const premium = await t.api.call('listSites', { params: params(), query: { type: ['premium', 'sponsored'] } })
      expect(ids(premium.body.items)).toEqual([b.id])
    })

    it('answers hostile limits and bad filters with 400, outsiders with 404', async () => {
      for (const limit of ['5000', '-1', 'abc']) {
        const res = await t.api.raw('GET', `/orgs/${orgId}/sites?limit=${limit}`)
        expect(res.status, limit).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await t.api.raw('GET', `/orgs/${orgId}/sites?published=maybe`)).status).toBe(400)
      expect((await t.api.raw('GET', `/orgs/${orgId}/sites?type=gold`)).status).toBe(400)
      expect((await t.api.raw('GET', `/orgs/${orgId}/sites?page=garbage`)).status).toBe(400)
      expect((await stranger.api.call('listSites', { params: params() })).status).toBe(404)
    })

    it('shows members the sites they may read, with permissions that tell the truth; guests none', async () => {
      const guest = person('Gus')
      t.service.store.repo(OrganizationsRepository).setMember(orgId, guest.id, null)
      expect((await guest.api.call('listSites', { params: params() })).body).toEqual({ count: 0, items: [] })
      const res = await member.api.call('listSites', { params: params() })
      expect(res.body.count).toBe(sites().listByOrg(orgId).length)
      expect(res.body.items[0].permissions).toEqual({
        view: true,
        access: true,
        edit: false,
        create: false,
        admin: false,
        installIntegration: false,
        viewAdaptiveSchema: true,
        editAdaptiveSchema: false,
      })
    })
  })

  describe('getSiteById', () => {
    it('answers the site, 404 for unknown ids, other organizations and outsiders', async () => {
      const site = await createSite({ title: 'Lookup' })
      expect(await getSite(site.id)).toMatchObject({ id: site.id, title: 'Lookup' })
      expect((await t.api.call('getSiteById', { params: params({ siteId: 'nope' }) })).status).toBe(404)
      expect((await stranger.api.call('getSiteById', { params: params({ siteId: site.id }) })).status).toBe(404)
      const otherOrg = t.service.store.repo(OrganizationsRepository).create({ title: 'Other', owner: t.service.ownerId })
      expect((await t.api.call('getSiteById', { params: { organizationId: otherOrg.id, siteId: site.id } })).status).toBe(404)
    })

    it('hides a site from members when its default level gives them no access', async () => {
      const site = await createSite({ title: 'Secret' })
      await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultLevel: null } })
      expect((await member.api.call('getSiteById', { params: params({ siteId: site.id }) })).status).toBe(404)
      await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultLevel: 'admin' } })
      expect((await getSite(site.id, member.api)).permissions.admin).toBe(true)
      const patched = await member.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { title: 'Shared admin' } })
      expect(patched.status).toBe(200)
    })
  })

  describe('updateSiteById', () => {
    it('updates title, visibility, basename, adaptive content, agents context and default level', async () => {
      const site = await createSite({ title: 'Patchable' })
      const res = await t.api.call('updateSiteById', {
        params: params({ siteId: site.id }),
        body: { title: 'Patched', visibility: 'share-link', basename: 'patched', adaptiveContent: { enabled: true }, agentsContext: 'excluded', defaultLevel: 'read' },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({
        title: 'Patched',
        visibility: 'share-link',
        basename: 'patched',
        adaptiveContent: { enabled: true },
        agentsContext: 'excluded',
        defaultLevel: 'read',
      })
      const empty = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: {} })
      expect(empty.body).toMatchObject({ title: 'Patched', basename: 'patched' })
    })

    it('sets a proxy and a custom hostname with the patterns of the document; null removes them', async () => {
      const site = await createSite({ title: 'Proxied' })
      await publish(site.id)
      const proxied = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { proxy: 'www.example.com/developer/docs', hostname: 'docs.example.com' } })
      expect(proxied.body.proxy).toEqual({ origin: 'www.example.com/developer/docs', target: 'https://docs.example.com' })
      expect(proxied.body.hostname).toBe('docs.example.com')
      expect(proxied.body.urls.published).toBe('https://www.example.com/developer/docs')

      const removed = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { proxy: null, hostname: null } })
      expect(removed.body.proxy).toBeUndefined()
      expect(removed.body.hostname).toBeUndefined()
      expect(removed.body.urls.published).toBe(`${t.service.origin}/published/${orgId}/${site.id}`)
    })

    it('rejects bad fields with 400 and writes nothing of the request', async () => {
      const site = await createSite({ title: 'Strict' })
      const other = await createSite({ title: 'Taken' })
      await t.api.call('updateSiteById', { params: params({ siteId: other.id }), body: { basename: 'taken', hostname: 'docs.taken.com' } })
      const bad = [
        { proxy: 'example.com' },
        { proxy: 'example/docs' },
        { proxy: 'https://example.com/docs' },
        { hostname: 'Docs.Example.com' },
        { hostname: 'example.com' },
        { hostname: 42 },
        { hostname: 'docs.taken.com' },
        { basename: 'taken' },
        { basename: 'two/segments' },
        { basename: '' },
        { agentsContext: 'sometimes' },
        { title: 'z' },
        { visibility: 'private' },
        { adaptiveContent: { on: true } },
        { defaultLevel: 'owner' },
      ]
      for (const body of bad) {
        const res = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { title: 'Changed', ...body } })
        expect(res.status, JSON.stringify(body)).toBe(400)
      }
      expect((await t.api.raw('PATCH', `/orgs/${orgId}/sites/${site.id}`, undefined)).status).toBe(400)
      expect(await getSite(site.id)).toMatchObject({ title: 'Strict', visibility: 'public', agentsContext: 'included' })
    })

    it('chooses the default site space (root or default section) and the default section', async () => {
      const site = await createSite({ title: 'Defaults', spaces: [spaceIds[0], spaceIds[1]] })
      const listed = await t.api.call('listSiteSpaces', { params: params({ siteId: site.id }) })
      const second = listed.body.items[1].id
      await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultSiteSpace: second } })
      const defaults = await t.api.call('listSiteSpaces', { params: params({ siteId: site.id }), query: { default: true } })
      expect(ids(defaults.body.items)).toEqual([second])

      const added = await t.api.call('addSectionToSite', { params: params({ siteId: site.id }), body: { spaceId: spaceIds[2], title: 'Changelog' } })
      // The root site spaces moved into a first section, which stays the default.
      const sections = (await t.api.call('listSiteSections', { params: params({ siteId: site.id }) })).body.items
      expect(sections.map((s: any) => [s.title, s.default])).toEqual([
        ['API', true],
        ['Changelog', false],
      ])
      const changelogSpace = added.body.siteSpaces[0].id
      const wrong = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultSiteSpace: changelogSpace } })
      expect(wrong.status).toBe(400)
      const both = await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultSiteSection: added.body.id, defaultSiteSpace: changelogSpace } })
      expect(both.status).toBe(200)
      const after = (await t.api.call('listSiteSections', { params: params({ siteId: site.id }) })).body.items
      expect(after.map((s: any) => s.default)).toEqual([false, true])
      expect(after[1].siteSpaces[0].default).toBe(true)

      expect((await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultSiteSpace: 'nope' } })).status).toBe(404)
      expect((await t.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { defaultSiteSection: 'nope' } })).status).toBe(404)
    })

    it('answers 403 to members and 404 to outsiders and unknown sites', async () => {
      const site = await createSite({ title: 'Guarded' })
      expect((await member.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { title: 'Mine' } })).status).toBe(403)
      expect((await stranger.api.call('updateSiteById', { params: params({ siteId: site.id }), body: { title: 'Mine' } })).status).toBe(404)
      expect((await t.api.call('updateSiteById', { params: params({ siteId: 'nope' }), body: { title: 'Mine' } })).status).toBe(404)
      expect((await getSite(site.id)).title).toBe('Guarded')
    })
  })

  describe('deleteSiteById', () => {
    it('answers 205 when the site has been deleted and 204 when it did not exist', async () => {
      const site = await createSite({ title: 'Doomed', spaces: [spaceIds[0]] })
      const orgs = t.service.store.repo(OrganizationsRepository)
      orgs.update(orgId, { data: { defaultContent: { type: 'site', site: site.id } } })
      expect((await member.api.call('deleteSiteById', { params: params({ siteId: site.id }) })).status).toBe(403)
      expect((await stranger.api.call('deleteSiteById', { params: params({ siteId: site.id }) })).status).toBe(404)
      const res = await t.api.call('deleteSiteById', { params: params({ siteId: site.id }) })
      expect(res.status).toBe(205)
      expect(res.body).toBeUndefined()
      expect((await t.api.call('getSiteById', { params: params({ siteId: site.id }) })).status).toBe(404)
      expect(orgs.get(orgId)?.data.defaultContent).toBeNull()
      expect((await t.api.call('deleteSiteById', { params: params({ siteId: site.id }) })).status).toBe(204)
      expect((await t.api.call('deleteSiteById', { params: params({ siteId: 'never' }) })).status).toBe(204)
    })
  })

  describe('publishSite and unpublishSite', () => {
    it('publishes the site (published = true, a published URL) and takes it down again', async () => {
      const site = await createSite({ title: 'Launch' })
      expect((await member.api.call('publishSite', { params: params({ siteId: site.id }) })).status).toBe(403)
      const res = await publish(site.id)
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ id: site.id, published: true, urls: { published: `${t.service.origin}/published/${orgId}/${site.id}` } })
      const down = await t.api.call('unpublishSite', { params: params({ siteId: site.id }) })
      expect(down.body.published).toBe(false)
      expect(down.body.urls.published).toBeUndefined()
      expect((await t.api.call('publishSite', { params: params({ siteId: 'nope' }) })).status).toBe(404)
    })
  })

  describe('getPublishedContentSite', () => {
    let siteId: string
    let guideSiteSpace: string
    beforeAll(async () => {
      const site = await createSite({ title: 'Published', spaces: [spaceIds[0]] })
      siteId = site.id
      await t.api.call('addSectionToSite', { params: params({ siteId }), body: { spaceId: spaceIds[1], title: 'Reference' } })
      await t.api.call('addSectionToSite', { params: params({ siteId }), body: { spaceId: spaceIds[2], title: 'Drafts', draft: true } })
      const sections = (await t.api.call('listSiteSections', { params: params({ siteId }) })).body.items
      guideSiteSpace = sections[0].siteSpaces[0].id
      await t.api.call('overrideSiteSpaceCustomizationById', { params: params({ siteId, siteSpaceId: guideSiteSpace }), body: { title: 'The Guide' } })
    })

    it('answers 404 while the site is not published', async () => {
      expect((await t.api.call('getPublishedContentSite', { params: params({ siteId }) })).status).toBe(404)
    })

    it('answers the published profile: site, live structure (sections with site spaces) and customizations', async () => {
      await publish(siteId)
      const res = await stranger.api.call('getPublishedContentSite', { params: params({ siteId }) })
      expect(res.status).toBe(200)
      expect(res.body.object).toBe('published-content-site')
      expect(res.body.site).toMatchObject({ id: siteId, published: true, permissions: { view: false } })
      expect(res.body.structure.type).toBe('sections')
      expect(res.body.structure.structure.map((s: any) => s.title)).toEqual(['Guide', 'Reference'])
      expect(res.body.structure.structure[0].siteSpaces[0]).toMatchObject({ id: guideSiteSpace, title: 'The Guide', default: true })
      expect(res.body.structure.structure[1].urls.published).toBe(`${t.service.origin}/published/${orgId}/${siteId}/reference`)
      expect(Object.keys(res.body.customizations.siteSpaces)).toHaveLength(2)
      expect(res.body.customizations.siteSpaces[guideSiteSpace].title).toBe('The Guide')
      expect(res.body.customizations.site.favicon).toEqual({})
      expect(res.body.scripts).toEqual([])
    })

    it('opens a share-link site to holders of an active share key only', async () => {
      await t.api.call('updateSiteById', { params: params({ siteId }), body: { visibility: 'share-link' } })
      const link = await t.api.call('createSiteShareLink', { params: params({ siteId }), body: { name: 'Partners' } })
      expect(link.status).toBe(201)
      const key = new URL(link.body.urls.published).searchParams.get('shareKey') as string
      expect(key).toBeTruthy()

      expect((await stranger.api.call('getPublishedContentSite', { params: params({ siteId }) })).status).toBe(404)
      expect((await stranger.api.call('getPublishedContentSite', { params: params({ siteId }), query: { shareKey: 'wrong' } })).status).toBe(404)
      // A wrong key opens nothing, not even for the owner.
      expect((await t.api.call('getPublishedContentSite', { params: params({ siteId }), query: { shareKey: 'wrong' } })).status).toBe(404)
      const opened = await stranger.api.call('getPublishedContentSite', { params: params({ siteId }), query: { shareKey: key } })
      expect(opened.status).toBe(200)
      expect(opened.body.site.urls.published).toContain(`shareKey=${key}`)
      expect((await member.api.call('getPublishedContentSite', { params: params({ siteId }) })).status).toBe(200)

      const sections = await t.api.call('listSiteSections', { params: params({ siteId }), query: { shareKey: key } })
      expect(sections.body.items[1].urls.published).toContain(`shareKey=${key}`)

      await t.api.call('updateSiteShareLinkById', { params: params({ siteId, shareLinkId: link.body.id }), body: { active: false } })
      expect((await stranger.api.call('getPublishedContentSite', { params: params({ siteId }), query: { shareKey: key } })).status).toBe(404)
    })

    it('keeps visitor-auth sites to members and unknown sites 404', async () => {
      await t.api.call('updateSiteById', { params: params({ siteId }), body: { visibility: 'visitor-auth' } })
      expect((await stranger.api.call('getPublishedContentSite', { params: params({ siteId }) })).status).toBe(404)
      expect((await member.api.call('getPublishedContentSite', { params: params({ siteId }) })).status).toBe(200)
      expect((await t.api.call('getPublishedContentSite', { params: params({ siteId: 'nope' }) })).status).toBe(404)
      expect((await t.api.call('getPublishedContentSite', { params: { organizationId: 'nope', siteId } })).status).toBe(404)
    })
  })

  describe('getSiteStructure', () => {
    it('answers the site spaces of a site without sections, drafts included', async () => {
      const site = await createSite({ title: 'Flat', spaces: [spaceIds[0]] })
      const res = await t.api.call('getSiteStructure', { params: params({ siteId: site.id }) })
      expect(res.body.type).toBe('siteSpaces')
      expect(res.body.structure.map((s: any) => s.space.id)).toEqual([spaceIds[0]])
      expect((await stranger.api.call('getSiteStructure', { params: params({ siteId: site.id }) })).status).toBe(404)
    })
  })

  describe('share links', () => {
    it('lists (with search), renames and deletes share links; only admins see them', async () => {
      const site = await createSite({ title: 'Shared', visibility: 'share-link' })
      const p = params({ siteId: site.id })
      const a = (await t.api.call('createSiteShareLink', { params: p, body: { name: 'Agency' } })).body
      await t.api.call('createSiteShareLink', { params: p, body: { name: 'Board' } })
      const listed = await t.api.call('listSiteShareLinks', { params: p, query: { search: 'agen' } })
      expect(ids(listed.body.items)).toEqual([a.id])
      expect(listed.body.items[0].urls).toEqual({})
      const renamed = await t.api.call('updateSiteShareLinkById', { params: { ...p, shareLinkId: a.id }, body: { name: 'Agency 2' } })
      expect(renamed.body).toMatchObject({ name: 'Agency 2', active: true })
      expect((await t.api.call('updateSiteShareLinkById', { params: { ...p, shareLinkId: a.id }, body: {} })).status).toBe(400)
      expect((await t.api.call('updateSiteShareLinkById', { params: { ...p, shareLinkId: 'nope' }, body: { active: false } })).status).toBe(404)
      expect((await t.api.call('createSiteShareLink', { params: p, body: { name: 'n'.repeat(51) } })).status).toBe(400)
      expect((await member.api.call('listSiteShareLinks', { params: p })).status).toBe(403)
      expect((await t.api.call('deleteSiteShareLinkById', { params: { ...p, shareLinkId: a.id } })).status).toBe(205)
      expect((await t.api.call('deleteSiteShareLinkById', { params: { ...p, shareLinkId: a.id } })).status).toBe(204)
    })
  })

  describe('adaptive schema', () => {
    const schema = {
      type: 'object',
      properties: {
        isBetaUser: { type: 'boolean', description: 'Beta tester' },
        plan: { type: 'string', enum: ['free', 'pro'], description: 'Plan' },
        unsigned: {
          type: 'object',
          description: 'Unsigned claims of the site visitor.',
          properties: { prefersDark: { type: 'boolean', description: 'Prefers dark' } },
          additionalProperties: false,
        },
      },
      additionalProperties: false,
    }
    let siteId: string
    beforeAll(async () => {
      siteId = (await createSite({ title: 'Adaptive' })).id
    })

    it('answers 404 while the site has no visitor schema, and no template conditions', async () => {
      expect((await t.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })).status).toBe(404)
      expect((await t.api.call('listSiteAdaptiveTemplateConditions', { params: params({ siteId }) })).body).toEqual({ items: [] })
    })

    it('stores a draft-07 visitor schema and derives template conditions from it', async () => {
      const put = await t.api.call('updateSiteAdaptiveSchema', { params: params({ siteId }), body: { jsonSchema: { $schema: 'http://json-schema.org/draft-07/schema#', ...schema } } })
      expect(put.status).toBe(200)
      expect(put.body).toMatchObject({ object: 'site-adaptive-schema', jsonSchema: { properties: { plan: { enum: ['free', 'pro'] } } } })
      const got = await member.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })
      expect(got.body.jsonSchema).toEqual(put.body.jsonSchema)
      expect(got.body.updatedAt).toBe(put.body.updatedAt)
      const conditions = await t.api.call('listSiteAdaptiveTemplateConditions', { params: params({ siteId }) })
      expect(conditions.body.items.map((c: any) => c.condition)).toEqual([
        'visitor.claims.isBetaUser === true',
        'visitor.claims.plan === "free"',
        'visitor.claims.plan === "pro"',
        'visitor.claims.unsigned.prefersDark === true',
      ])
    })

    it('rejects schemas that are not the document\'s draft-07 object with 400 and keeps the stored one', async () => {
      const before = (await t.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })).body
      const bad = [
        {},
        { jsonSchema: { ...schema, type: 'array' } },
        { jsonSchema: { ...schema, additionalProperties: true } },
        { jsonSchema: { ...schema, $schema: 'https://json-schema.org/draft/2020-12/schema' } },
        { jsonSchema: { ...schema, properties: { 'has-dash': { type: 'boolean', description: 'x' } } } },
        { jsonSchema: { ...schema, properties: { flag: { type: 'boolean' } } } },
        { jsonSchema: { ...schema, properties: { plan: { type: 'string', enum: [], description: 'Plan' } } } },
        { jsonSchema: { ...schema, properties: { plan: { type: 'string', enum: ['a', 'a'], description: 'Plan' } } } },
        { jsonSchema: { ...schema, unknownKeyword: 1 } },
      ]
      for (const body of bad) {
        const res = await t.api.call('updateSiteAdaptiveSchema', { params: params({ siteId }), body })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await t.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })).body).toEqual(before)
      expect((await member.api.call('updateSiteAdaptiveSchema', { params: params({ siteId }), body: { jsonSchema: schema } })).status).toBe(403)
      expect((await stranger.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })).status).toBe(404)
    })

    it('answers `Unexpected Error` when the stored schema cannot be read or a new one cannot be saved', async () => {
      const db = t.service.store.db
      // Fault injection: an unreadable stored schema, then a database that refuses the write.
      db.prepare('UPDATE sites SET adaptive_schema = ? WHERE id = ?').run('{corrupt', siteId)
      const read = await t.api.call('getSiteAdaptiveSchema', { params: params({ siteId }) })
      expect(read.status).toBe(500)
      expect(read.body.error.message).toMatch(/^Unexpected Error/)
      expect((await t.api.call('listSiteAdaptiveTemplateConditions', { params: params({ siteId }) })).status).toBe(500)

      db.exec("CREATE TRIGGER refuse_schema BEFORE UPDATE OF adaptive_schema ON sites BEGIN SELECT RAISE(ABORT, 'disk says no'); END")
      try {
        const write = await t.api.call('updateSiteAdaptiveSchema', { params: params({ siteId }), body: { jsonSchema: schema } })
        expect(write.status).toBe(500)
        expect(write.body.error.message).toMatch(/^Unexpected Error.*disk says no/)
      } finally {
        db.exec('DROP TRIGGER refuse_schema')
      }
      expect((await t.api.call('updateSiteAdaptiveSchema', { params: params({ siteId }), body: { jsonSchema: schema } })).status).toBe(200)
    })
  })

  describe('seedSitesDemo', () => {
    it('seeds a published site with two sections, a section group and customization that a newcomer can browse', async () => {
      const demoOrg = t.service.store.repo(OrganizationsRepository).create({ title: 'Demo Org', owner: t.service.ownerId }).id
      const demoSpaces: string[] = []
      for (const title of ['User Guide', 'API Reference']) {
        demoSpaces.push((await t.api.call('createSpace', { params: { organizationId: demoOrg }, body: { title } })).body.id)
      }
      const site = seedSitesDemo(t.service.store, demoOrg, t.service.ownerId, demoSpaces)
      const p = { organizationId: demoOrg, siteId: site.id }
      const published = await stranger.api.call('getPublishedContentSite', { params: p })
      expect(published.status).toBe(200)
      const show = (items: any[]): string =>
        items.map((i: any) => (i.object === 'site-section-group' ? `${i.title}[${show(i.children)}]` : `${i.title}(${i.siteSpaces.map((s: any) => s.title).join(',')})`)).join(' ')
      expect(show(published.body.structure.structure)).toBe('Guides(User Guide) Reference[API(API Reference (v1))]')
      expect(published.body.site).toMatchObject({ title: 'Quire Docs', basename: 'docs', published: true, icon: { emoji: '\u{1F4DA}' } })
      expect(published.body.customizations.site).toMatchObject({ title: 'Quire Docs', announcement: { enabled: true } })
      expect((await t.api.call('listSiteSectionGroups', { params: p })).body.count).toBe(1)
      expect((await t.api.call('getSiteCustomizationById', { params: p })).body.styling.primaryColor.light).toBe('#6D28D9')
    })
  })
})

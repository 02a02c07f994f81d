import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SiteStructureRepository } from '../../src/main/service/store/site-structure'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeOrg, createSpaces, errorBody, person, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'


describe('site spaces', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let stranger: Person // not in the organization
  let siteId: string
  let spaceIds: Record<string, string>
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, siteId, ...extra })
  const structure = () => t.service.store.repo(SiteStructureRepository)

  const list = async (query: Record<string, string | number | boolean> = {}) =>
    (await t.api.call('listSiteSpaces', { params: params(), query: { limit: 100, ...query } })).body.items
  const add = async (body: Record<string, unknown>) => {
    const res = await t.api.call('addSpaceToSite', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }
  const addSection = async (spaceId: string) => (await t.api.call('addSectionToSite', { params: params(), body: { spaceId } })).body
  /** Site spaces by space title, grouped by section: `Guide|API Blog` is two sections. */
  const layout = async () => {
    const res = await t.api.call('getSiteStructure', { params: params() })
    const names = (siteSpaces: any[]) => siteSpaces.map((s: any) => s.space.title).join(' ')
    return res.body.type === 'siteSpaces' ? names(res.body.structure) : res.body.structure.map((s: any) => names(s.siteSpaces)).join('|')
  }

  beforeAll(async () => {
    t = await startTestService()
    member = person(t, 'Mia')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [[member, 'edit']], 'Site Spaces Org')
    spaceIds = await createSpaces(t, orgId, ['Guide', 'API', 'Changelog', 'Blog'])
  })
  beforeEach(async () => {
    siteId = (await t.api.call('createSite', { params: { organizationId: orgId }, body: { title: 'Docs', spaces: [spaceIds.Guide] } })).body.id
  })
  afterAll(() => t.close())

  describe('addSpaceToSite', () => {
    it('adds a space at the root of a site without sections (201, Location)', async () => {
      const res = await t.api.call('addSpaceToSite', { params: params(), body: { spaceId: spaceIds.API } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/orgs/${orgId}/sites/${siteId}/site-spaces/${res.body.id}`)
      expect(res.body).toMatchObject({ object: 'site-space', path: 'api', title: 'API', default: false, draft: false, hidden: false, space: { id: spaceIds.API } })
      expect(res.body.section).toBeUndefined()
      expect(await layout()).toBe('Guide API')
    })

    it('adds to the section named, else to the default section', async () => {
      const api = await addSection(spaceIds.API)
      const toApi = await add({ spaceId: spaceIds.Blog, sectionId: api.id })
      expect(toApi.section).toBe(api.id)
      const toDefault = await add({ spaceId: spaceIds.Changelog })
      expect(await layout()).toBe('Guide Changelog|API Blog')
      expect(toDefault.section).not.toBe(api.id)
    })

    it('takes a title override, a draft flag and a home page; creates a new space for `spaceId: null`', async () => {
      const space = t.service.store.repo(SpacesRepository).get(spaceIds.API)
      const pageId = t.service.store.repo(RevisionsRepository).get(space?.revisionId as string)?.tree.pages[0].id as string
      const variant = await add({ spaceId: spaceIds.API, title: 'API (v2)', draft: true, pageId })
      expect(variant).toMatchObject({ title: 'API (v2)', draft: true, pageId, space: { title: 'API' } })
      const fresh = await add({ spaceId: null, title: 'Release notes' })
      expect(fresh.space.title).toBe('Release notes')
      expect(fresh.path).toBe('release-notes')
    })

    it('rejects bad input and writes nothing', async () => {
      const before = structure().siteSpaces(siteId).length
      const bad: Array<[Record<string, unknown>, number]> = [
        [{}, 400],
        [{ spaceId: 5 }, 400],
        [{ spaceId: spaceIds.Guide }, 400], // already in this section
        [{ spaceId: spaceIds.API, title: 'x' }, 400],
        [{ spaceId: spaceIds.API, pageId: 'nope' }, 400],
        [{ spaceId: null, pageId: 'nope' }, 400],
        [{ spaceId: null, template: { id: 'blank' } }, 400],
        [{ spaceId: 'nope' }, 404],
        [{ spaceId: spaceIds.API, sectionId: 'nope' }, 404],
      ]
      for (const [body, status] of bad) {
        const res = await t.api.call('addSpaceToSite', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(status)
        expect(res.body).toEqual(errorBody(status))
      }
      expect(structure().siteSpaces(siteId).length).toBe(before)
      expect((await member.api.call('addSpaceToSite', { params: params(), body: { spaceId: spaceIds.API } })).status).toBe(403)
      expect((await stranger.api.call('addSpaceToSite', { params: params(), body: { spaceId: spaceIds.API } })).status).toBe(404)
    })

    it('refuses to guess a section on a site of section groups without sections', async () => {
      const empty = (await t.api.call('createSite', { params: { organizationId: orgId }, body: { title: 'Empty' } })).body.id
      await t.api.call('addSectionGroupToSite', { params: { organizationId: orgId, siteId: empty }, body: { title: 'Group' } })
      const res = await t.api.call('addSpaceToSite', { params: { organizationId: orgId, siteId: empty }, body: { spaceId: spaceIds.API } })
      expect(res.status).toBe(400)
    })
  })

  describe('listSiteSpaces', () => {
    it('pages the site spaces and filters the defaults with `default`', async () => {
      await addSection(spaceIds.API)
      await add({ spaceId: spaceIds.Blog })
      const all = await list()
      expect(all.map((s: any) => [s.space.id, s.default])).toEqual([
        [spaceIds.Guide, true],
        [spaceIds.Blog, false],
        [spaceIds.API, true],
      ])
      expect((await list({ default: true })).map((s: any) => s.space.id)).toEqual([spaceIds.Guide, spaceIds.API])
      expect((await list({ default: false })).map((s: any) => s.space.id)).toEqual([spaceIds.Blog])

      const first = await member.api.call('listSiteSpaces', { params: params(), query: { limit: 2 } })
      expect(first.body.count).toBe(3)
      const second = await member.api.call('listSiteSpaces', { params: params(), query: { limit: 2, page: first.body.next.page } })
      expect(second.body.items.map((s: any) => s.space.id)).toEqual([spaceIds.API])
    })

    it('answers hostile limits and a bad filter with 400, outsiders with 404', async () => {
      for (const q of ['limit=5000', 'limit=-1', 'limit=abc', 'default=perhaps']) {
        const res = await t.api.raw('GET', `/orgs/${orgId}/sites/${siteId}/site-spaces?${q}`)
        expect(res.status, q).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect((await stranger.api.call('listSiteSpaces', { params: params() })).status).toBe(404)
      expect((await t.api.call('listSiteSpaces', { params: params({ siteId: 'nope' }) })).status).toBe(404)
    })
  })

  describe('updateSiteSpaceById', () => {
    it('updates path, hidden and draft; `condition` absent leaves it, null removes it', async () => {
      const api = await add({ spaceId: spaceIds.API })
      const p = params({ siteSpaceId: api.id })
      const res = await t.api.call('updateSiteSpaceById', { params: p, body: { path: 'reference', hidden: true, draft: true, condition: 'visitor.claims.plan === "pro"' } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ path: 'reference', hidden: true, draft: true, condition: 'visitor.claims.plan === "pro"' })
      const untouched = await t.api.call('updateSiteSpaceById', { params: p, body: { hidden: false } })
      expect(untouched.body).toMatchObject({ hidden: false, condition: 'visitor.claims.plan === "pro"', path: 'reference' })
      const removed = await t.api.call('updateSiteSpaceById', { params: p, body: { condition: null } })
      expect(removed.body.condition).toBeUndefined()
    })

    it('points the site space at another space (its custom home page goes with the old one)', async () => {
      const space = t.service.store.repo(SpacesRepository).get(spaceIds.API)
      const pageId = t.service.store.repo(RevisionsRepository).get(space?.revisionId as string)?.tree.pages[0].id as string
      const api = await add({ spaceId: spaceIds.API, pageId })
      const res = await t.api.call('updateSiteSpaceById', { params: params({ siteSpaceId: api.id }), body: { spaceId: spaceIds.Blog } })
      expect(res.body.space.id).toBe(spaceIds.Blog)
      expect(res.body.pageId).toBeUndefined()
      expect(res.body.title).toBe('Blog')
    })

    it('rejects bad fields with 400/404 and writes nothing of the request', async () => {
      const api = await add({ spaceId: spaceIds.API })
      const bad: Array<[Record<string, unknown>, number]> = [
        [{ path: 'guide' }, 400],
        [{ path: 'a b' }, 400],
        [{ path: '' }, 400],
        [{ path: 'p'.repeat(101) }, 400],
        [{ condition: 'c'.repeat(1025) }, 400],
        [{ spaceId: spaceIds.Guide }, 400],
        [{ pageId: 'nope' }, 400],
        [{ hidden: 'yes' }, 400],
        [{ spaceId: 'nope' }, 404],
      ]
      for (const [body, status] of bad) {
        const res = await t.api.call('updateSiteSpaceById', { params: params({ siteSpaceId: api.id }), body: { draft: true, ...body } })
        expect(res.status, JSON.stringify(body)).toBe(status)
      }
      expect((await list())[1]).toMatchObject({ id: api.id, path: 'api', draft: false, space: { id: spaceIds.API } })
      expect((await t.api.call('updateSiteSpaceById', { params: params({ siteSpaceId: 'nope' }), body: { draft: true } })).status).toBe(404)
      expect((await member.api.call('updateSiteSpaceById', { params: params({ siteSpaceId: api.id }), body: { draft: true } })).status).toBe(403)
    })
  })

  describe('deleteSiteSpaceById', () => {
    it('answers 205 when deleted and 204 when the site space did not exist; the next one becomes the default', async () => {
      await add({ spaceId: spaceIds.API })
      const [guide] = await list()
      await t.api.call('overrideSiteSpaceCustomizationById', { params: params({ siteSpaceId: guide.id }), body: { title: 'Guide!' } })
      expect((await member.api.call('deleteSiteSpaceById', { params: params({ siteSpaceId: guide.id }) })).status).toBe(403)
      const res = await t.api.call('deleteSiteSpaceById', { params: params({ siteSpaceId: guide.id }) })
      expect(res.status).toBe(205)
      expect((await list()).map((s: any) => [s.space.id, s.default])).toEqual([[spaceIds.API, true]])
      expect((await t.api.call('deleteSiteSpaceById', { params: params({ siteSpaceId: guide.id }) })).status).toBe(204)
      expect((await t.api.call('getSiteSpaceCustomizationById', { params: params({ siteSpaceId: guide.id }) })).status).toBe(404)
    })
  })

  describe('moveSiteSpace', () => {
    it('moves before or after another site space, to the end, and into another section', async () => {
      const api = await add({ spaceId: spaceIds.API })
      const blog = await add({ spaceId: spaceIds.Blog })
      const [guide] = await list()
      const move = (id: string, body?: unknown) => t.api.call('moveSiteSpace', { params: params({ siteSpaceId: id }), body })
      const pointer = (id: string) => ({ type: 'site-space', siteSpace: id })
      const res = await move(blog.id, { position: { before: pointer(guide.id) } })
      expect(res.status).toBe(200)
      expect(await layout()).toBe('Blog Guide API')
      await move(blog.id, { position: { after: pointer(guide.id), before: pointer(api.id) } })
      expect(await layout()).toBe('Guide Blog API')
      await move(guide.id)
      expect(await layout()).toBe('Blog API Guide')

      const changelog = await addSection(spaceIds.Changelog)
      const moved = await move(api.id, { position: { after: pointer(changelog.siteSpaces[0].id) } })
      expect(moved.body.section).toBe(changelog.id)
      expect(await layout()).toBe('Blog Guide|Changelog API')
    })

    it('answers invalid positions with 400 and an unknown site space with 404, changing nothing', async () => {
      const api = await add({ spaceId: spaceIds.API })
      const blog = await add({ spaceId: spaceIds.Blog })
      const [guide] = await list()
      const other = await addSection(spaceIds.Changelog)
      const guideTwice = await add({ spaceId: spaceIds.Guide, sectionId: other.id })
      const pointer = (id: string) => ({ type: 'site-space', siteSpace: id })
      const invalid: Array<[string, unknown]> = [
        [api.id, { before: pointer('nope') }],
        [api.id, { after: pointer(api.id) }],
        [api.id, { after: pointer(blog.id), before: pointer(guide.id) }],
        [guide.id, { after: pointer(guideTwice.id) }], // that section already shows the space
        [api.id, { before: { type: 'site-section', siteSpace: guide.id } }],
      ]
      const before = await layout()
      for (const [id, position] of invalid) {
        const res = await t.api.call('moveSiteSpace', { params: params({ siteSpaceId: id }), body: { position } })
        expect(res.status, JSON.stringify(position)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect(await layout()).toBe(before)
      expect((await t.api.call('moveSiteSpace', { params: params({ siteSpaceId: 'nope' }), body: {} })).status).toBe(404)
      expect((await member.api.call('moveSiteSpace', { params: params({ siteSpaceId: api.id }), body: {} })).status).toBe(403)
    })
  })

  describe('published view', () => {
    it('percent-encodes paths in published URLs and leaves deleted spaces and drafts out of the published site', async () => {
      const cafe = (await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Café Notes' } })).body.id
      const added = await add({ spaceId: cafe })
      await add({ spaceId: spaceIds.Blog, draft: true })
      expect(added.path).toBe('café-notes')
      await t.api.call('publishSite', { params: params() })
      const [, listed] = await list()
      expect(listed.urls.published).toBe(`${t.service.origin}/published/${orgId}/${siteId}/caf%C3%A9-notes`)

      const visible = async () =>
        (await stranger.api.call('getPublishedContentSite', { params: params() })).body.structure.structure.map((s: any) => s.space.title)
      expect(await visible()).toEqual(['Guide', 'Café Notes'])
      expect((await t.api.call('deleteSpaceById', { params: { spaceId: cafe } })).status).toBe(205)
      expect(await visible()).toEqual(['Guide'])
      expect((await list()).map((s: any) => s.space.title)).toEqual(['Guide', 'Café Notes', 'Blog'])
    })
  })
})

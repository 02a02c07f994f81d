import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SiteStructureRepository } from '../../src/main/service/store/site-structure'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeOrg, createSpaces, errorBody, person, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

const titles = (items: Array<{ title: string }>) => items.map((i) => i.title)

describe('site sections and section groups', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let stranger: Person // not in the organization
  let siteId: string
  let spaceIds: Record<string, string>
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, siteId, ...extra })
  const structure = () => t.service.store.repo(SiteStructureRepository)

  const sections = async () => (await t.api.call('listSiteSections', { params: params(), query: { limit: 100 } })).body.items
  const addSection = async (body: Record<string, unknown>) => {
    const res = await t.api.call('addSectionToSite', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }
  const createGroup = async (body: Record<string, unknown>) => {
    const res = await t.api.call('addSectionGroupToSite', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }
  /** The site's structure as titles: sections by title, groups as `title[children]`. */
  const outline = async (): Promise<string> => {
    const res = await t.api.call('getSiteStructure', { params: params() })
    const show = (items: any[]): string =>
      items.map((i: any) => (i.object === 'site-section-group' ? `${i.title}[${show(i.children)}]` : i.title)).join(' ')
    return show(res.body.structure)
  }

  beforeAll(async () => {
    t = await startTestService()
    member = person(t, 'Mia')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [[member, 'edit']], 'Sections Org')
    spaceIds = await createSpaces(t, orgId, ['Guide', 'API', 'Changelog', 'Blog'])
  })
  beforeEach(async () => {
    siteId = (await t.api.call('createSite', { params: { organizationId: orgId }, body: { title: 'Docs', spaces: [spaceIds.Guide] } })).body.id
  })
  afterAll(() => t.close())

  describe('addSectionToSite', () => {
    it('adds a section (201, Location) with the space as its site space; the root content becomes the first section', async () => {
      const res = await t.api.call('addSectionToSite', { params: params(), body: { spaceId: spaceIds.API, title: 'API', icon: 'code' } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/orgs/${orgId}/sites/${siteId}/sections/${res.body.id}`)
      expect(res.body).toMatchObject({ object: 'site-section', title: 'API', path: 'api', icon: 'code', default: false, draft: false })
      expect(res.body.siteSpaces).toHaveLength(1)
      expect(res.body.siteSpaces[0]).toMatchObject({ section: res.body.id, default: true, space: { id: spaceIds.API } })
      const all = await sections()
      expect(all.map((s: any) => [s.title, s.default, s.siteSpaces.map((x: any) => x.space.id)])).toEqual([
        ['Guide', true, [spaceIds.Guide]],
        ['API', false, [spaceIds.API]],
      ])
    })

    it('creates a new space for `spaceId: null`, titles a section after its space, and files it in a group', async () => {
      const group = await createGroup({ title: 'Reference' })
      const fresh = await addSection({ spaceId: null, title: 'Tutorials', siteSectionGroupId: group.id })
      expect(fresh.sectionGroup).toBe(group.id)
      const space = t.service.store.repo(SpacesRepository).get(fresh.siteSpaces[0].space.id)
      expect(space).toMatchObject({ orgId, title: 'Tutorials' })
      const untitled = await addSection({ spaceId: spaceIds.Changelog, title: null })
      expect(untitled.title).toBe('Changelog')
      expect(await outline()).toBe('Guide Reference[Tutorials] Changelog')
    })

    it('checks `pageId` against the space content', async () => {
      const space = t.service.store.repo(SpacesRepository).get(spaceIds.Blog)
      const pageId = t.service.store.repo(RevisionsRepository).get(space?.revisionId as string)?.tree.pages[0].id as string
      const good = await addSection({ spaceId: spaceIds.Blog, title: 'Blog', pageId })
      expect(good.siteSpaces[0].pageId).toBe(pageId)
      expect((await t.api.call('addSectionToSite', { params: params(), body: { spaceId: spaceIds.API, pageId: 'nope' } })).status).toBe(400)
      expect((await t.api.call('addSectionToSite', { params: params(), body: { spaceId: null, pageId } })).status).toBe(400)
    })

    it('rejects bad input (icon over 50, short titles, unknown ids, templates) and writes nothing', async () => {
      const before = structure().sections(siteId).length
      const spacesBefore = t.service.store.repo(SpacesRepository).listByOrg(orgId).length
      const bad: Array<[Record<string, unknown>, number]> = [
        [{ spaceId: spaceIds.API, icon: 'i'.repeat(51) }, 400],
        [{ spaceId: spaceIds.API, title: 'x' }, 400],
        [{ spaceId: spaceIds.API, title: 't'.repeat(129) }, 400],
        [{ title: 'No space' }, 400],
        [{ spaceId: 42 }, 400],
        [{ spaceId: null, template: { id: 'blank' } }, 400],
        [{ spaceId: 'nope' }, 404],
        [{ spaceId: spaceIds.API, siteSectionGroupId: 'nope' }, 404],
      ]
      for (const [body, status] of bad) {
        const res = await t.api.call('addSectionToSite', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(status)
        expect(res.body).toEqual(errorBody(status))
      }
      expect(structure().sections(siteId).length).toBe(before)
      expect(t.service.store.repo(SpacesRepository).listByOrg(orgId).length).toBe(spacesBefore)
      const fifty = await addSection({ spaceId: spaceIds.API, icon: 'i'.repeat(50) })
      expect(fifty.icon).toHaveLength(50)
    })

    it('answers 403 to members and 404 to outsiders and unknown sites', async () => {
      expect((await member.api.call('addSectionToSite', { params: params(), body: { spaceId: spaceIds.API } })).status).toBe(403)
      expect((await stranger.api.call('addSectionToSite', { params: params(), body: { spaceId: spaceIds.API } })).status).toBe(404)
      expect((await t.api.call('addSectionToSite', { params: params({ siteId: 'nope' }), body: { spaceId: spaceIds.API } })).status).toBe(404)
    })
  })

  describe('listSiteSections', () => {
    it('pages sections in site order, for members too; hostile limits are 400, outsiders 404', async () => {
      await addSection({ spaceId: spaceIds.API })
      await addSection({ spaceId: spaceIds.Changelog })
      const first = await member.api.call('listSiteSections', { params: params(), query: { limit: 2 } })
      expect(first.body.count).toBe(3)
      expect(titles(first.body.items)).toEqual(['Guide', 'API'])
      const second = await member.api.call('listSiteSections', { params: params(), query: { limit: 2, page: first.body.next.page } })
      expect(titles(second.body.items)).toEqual(['Changelog'])
      expect(second.body.next).toBeUndefined()
      for (const limit of ['5000', '-1', 'abc']) expect((await t.api.raw('GET', `/orgs/${orgId}/sites/${siteId}/sections?limit=${limit}`)).status).toBe(400)
      expect((await stranger.api.call('listSiteSections', { params: params() })).status).toBe(404)
    })
  })

  describe('updateSiteSectionById', () => {
    it('updates title, path, icon, description, draft and the default site space', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const blog = (await t.api.call('addSpaceToSite', { params: params(), body: { spaceId: spaceIds.Blog, sectionId: api.id } })).body
      const res = await t.api.call('updateSiteSectionById', {
        params: params({ siteSectionId: api.id }),
        body: { title: 'API v2', path: 'api-v2', icon: 'terminal', description: 'Endpoints', draft: true, defaultSiteSpace: blog.id },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ title: 'API v2', path: 'api-v2', icon: 'terminal', description: 'Endpoints', draft: true })
      expect(res.body.siteSpaces.map((s: any) => [s.id, s.default])).toEqual([
        [api.siteSpaces[0].id, false],
        [blog.id, true],
      ])
      const cleared = await t.api.call('updateSiteSectionById', { params: params({ siteSectionId: api.id }), body: { icon: null, description: null } })
      expect(cleared.body.icon).toBeUndefined()
      expect(cleared.body.description).toBeUndefined()
      expect(cleared.body.title).toBe('API v2')
    })

    it('leaves `condition` unchanged when absent and removes it when null', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const p = params({ siteSectionId: api.id })
      const set = await t.api.call('updateSiteSectionById', { params: p, body: { condition: 'visitor.claims.isBetaUser === true' } })
      expect(set.body.condition).toBe('visitor.claims.isBetaUser === true')
      const untouched = await t.api.call('updateSiteSectionById', { params: p, body: { title: 'Still API' } })
      expect(untouched.body.condition).toBe('visitor.claims.isBetaUser === true')
      const removed = await t.api.call('updateSiteSectionById', { params: p, body: { condition: null } })
      expect(removed.body.condition).toBeUndefined()
    })

    it('moves a section into a group and back to the root with `siteSectionGroupId`', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const group = await createGroup({ title: 'Reference' })
      await t.api.call('updateSiteSectionById', { params: params({ siteSectionId: api.id }), body: { siteSectionGroupId: group.id } })
      expect(await outline()).toBe('Guide Reference[API]')
      await t.api.call('updateSiteSectionById', { params: params({ siteSectionId: api.id }), body: { siteSectionGroupId: null } })
      expect(await outline()).toBe('Guide Reference[] API')
    })

    it('rejects bad fields with 400/404 and writes nothing of the request', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const [guide] = await sections()
      const bad: Array<[Record<string, unknown>, number]> = [
        [{ path: 'guide' }, 400],
        [{ path: 'GUIDE' }, 400],
        [{ path: 'a/b' }, 400],
        [{ path: '' }, 400],
        [{ icon: 'i'.repeat(51) }, 400],
        [{ condition: 'x'.repeat(1025) }, 400],
        [{ description: 'd'.repeat(257) }, 400],
        [{ title: 'x' }, 400],
        [{ defaultSiteSpace: guide.siteSpaces[0].id }, 400],
        [{ defaultSiteSpace: 'nope' }, 404],
        [{ siteSectionGroupId: 'nope' }, 404],
      ]
      for (const [body, status] of bad) {
        const res = await t.api.call('updateSiteSectionById', { params: params({ siteSectionId: api.id }), body: { title: 'Renamed', ...body } })
        expect(res.status, JSON.stringify(body)).toBe(status)
      }
      expect((await sections())[1]).toMatchObject({ title: 'API', path: 'api' })
      expect((await t.api.call('updateSiteSectionById', { params: params({ siteSectionId: 'nope' }), body: { title: 'Renamed' } })).status).toBe(404)
      expect((await member.api.call('updateSiteSectionById', { params: params({ siteSectionId: api.id }), body: { title: 'Renamed' } })).status).toBe(403)
    })
  })

  describe('deleteSiteSectionById', () => {
    it('answers 205 when deleted (its site spaces go too) and 204 when the section did not exist', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const [guide] = await sections()
      expect((await member.api.call('deleteSiteSectionById', { params: params({ siteSectionId: guide.id }) })).status).toBe(403)
      const res = await t.api.call('deleteSiteSectionById', { params: params({ siteSectionId: guide.id }) })
      expect(res.status).toBe(205)
      const left = await sections()
      expect(left.map((s: any) => [s.id, s.default])).toEqual([[api.id, true]])
      expect(structure().siteSpaces(siteId).map((s) => s.spaceId)).toEqual([spaceIds.API])
      expect((await t.api.call('deleteSiteSectionById', { params: params({ siteSectionId: guide.id }) })).status).toBe(204)
    })
  })

  describe('moveSiteSection', () => {
    it('moves a section before or after another, or to the end of the site', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const changelog = await addSection({ spaceId: spaceIds.Changelog })
      const [guide] = await sections()
      const move = (siteSectionId: string, body?: unknown) => t.api.call('moveSiteSection', { params: params({ siteSectionId }), body })
      const pointer = (id: string) => ({ type: 'site-section', siteSection: id })

      const res = await move(changelog.id, { position: { before: pointer(guide.id) } })
      expect(res.status).toBe(200)
      expect(res.body.id).toBe(changelog.id)
      expect(await outline()).toBe('Changelog Guide API')
      await move(changelog.id, { position: { after: pointer(api.id) } })
      expect(await outline()).toBe('Guide API Changelog')
      await move(api.id, { position: { after: pointer(changelog.id), before: undefined } })
      expect(await outline()).toBe('Guide Changelog API')
      await move(changelog.id, { position: { after: pointer(guide.id), before: pointer(api.id) } })
      expect(await outline()).toBe('Guide Changelog API')
      await move(guide.id)
      expect(await outline()).toBe('Changelog API Guide')

      const group = await createGroup({ title: 'Group', sections: [api.id] })
      await move(guide.id, { position: { before: pointer(api.id) } })
      expect(await outline()).toBe(`Changelog ${group.title}[Guide API]`)
    })

    it('answers invalid positions with 400 and an unknown section with 404, changing nothing', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const changelog = await addSection({ spaceId: spaceIds.Changelog })
      const [guide] = await sections()
      const pointer = (id: string) => ({ type: 'site-section', siteSection: id })
      const invalid = [
        { before: pointer('nope') },
        { after: pointer(api.id) }, // itself
        { after: pointer(changelog.id), before: pointer(guide.id) }, // not neighbours in that order
        { before: { type: 'site-space', siteSection: guide.id } },
        { before: { type: 'site-section' } },
      ]
      for (const position of invalid) {
        const res = await t.api.call('moveSiteSection', { params: params({ siteSectionId: api.id }), body: { position } })
        expect(res.status, JSON.stringify(position)).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      const group = await createGroup({ title: 'Group' })
      const notASection = await t.api.call('moveSiteSection', { params: params({ siteSectionId: api.id }), body: { position: { before: pointer(group.id) } } })
      expect(notASection.status).toBe(400)
      expect(await outline()).toBe('Guide API Changelog Group[]')
      expect((await t.api.call('moveSiteSection', { params: params({ siteSectionId: 'nope' }), body: {} })).status).toBe(404)
      expect((await member.api.call('moveSiteSection', { params: params({ siteSectionId: api.id }), body: {} })).status).toBe(403)
    })
  })

  describe('section groups', () => {
    it('creates a group (201, Location) with sections and a parent; lists groups paged', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const changelog = await addSection({ spaceId: spaceIds.Changelog })
      const res = await t.api.call('addSectionGroupToSite', { params: params(), body: { title: 'Reference', icon: 'code', sections: [changelog.id, api.id] } })
      expect(res.status).toBe(201)
      expect(res.headers.get('location')).toBe(`${t.service.baseUrl}/orgs/${orgId}/sites/${siteId}/section-groups/${res.body.id}`)
      expect(res.body).toMatchObject({ object: 'site-section-group', title: 'Reference', icon: 'code', draft: false })
      expect(titles(res.body.children)).toEqual(['Changelog', 'API'])
      expect(titles(res.body.sections)).toEqual(['Changelog', 'API'])
      const nested = await createGroup({ title: 'Old', icon: null, parent: res.body.id })
      expect(nested.sectionGroup).toBe(res.body.id)
      expect(nested.icon).toBeUndefined()
      expect(await outline()).toBe('Guide Reference[Changelog API Old[]]')

      const first = await member.api.call('listSiteSectionGroups', { params: params(), query: { limit: 1 } })
      expect(first.body.count).toBe(2)
      expect(titles(first.body.items)).toEqual(['Reference'])
      const second = await member.api.call('listSiteSectionGroups', { params: params(), query: { limit: 1, page: first.body.next.page } })
      expect(titles(second.body.items)).toEqual(['Old'])
      expect((await t.api.raw('GET', `/orgs/${orgId}/sites/${siteId}/section-groups?limit=5000`)).status).toBe(400)
    })

    it('holds the title to 1..100 characters and the icon to 50; rejects unknown ids; writes nothing then', async () => {
      const [guide] = [await addSection({ spaceId: spaceIds.API })]
      const bad: Array<[Record<string, unknown>, number]> = [
        [{ title: '' }, 400],
        [{ title: 't'.repeat(101) }, 400],
        [{}, 400],
        [{ title: 'Icon', icon: 'i'.repeat(51) }, 400],
        [{ title: 'Twice', sections: [guide.id, guide.id] }, 400],
        [{ title: 'Ghost', sections: ['nope'] }, 404],
        [{ title: 'Orphan', parent: 'nope' }, 404],
      ]
      for (const [body, status] of bad) {
        const res = await t.api.call('addSectionGroupToSite', { params: params(), body })
        expect(res.status, JSON.stringify(body)).toBe(status)
        expect(res.body).toEqual(errorBody(status))
      }
      expect(structure().groups(siteId)).toHaveLength(0)
      expect((await createGroup({ title: 'x' })).title).toBe('x')
      expect((await createGroup({ title: 't'.repeat(100), icon: 'i'.repeat(50) })).title).toHaveLength(100)
      expect((await member.api.call('addSectionGroupToSite', { params: params(), body: { title: 'Mine' } })).status).toBe(403)
      expect((await stranger.api.call('addSectionGroupToSite', { params: params(), body: { title: 'Mine' } })).status).toBe(404)
    })

    it('updates title and icon (null removes it), nests groups and refuses cycles', async () => {
      const outer = await createGroup({ title: 'Outer', icon: 'box' })
      const inner = await createGroup({ title: 'Inner' })
      const p = params({ siteSectionGroupId: outer.id })
      const res = await t.api.call('updateSiteSectionGroupById', { params: p, body: { title: 'Renamed', icon: null } })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ title: 'Renamed' })
      expect(res.body.icon).toBeUndefined()
      await t.api.call('updateSiteSectionGroupById', { params: params({ siteSectionGroupId: inner.id }), body: { parentSectionGroupId: outer.id } })
      expect(await outline()).toBe('Guide Renamed[Inner[]]')
      expect((await t.api.call('updateSiteSectionGroupById', { params: p, body: { parentSectionGroupId: inner.id } })).status).toBe(400)
      expect((await t.api.call('updateSiteSectionGroupById', { params: p, body: { parentSectionGroupId: outer.id } })).status).toBe(400)
      for (const body of [{ title: '' }, { title: 't'.repeat(101) }, { icon: 'i'.repeat(51) }]) {
        expect((await t.api.call('updateSiteSectionGroupById', { params: p, body })).status, JSON.stringify(body)).toBe(400)
      }
      expect((await t.api.call('updateSiteSectionGroupById', { params: params({ siteSectionGroupId: 'nope' }), body: { title: 'X' } })).status).toBe(404)
      expect((await member.api.call('updateSiteSectionGroupById', { params: p, body: { title: 'X' } })).status).toBe(403)
      await t.api.call('updateSiteSectionGroupById', { params: params({ siteSectionGroupId: inner.id }), body: { parentSectionGroupId: null } })
      expect(await outline()).toBe('Guide Renamed[] Inner[]')
    })

    it('deletes a group (205), its content taking its place, and answers 204 when it did not exist', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const changelog = await addSection({ spaceId: spaceIds.Changelog })
      const group = await createGroup({ title: 'Reference', sections: [api.id] })
      await t.api.call('moveSiteSectionGroup', { params: params({ siteSectionGroupId: group.id }), body: { position: { before: { type: 'site-section', id: changelog.id } } } })
      expect(await outline()).toBe('Guide Reference[API] Changelog')
      const res = await t.api.call('deleteSiteSectionGroupById', { params: params({ siteSectionGroupId: group.id }) })
      expect(res.status).toBe(205)
      expect(await outline()).toBe('Guide API Changelog')
      expect((await t.api.call('deleteSiteSectionGroupById', { params: params({ siteSectionGroupId: group.id }) })).status).toBe(204)
    })

    it('adds a section to a group (201) and removes it again (it lands right after the group)', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      await addSection({ spaceId: spaceIds.Changelog })
      const group = await createGroup({ title: 'Reference' })
      const gp = params({ siteSectionGroupId: group.id })
      await t.api.call('moveSiteSectionGroup', { params: gp, body: { position: { after: { type: 'site-section', id: api.id } } } })
      const added = await t.api.call('addSiteSectionToSectionGroup', { params: gp, body: { sectionId: api.id } })
      expect(added.status).toBe(201)
      expect(titles(added.body.children)).toEqual(['API'])
      expect(await outline()).toBe('Guide Reference[API] Changelog')
      expect((await t.api.call('addSiteSectionToSectionGroup', { params: gp, body: { sectionId: api.id } })).status).toBe(201)

      const removed = await t.api.call('removeSiteSectionFromSectionGroup', { params: { ...gp, siteSectionId: api.id } })
      expect(removed.status).toBe(200)
      expect(removed.body.children).toEqual([])
      expect(await outline()).toBe('Guide Reference[] API Changelog')
      expect((await t.api.call('removeSiteSectionFromSectionGroup', { params: { ...gp, siteSectionId: api.id } })).status).toBe(404)

      for (const body of [{}, { sectionId: '' }, { sectionId: 7 }]) expect((await t.api.call('addSiteSectionToSectionGroup', { params: gp, body })).status).toBe(400)
      expect((await t.api.call('addSiteSectionToSectionGroup', { params: gp, body: { sectionId: 'nope' } })).status).toBe(404)
      expect((await t.api.call('addSiteSectionToSectionGroup', { params: params({ siteSectionGroupId: 'nope' }), body: { sectionId: api.id } })).status).toBe(404)
      expect((await member.api.call('addSiteSectionToSectionGroup', { params: gp, body: { sectionId: api.id } })).status).toBe(403)
      expect((await member.api.call('removeSiteSectionFromSectionGroup', { params: { ...gp, siteSectionId: api.id } })).status).toBe(403)
      expect(await outline()).toBe('Guide Reference[] API Changelog')
    })

    it('moves groups among sections and groups; never inside themselves', async () => {
      const api = await addSection({ spaceId: spaceIds.API })
      const outer = await createGroup({ title: 'Outer' })
      const inner = await createGroup({ title: 'Inner', parent: outer.id, sections: [api.id] })
      const move = (id: string, position: unknown) => t.api.call('moveSiteSectionGroup', { params: params({ siteSectionGroupId: id }), body: { position } })
      const [guide] = await sections()
      expect((await move(outer.id, { before: { type: 'site-section', id: guide.id } })).status).toBe(200)
      expect(await outline()).toBe('Outer[Inner[API]] Guide')
      expect((await move(outer.id, { before: { type: 'site-section', id: api.id } })).status).toBe(400)
      expect((await move(outer.id, { after: { type: 'site-section-group', id: inner.id } })).status).toBe(400)
      expect((await move(outer.id, { after: { type: 'site-section-group', id: 'nope' } })).status).toBe(400)
      expect((await move(outer.id, { after: { type: 'site-section-group', id: guide.id } })).status).toBe(400)
      expect((await move(inner.id, { after: { type: 'site-section', id: guide.id } })).body.sectionGroup).toBeUndefined()
      expect(await outline()).toBe('Outer[] Guide Inner[API]')
      expect((await move('nope', {})).status).toBe(404)
    })
  })
})

import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../support/service'

type Page = { id: string; title: string; pages?: Page[]; type: string }
const depth = (pages: Page[]): number => Math.max(0, ...pages.map((p) => 1 + depth(p.pages ?? [])))
const count = (pages: Page[]): number => pages.reduce((n, p) => n + 1 + count(p.pages ?? []), 0)

describe('the demo organization', () => {
  let t: TestService
  let orgId: string
  let spaces: Array<{ id: string; title: string; parent?: string }>
  beforeAll(async () => {
    t = await startTestService({ demo: true })
    const orgs = await t.api.call('listOrganizationsForAuthenticatedUser')
    orgId = orgs.body.items.find((o: { title: string }) => o.title === 'Quire Demo').id
    spaces = (await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId } })).body.items
  })
  afterAll(() => t.close())

  it('has two collections and at least three spaces in them', async () => {
    const collections = await t.api.call('listCollectionsInOrganizationById', { params: { organizationId: orgId } })
    expect(collections.body.items).toHaveLength(2)
    expect(spaces.length).toBeGreaterThanOrEqual(3)
    const collectionIds = new Set(collections.body.items.map((c: { id: string }) => c.id))
    expect(spaces.every((s) => s.parent && collectionIds.has(s.parent))).toBe(true)
  })

  it('has a space of at least 40 pages nested three levels deep, written with GitBook blocks and files', async () => {
    const guide = spaces.find((s) => s.title === 'User Guide')!
    const { pages } = (await t.api.call('listPages', { params: { spaceId: guide.id } })).body as { pages: Page[] }
    expect(count(pages)).toBeGreaterThanOrEqual(40)
    expect(depth(pages)).toBeGreaterThanOrEqual(3)

    const markdown: string[] = []
    const walk = async (list: Page[]) => {
      for (const page of list) {
        if (page.type === 'document') {
          const res = await t.api.call('getPageById', { params: { spaceId: guide.id, pageId: page.id }, query: { format: 'markdown' } })
          markdown.push(res.body.markdown)
        }
        await walk(page.pages ?? [])
      }
    }
    await walk(pages)
    const all = markdown.join('\n')
    for (const block of ['{% hint style=', '{% tabs %}', '{% code title=', '{% content-ref url=', '<figure>', '{% file src=', '{% embed url=']) {
      expect(all, block).toContain(block)
    }
    const files = await t.api.call('listFiles', { params: { spaceId: guide.id } })
    expect(files.body.items.length).toBeGreaterThanOrEqual(3)
  })

  it('has an open change request, comment threads with replies, and a few broken links', async () => {
    const guide = spaces.find((s) => s.title === 'User Guide')!
    const crs = await t.api.call('listChangeRequestsForSpace', { params: { spaceId: guide.id }, query: { status: 'open' } })
    expect(crs.body.items.length).toBeGreaterThanOrEqual(1)
    const comments = await t.api.call('listCommentsInSpace', { params: { spaceId: guide.id } })
    expect(comments.body.items.some((c: { replies: number }) => c.replies >= 2)).toBe(true)
    const links = await t.api.call('listSpaceLinks', { params: { spaceId: guide.id }, query: { status: 'broken' } })
    expect(links.body.items.length).toBeGreaterThanOrEqual(2)
    expect(links.body.stats.broken.total).toBe(links.body.items.length)
  })
})

describe('the demo organization admin and sites', () => {
  let t: TestService
  let orgId: string
  beforeAll(async () => {
    t = await startTestService({ demo: true })
    const orgs = await t.api.call('listOrganizationsForAuthenticatedUser')
    orgId = orgs.body.items.find((o: { title: string }) => o.title === 'Quire Demo').id
  })
  afterAll(() => t.close())

  it('has a team, a SAML provider, a custom font and an OpenAPI spec', async () => {
    const params = { organizationId: orgId }
    expect((await t.api.call('listTeamsInOrganizationById', { params })).body.items.length).toBeGreaterThanOrEqual(1)
    expect((await t.api.call('listSAMLProvidersInOrganizationById', { params })).body.items.length).toBeGreaterThanOrEqual(1)
    expect((await t.api.call('listCustomFonts', { params })).body.items.length).toBeGreaterThanOrEqual(1)
    expect((await t.api.call('listOpenAPISpecs', { params })).body.items.length).toBeGreaterThanOrEqual(1)
  })

  it('has a published site with two sections, a section group and customization', async () => {
    const sites = (await t.api.call('listSites', { params: { organizationId: orgId } })).body.items
    const site = sites.find((s: { published: boolean }) => s.published)
    expect(site).toBeDefined()
    const params = { organizationId: orgId, siteId: site.id }
    expect((await t.api.call('listSiteSections', { params })).body.items.length).toBeGreaterThanOrEqual(2)
    expect((await t.api.call('listSiteSectionGroups', { params })).body.items.length).toBeGreaterThanOrEqual(1)
    const customization = await t.api.call('getSiteCustomizationById', { params })
    expect(customization.body.favicon).toBeDefined()
    const published = await t.api.call('getPublishedContentSite', { params })
    expect(published.body.object).toBe('published-content-site')
  })
})

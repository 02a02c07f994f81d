import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { startTestService, type ApiClient, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  api: ApiClient
}

const errorBody = (code: number) => ({ error: { code, message: expect.any(String) } })
const without = (settings: Record<string, unknown>, key: string) => Object.fromEntries(Object.entries(settings).filter(([k]) => k !== key))

describe('site customization', () => {
  let t: TestService
  let orgId: string
  let member: Person // organization role `edit`
  let stranger: Person // not in the organization
  let spaceId: string
  let siteId: string
  let siteSpaceId: string
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, siteId, ...extra })
  const ssParams = () => params({ siteSpaceId })

  const person = (name: string): Person => {
    const user = t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    return { ...user, api: t.api.as(user.token) }
  }
  const siteSettings = async (query: Record<string, boolean> = {}) => (await t.api.call('getSiteCustomizationById', { params: params(), query })).body
  const spaceSettings = async () => (await t.api.call('getSiteSpaceCustomizationById', { params: ssParams() })).body
  /** A full settings body for the PUT, from what the site answers now. */
  const fullSettings = async (changes: Record<string, unknown> = {}) => ({ ...without(await siteSettings({ unmasked: true }), 'updatedAt'), ...changes })
  const createSite = async (type: string) => {
    const site = (await t.api.call('createSite', { params: { organizationId: orgId }, body: { title: 'Docs', type, spaces: [spaceId] } })).body
    const [siteSpace] = (await t.api.call('listSiteSpaces', { params: { organizationId: orgId, siteId: site.id } })).body.items
    return { siteId: site.id as string, siteSpaceId: siteSpace.id as string }
  }

  beforeAll(async () => {
    t = await startTestService()
    const orgs = t.service.store.repo(OrganizationsRepository)
    orgId = orgs.create({ title: 'Customization Org', owner: t.service.ownerId }).id
    member = person('Mia')
    stranger = person('Stan')
    orgs.setMember(orgId, member.id, 'edit')
    spaceId = (await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Guide' } })).body.id
  })
  beforeEach(async () => {
    ;({ siteId, siteSpaceId } = await createSite('basic'))
  })
  afterAll(() => t.close())

  describe('getSiteCustomizationById', () => {
    it('answers the default settings of a site nobody customized, to members too', async () => {
      const res = await member.api.call('getSiteCustomizationById', { params: params() })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ favicon: {}, styling: { theme: 'clean' }, themes: { default: 'light' }, advancedCustomization: { enabled: false } })
      expect(res.body.updatedAt).toBeUndefined()
      expect((await stranger.api.call('getSiteCustomizationById', { params: params() })).status).toBe(404)
      expect((await t.api.call('getSiteCustomizationById', { params: params({ siteId: 'nope' }) })).status).toBe(404)
      expect((await t.api.raw('GET', `/orgs/${orgId}/sites/${siteId}/customization?unmasked=sometimes`)).status).toBe(400)
    })

    it('masks premium settings on a basic site; the deprecated `unmasked` shows what is stored', async () => {
      const body = await fullSettings({
        styling: { ...(await siteSettings()).styling, infoColor: { light: '#123456', dark: '#654321' }, icons: 'duotone' },
        header: { preset: 'default', links: [], logo: { light: 'https://example.com/l.png', dark: 'https://example.com/d.png' } },
        footer: { groups: [], copyright: '(c) Quire' },
      })
      const put = await t.api.call('updateSiteCustomizationById', { params: params(), body })
      expect(put.status).toBe(200)
      expect(put.body.header.logo).toBeUndefined()
      const masked = await siteSettings()
      expect(masked.styling).toMatchObject({ infoColor: { light: '#787878' }, icons: 'regular' })
      expect(masked.footer.copyright).toBeUndefined()
      const raw = await siteSettings({ unmasked: true })
      expect(raw.styling).toMatchObject({ infoColor: { light: '#123456' }, icons: 'duotone' })
      expect(raw.header.logo.light).toBe('https://example.com/l.png')
      expect(raw.footer.copyright).toBe('(c) Quire')

      const ultimate = await createSite('ultimate')
      siteId = ultimate.siteId
      await t.api.call('updateSiteCustomizationById', { params: params(), body })
      expect((await siteSettings()).header.logo.light).toBe('https://example.com/l.png')
      const site = (await t.api.call('getSiteById', { params: params() })).body
      expect(site.features[0].customizations.sort()).toEqual(['custom-icons', 'footer-copyright', 'header-logo', 'semantic-colors'])
    })
  })

  describe('updateSiteCustomizationById', () => {
    it('replaces the settings; the favicon becomes the site icon', async () => {
      const body = await fullSettings({ title: 'My Docs', favicon: { emoji: '\u{1F4DA}' }, themes: { default: 'dark', toggeable: false } })
      const res = await t.api.call('updateSiteCustomizationById', { params: params(), body })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ title: 'My Docs', favicon: { emoji: '\u{1F4DA}' }, themes: { default: 'dark', toggeable: false } })
      expect(res.body.updatedAt).toEqual(expect.any(String))
      expect(await siteSettings()).toEqual(res.body)
      expect((await t.api.call('getSiteById', { params: params() })).body.icon).toEqual({ emoji: '\u{1F4DA}' })
    })

    it('requires `favicon`, holds `title` to 2..128 characters, and writes nothing on a rejected PUT', async () => {
      const before = await siteSettings()
      const base = await fullSettings()
      const bad = [
        without(base, 'favicon'),
        without(base, 'styling'),
        { ...base, title: 'x' },
        { ...base, title: 't'.repeat(129) },
        { ...base, styling: { ...(base.styling as object), primaryColor: { light: 'purple', dark: '#000' } } },
        { ...base, favicon: { icon: 'not-themed' } },
      ]
      for (const body of bad) {
        const res = await t.api.call('updateSiteCustomizationById', { params: params(), body })
        expect(res.status).toBe(400)
        expect(res.body).toEqual(errorBody(400))
      }
      expect(await siteSettings()).toEqual(before)
      expect((await t.api.call('updateSiteCustomizationById', { params: params(), body: { ...base, title: 'ab' } })).body.title).toBe('ab')
      expect((await t.api.call('updateSiteCustomizationById', { params: params(), body: { ...base, title: 't'.repeat(128) } })).body.title).toHaveLength(128)
      expect((await member.api.call('updateSiteCustomizationById', { params: params(), body: base })).status).toBe(403)
      expect((await stranger.api.call('updateSiteCustomizationById', { params: params(), body: base })).status).toBe(404)
    })
  })

  describe('site space customization', () => {
    it('answers the site settings for a site space without an override; 404 for unknown site spaces', async () => {
      await t.api.call('updateSiteCustomizationById', { params: params(), body: await fullSettings({ title: 'Site title' }) })
      const res = await member.api.call('getSiteSpaceCustomizationById', { params: ssParams() })
      expect(res.status).toBe(200)
      expect(res.body).toEqual(await siteSettings())
      expect((await t.api.call('getSiteSpaceCustomizationById', { params: params({ siteSpaceId: 'nope' }) })).status).toBe(404)
      expect((await stranger.api.call('getSiteSpaceCustomizationById', { params: ssParams() })).status).toBe(404)
    })

    it('overrides settings key by key; null resets an override and a null title falls back to the content title', async () => {
      const p = ssParams()
      const res = await t.api.call('overrideSiteSpaceCustomizationById', {
        params: p,
        body: { title: 'Guide (beta)', styling: { theme: 'bold', primaryColor: { light: '#111111', dark: '#222222' } }, favicon: { emoji: '\u{1F680}' } },
      })
      expect(res.status).toBe(200)
      expect(res.body).toMatchObject({ title: 'Guide (beta)', favicon: { emoji: '\u{1F680}' }, styling: { primaryColor: { light: '#111111' }, corners: 'straight' } })
      // `theme` is a premium setting: stored, masked on this basic site.
      expect(res.body.styling.theme).toBe('clean')
      const [siteSpace] = (await t.api.call('listSiteSpaces', { params: params() })).body.items
      expect(siteSpace.title).toBe('Guide (beta)')

      const partly = await t.api.call('overrideSiteSpaceCustomizationById', { params: p, body: { styling: { primaryColor: null }, favicon: null } })
      expect(partly.body.styling.primaryColor).toEqual((await siteSettings()).styling.primaryColor)
      expect(partly.body.favicon).toEqual({})
      expect(partly.body.title).toBe('Guide (beta)')

      const untitled = await t.api.call('overrideSiteSpaceCustomizationById', { params: p, body: { title: null } })
      expect(untitled.body.title).toBeUndefined()
      expect((await t.api.call('listSiteSpaces', { params: params() })).body.items[0].title).toBe('Guide')
      const unmasked = await t.api.call('getSiteSpaceCustomizationById', { params: p, query: { unmasked: true } })
      expect(unmasked.body.styling.theme).toBe('bold')
    })

    it('rejects bad overrides (title 2..128, bad colours) and writes nothing', async () => {
      const p = ssParams()
      await t.api.call('overrideSiteSpaceCustomizationById', { params: p, body: { title: 'Kept' } })
      const before = await spaceSettings()
      const bad = [{ title: 'x' }, { title: 't'.repeat(129) }, { styling: { primaryColor: { light: 'red', dark: '#000' } } }, { themes: { default: 'sepia' } }, { feedback: {} }]
      for (const body of bad) {
        const res = await t.api.call('overrideSiteSpaceCustomizationById', { params: p, body })
        expect(res.status, JSON.stringify(body)).toBe(400)
      }
      expect(await spaceSettings()).toEqual(before)
      expect((await member.api.call('overrideSiteSpaceCustomizationById', { params: p, body: { title: 'Mine' } })).status).toBe(403)
      expect((await t.api.call('overrideSiteSpaceCustomizationById', { params: params({ siteSpaceId: 'nope' }), body: { title: 'Mine' } })).status).toBe(404)
    })

    it('deletes the override (205), and answers 204 when there is none', async () => {
      const p = ssParams()
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: p })).status).toBe(204)
      await t.api.call('overrideSiteSpaceCustomizationById', { params: p, body: { title: 'Override' } })
      expect((await member.api.call('deleteSiteSpaceCustomizationById', { params: p })).status).toBe(403)
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: p })).status).toBe(205)
      expect((await spaceSettings()).title).toBeUndefined()
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: p })).status).toBe(204)
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: params({ siteSpaceId: 'nope' }) })).status).toBe(404)
    })
  })
})

/**
 * Conformance of issue 3's families (organization admin, sites, OpenAPI specs, translations, fonts)
 * against the interface document: one test per row of its Errors and Limits tables that concerns them,
 * the one delete rule every family follows, the section-group operations the published spec lacks, and
 * the demo organization a newcomer browses. Every call goes through `api.call`, which validates the
 * response against the published spec (or the schemas written from the document in spec/extra).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Role } from '../../src/main/service/access/roles'
import { allRoutes } from '../../src/main/service/api/index'
import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import type { ServiceStore } from '../../src/main/service/store/service-store'
import { startTestService, type ApiClient, type ApiResponse, type CallOptions, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  api: ApiClient
}

const errorBody = (code: number) => ({ error: { code, message: expect.any(String) } })

function expectError(res: ApiResponse, status: number, what: string) {
  expect(res.status, `${what} ${JSON.stringify(res.body)}`).toBe(status)
  expect(res.body, what).toEqual(errorBody(status))
}

/** Every row of every table: a rejected request must leave all of them as they were. */
function snapshotDb(store: ServiceStore): Record<string, string[]> {
  const tables = store.db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").all() as Array<{ name: string }>
  const out: Record<string, string[]> = {}
  for (const { name } of tables) out[name] = (store.db.prepare(`SELECT * FROM "${name}"`).all() as unknown[]).map((row) => JSON.stringify(row)).sort()
  return out
}

// Operations under these organization paths belong to issue 3's families.
const ISSUE3_PATHS = /^\/orgs\/\{organizationId\}\/(invites|link-invites|teams|saml|sso|sites|openapi|translations|fonts|agent-instructions)\b/

const PETS_OPENAPI = JSON.stringify({ openapi: '3.0.0', info: { title: 'Pets', version: '1.0.0' }, paths: {} })
const FONT_FACES = [
  { weight: 400, storageKey: 'fonts/serif/regular.woff2' },
  { weight: 700, storageKey: 'fonts/serif/bold.woff2' },
]

type Case = { what: string; op: string; options: CallOptions; status: number }

describe('issue 3 conformance', () => {
  let t: TestService
  let member: Person // organization role edit
  let stranger: Person // not in the organization
  let orgId: string
  let otherOrgId: string
  let spaceIds: string[]
  let siteId: string
  let sectionIds: string[]
  let groupId: string
  let siteSpaceIds: string[]
  let teamId: string
  let collectionId: string

  const store = () => t.service.store
  const person = (name: string): Person => {
    const user = t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    return { ...user, api: t.api.as(user.token) }
  }
  const arrangeOrg = (title: string, members: Array<[Person, Role | null]> = []) => {
    const orgs = store().repo(OrganizationsRepository)
    const id = orgs.create({ title, owner: t.service.ownerId }).id
    for (const [who, role] of members) orgs.setMember(id, who.id, role)
    return id
  }
  const org = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const site = (extra: Record<string, string> = {}) => ({ organizationId: orgId, siteId, ...extra })
  const ok = async (op: string, options: CallOptions, status = 200) => {
    const res = await t.api.call(op, options)
    expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(status)
    return res.body
  }
  /** Each case answers its status with the error body, and the database is the same afterwards. */
  const expectRejectedUnchanged = async (cases: Case[], api: ApiClient = t.api) => {
    const before = snapshotDb(store())
    for (const c of cases) expectError(await api.call(c.op, c.options), c.status, c.what)
    expect(snapshotDb(store())).toEqual(before)
  }

  beforeAll(async () => {
    t = await startTestService()
    member = person('Mia')
    stranger = person('Stan')
    orgId = arrangeOrg('Conformance org', [[member, 'edit']])
    otherOrgId = arrangeOrg('Other org')
    spaceIds = []
    for (const title of ['Guide', 'API', 'Changelog']) spaceIds.push((await ok('createSpace', { params: org(), body: { title } }, 201)).id)
    siteId = (await ok('createSite', { params: org(), body: { title: 'Docs' } }, 201)).id
    sectionIds = []
    for (const spaceId of spaceIds.slice(0, 2)) sectionIds.push((await ok('addSectionToSite', { params: site(), body: { spaceId } }, 201)).id)
    groupId = (await ok('addSectionGroupToSite', { params: site(), body: { title: 'Reference' } }, 201)).id
    siteSpaceIds = (await ok('listSiteSpaces', { params: site() })).items.map((s: { id: string }) => s.id)
    teamId = (await ok('createOrganizationTeam', { params: org(), body: { title: 'Writers' } }, 201)).id
    collectionId = (await ok('createCollection', { params: org(), body: { title: 'Shelf' } }, 201)).id
  })
  afterAll(() => t.close())

  describe('Limits: `limit` max 1000 on every paged list', () => {
    it('takes limit 1000 and refuses 1001, -1 and "abc" with 400 on each paged list of these families', async () => {
      await ok('createOrganizationSAMLProvider', { params: org(), body: { label: 'Paged' } }, 201)
      await ok('createOrganizationInvite', { params: org(), body: { role: 'read' } }, 201)
      await ok('createSiteShareLink', { params: site(), body: { name: 'Paged' } }, 201)
      await ok('createOpenAPISpec', { params: org(), body: { slug: 'paged', source: { text: PETS_OPENAPI } } }, 201)
      await ok('createTranslation', { params: org(), body: { source: { space: spaceIds[0], language: 'en' }, language: 'fr' } }, 201)
      const paged: Array<[string, Record<string, string>]> = [
        ['listTeamsInOrganizationById', org()],
        ['listTeamMembersInOrganizationById', org({ teamId })],
        ['listOrganizationInviteLinks', org()],
        ['listSAMLProvidersInOrganizationById', org()],
        ['listSites', org()],
        ['listSiteSections', site()],
        ['listSiteSectionGroups', site()],
        ['listSiteSpaces', site()],
        ['listSiteShareLinks', site()],
        ['listOpenAPISpecs', org()],
        ['listOpenAPISpecVersions', org({ specSlug: 'paged' })],
        ['listTranslations', org()],
      ]
      // Every paged operation of these families is in the list above.
      const spec = specRegistry()
      const declared = allRoutes
        .map((r) => spec.operation(r.operationId))
        .filter((op) => ISSUE3_PATHS.test(op.path) && op.parameters.some((p) => p.in === 'query' && p.name === 'limit'))
        .map((op) => op.operationId)
      expect(declared.sort()).toEqual(paged.map(([op]) => op).sort())

      const before = snapshotDb(store())
      for (const [op, params] of paged) {
        const res = await t.api.call(op, { params, query: { limit: 1000 } })
        expect(res.status, op).toBe(200)
        expect(res.body.next, op).toBeUndefined()
        for (const limit of ['1001', '-1', 'abc']) expectError(await t.api.call(op, { params, query: { limit } }), 400, `${op} limit=${limit}`)
      }
      expect(snapshotDb(store())).toEqual(before)
    })
  })

  describe('Limits: field lengths', () => {
    it('collection title max 50 and description max 100', async () => {
      expect((await ok('createCollection', { params: org(), body: { title: 'c'.repeat(50) } }, 201)).title).toHaveLength(50)
      expect((await ok('updateCollectionById', { params: { collectionId }, body: { description: 'd'.repeat(100) } })).description).toHaveLength(100)
      await expectRejectedUnchanged([
        { what: 'title 51', op: 'createCollection', options: { params: org(), body: { title: 'c'.repeat(51) } }, status: 400 },
        { what: 'title 51', op: 'updateCollectionById', options: { params: { collectionId }, body: { title: 'c'.repeat(51) } }, status: 400 },
        { what: 'description 101', op: 'updateCollectionById', options: { params: { collectionId }, body: { description: 'd'.repeat(101) } }, status: 400 },
      ])
    })

    it('organization title 2..255, hostname 3..32 (the subdomain rule) and logo URL max 2048', async () => {
      const patch = (body: Record<string, unknown>) => ({ params: org(), body })
      const logo = `https://cdn.example.com/${'l'.repeat(2048 - 24)}`
      expect(logo).toHaveLength(2048)
      expect((await ok('updateOrganizationById', patch({ title: 'ab' }))).title).toBe('ab')
      expect((await ok('updateOrganizationById', patch({ title: 't'.repeat(255) }))).title).toHaveLength(255)
      expect((await ok('updateOrganizationById', patch({ hostname: 'abc' }))).hostname).toBe('abc')
      expect((await ok('updateOrganizationById', patch({ hostname: `a${'-'.repeat(30)}z` }))).hostname).toHaveLength(32)
      expect((await ok('updateOrganizationById', patch({ logo }))).urls.logo).toBe(logo)
      await expectRejectedUnchanged(
        [
          { title: 'a' },
          { title: 't'.repeat(256) },
          { hostname: 'ab' },
          { hostname: 'h'.repeat(33) },
          // The document's subdomain pattern: ^[a-z0-9][a-z0-9-]{1,30}[a-z0-9]$
          { hostname: '-abc' },
          { hostname: 'abc-' },
          { hostname: 'ab.c' },
          { logo: `${logo}x` },
        ].map((body) => ({ what: JSON.stringify(body).slice(0, 60), op: 'updateOrganizationById', options: patch(body), status: 400 })),
      )
    })

    it('team title 1..64', async () => {
      expect((await ok('createOrganizationTeam', { params: org(), body: { title: 'x' } }, 201)).title).toBe('x')
      expect((await ok('createOrganizationTeam', { params: org(), body: { title: 't'.repeat(64) } }, 201)).title).toHaveLength(64)
      expect((await ok('updateTeamInOrganizationById', { params: org({ teamId }), body: { title: 'w'.repeat(64) } })).title).toHaveLength(64)
      await expectRejectedUnchanged([
        { what: 'create ""', op: 'createOrganizationTeam', options: { params: org(), body: { title: '' } }, status: 400 },
        { what: 'create 65', op: 'createOrganizationTeam', options: { params: org(), body: { title: 't'.repeat(65) } }, status: 400 },
        { what: 'patch 65', op: 'updateTeamInOrganizationById', options: { params: org({ teamId }), body: { title: 't'.repeat(65) } }, status: 400 },
      ])
    })

    it('section group title 1..100 and icon names max 50 on sections and groups', async () => {
      const group = await ok('addSectionGroupToSite', { params: site(), body: { title: 'g'.repeat(100), icon: 'i'.repeat(50) } }, 201)
      expect(group).toMatchObject({ title: 'g'.repeat(100), icon: 'i'.repeat(50) })
      expect((await ok('addSectionGroupToSite', { params: site(), body: { title: 'g' } }, 201)).title).toBe('g')
      const section = await ok('addSectionToSite', { params: site(), body: { spaceId: spaceIds[2], icon: 'i'.repeat(50) } }, 201)
      expect(section.icon).toHaveLength(50)
      const groupParams = site({ siteSectionGroupId: group.id })
      await expectRejectedUnchanged([
        { what: 'group title ""', op: 'addSectionGroupToSite', options: { params: site(), body: { title: '' } }, status: 400 },
        { what: 'group title 101', op: 'addSectionGroupToSite', options: { params: site(), body: { title: 'g'.repeat(101) } }, status: 400 },
        { what: 'group patch title 101', op: 'updateSiteSectionGroupById', options: { params: groupParams, body: { title: 'g'.repeat(101) } }, status: 400 },
        { what: 'group icon 51', op: 'addSectionGroupToSite', options: { params: site(), body: { title: 'g', icon: 'i'.repeat(51) } }, status: 400 },
        { what: 'group patch icon 51', op: 'updateSiteSectionGroupById', options: { params: groupParams, body: { icon: 'i'.repeat(51) } }, status: 400 },
        { what: 'section icon 51', op: 'addSectionToSite', options: { params: site(), body: { spaceId: spaceIds[2], icon: 'i'.repeat(51) } }, status: 400 },
        {
          what: 'section patch icon 51',
          op: 'updateSiteSectionById',
          options: { params: site({ siteSectionId: section.id }), body: { icon: 'i'.repeat(51) } },
          status: 400,
        },
      ])
    })

    it('site customization title 2..128, on the site and as a site-space override', async () => {
      const { updatedAt: _updatedAt, ...settings } = await ok('getSiteCustomizationById', { params: site(), query: { unmasked: true } })
      expect((await ok('updateSiteCustomizationById', { params: site(), body: { ...settings, title: 'ab' } })).title).toBe('ab')
      expect((await ok('updateSiteCustomizationById', { params: site(), body: { ...settings, title: 't'.repeat(128) } })).title).toHaveLength(128)
      const override = site({ siteSpaceId: siteSpaceIds[0] })
      expect((await ok('overrideSiteSpaceCustomizationById', { params: override, body: { title: 'ab' } })).title).toBe('ab')
      expect((await ok('overrideSiteSpaceCustomizationById', { params: override, body: { title: 'o'.repeat(128) } })).title).toHaveLength(128)
      await expectRejectedUnchanged([
        { what: 'site title 1', op: 'updateSiteCustomizationById', options: { params: site(), body: { ...settings, title: 'a' } }, status: 400 },
        { what: 'site title 129', op: 'updateSiteCustomizationById', options: { params: site(), body: { ...settings, title: 't'.repeat(129) } }, status: 400 },
        { what: 'override title 1', op: 'overrideSiteSpaceCustomizationById', options: { params: override, body: { title: 'a' } }, status: 400 },
        { what: 'override title 129', op: 'overrideSiteSpaceCustomizationById', options: { params: override, body: { title: 'o'.repeat(129) } }, status: 400 },
      ])
    })

    it('SAML label 1..30, entityID max 1024, certificate max 10000, ssoURL max 2048', async () => {
      const ssoURL = `https://idp.example.com/${'s'.repeat(2048 - 24)}`
      expect(ssoURL).toHaveLength(2048)
      const full = { label: 'l'.repeat(30), entityID: 'e'.repeat(1024), certificate: 'c'.repeat(10000), ssoURL }
      const created = await ok('createOrganizationSAMLProvider', { params: org(), body: full }, 201)
      expect(created).toMatchObject({ label: full.label, status: 'active' })
      expect((await ok('createOrganizationSAMLProvider', { params: org(), body: { label: 'l' } }, 201)).status).toBe('pending')
      const patchParams = org({ samlProviderId: created.id })
      await expectRejectedUnchanged([
        ...[{ label: '' }, { label: 'l'.repeat(31) }, { ...full, entityID: 'e'.repeat(1025) }, { ...full, certificate: 'c'.repeat(10001) }, { ...full, ssoURL: `${ssoURL}s` }].map(
          (body): Case => ({ what: `create ${Object.keys(body).join(',')} ${JSON.stringify(body).length}`, op: 'createOrganizationSAMLProvider', options: { params: org(), body }, status: 400 }),
        ),
        { what: 'patch label 31', op: 'updateOrganizationSAMLProvider', options: { params: patchParams, body: { label: 'l'.repeat(31) } }, status: 400 },
      ])
    })
  })

  describe('Errors', () => {
    it('answers 400 to malformed or invalid bodies on translations, OpenAPI specs, fonts and the adaptive schema, writing nothing', async () => {
      const translation = await ok('createTranslation', { params: org(), body: { source: { space: spaceIds[1], language: 'en' }, language: 'de' } }, 201)
      await ok('createOpenAPISpec', { params: org(), body: { slug: 'errors', source: { text: PETS_OPENAPI } } }, 201)
      const font = await ok('createCustomFont', { params: org(), body: { fontFamily: 'Serif', fontFaces: FONT_FACES } }, 201)
      await expectRejectedUnchanged([
        { what: 'translation create: no language', op: 'createTranslation', options: { params: org(), body: { source: { space: spaceIds[1], language: 'en' } } }, status: 400 },
        { what: 'translation create: unknown space', op: 'createTranslation', options: { params: org(), body: { source: { space: 'nope', language: 'en' }, language: 'it' } }, status: 400 },
        { what: 'translation update: not a document', op: 'updateTranslation', options: { params: org({ translationId: translation.id }), body: { instructions: 'x' } }, status: 400 },
        { what: 'openapi create: bad slug', op: 'createOpenAPISpec', options: { params: org(), body: { slug: 'not a slug', source: { text: PETS_OPENAPI } } }, status: 400 },
        { what: 'openapi create: no source', op: 'createOpenAPISpec', options: { params: org(), body: { slug: 'nosource' } }, status: 400 },
        { what: 'openapi replace: url not a URI', op: 'createOrUpdateOpenAPISpecBySlug', options: { params: org({ specSlug: 'errors' }), body: { source: { url: 'not a url' } } }, status: 400 },
        { what: 'openapi visibility', op: 'updateOpenAPISpecBySlug', options: { params: org({ specSlug: 'errors' }), body: { visibility: 'secret' } }, status: 400 },
        { what: 'font create: weights missing', op: 'createCustomFont', options: { params: org(), body: { fontFamily: 'Thin', fontFaces: [FONT_FACES[0]] } }, status: 400 },
        { what: 'font update: weight removed', op: 'updateCustomFont', options: { params: org({ fontId: font.id }), body: { fontFaces: [{ weight: 700, storageKey: null }] } }, status: 400 },
        { what: 'adaptive schema: not an object schema', op: 'updateSiteAdaptiveSchema', options: { params: site(), body: { jsonSchema: { type: 'array' } } }, status: 400 },
      ])
    })

    it('answers 404 for a missing site, OpenAPI spec, translation, font or organization, and a missing site section or site space to move', async () => {
      await expectRejectedUnchanged([
        { what: 'site', op: 'getSiteById', options: { params: site({ siteId: 'nope' }) }, status: 404 },
        { what: 'openapi spec', op: 'getOpenAPISpecBySlug', options: { params: org({ specSlug: 'nope' }) }, status: 404 },
        { what: 'translation', op: 'getTranslation', options: { params: org({ translationId: 'nope' }) }, status: 404 },
        { what: 'translation run', op: 'runTranslation', options: { params: org({ translationId: 'nope' }) }, status: 404 },
        { what: 'font', op: 'getCustomFont', options: { params: org({ fontId: 'nope' }) }, status: 404 },
        { what: 'organization', op: 'listCustomFonts', options: { params: { organizationId: 'nope' } }, status: 404 },
        { what: 'organization', op: 'listSites', options: { params: { organizationId: 'nope' } }, status: 404 },
        { what: 'section move', op: 'moveSiteSection', options: { params: site({ siteSectionId: 'nope' }), body: {} }, status: 404 },
        { what: 'site space move', op: 'moveSiteSpace', options: { params: site({ siteSpaceId: 'nope' }), body: {} }, status: 404 },
      ])
    })

    it('names an invalid position on moves of site sections, site spaces and spaces (400)', async () => {
      const cases: Case[] = [
        {
          what: 'section before itself',
          op: 'moveSiteSection',
          options: { params: site({ siteSectionId: sectionIds[0] }), body: { position: { before: { type: 'site-section', siteSection: sectionIds[0] } } } },
          status: 400,
        },
        {
          what: 'section after an unknown one',
          op: 'moveSiteSection',
          options: { params: site({ siteSectionId: sectionIds[0] }), body: { position: { after: { type: 'site-section', siteSection: 'nope' } } } },
          status: 400,
        },
        {
          what: 'site space before an unknown one',
          op: 'moveSiteSpace',
          options: { params: site({ siteSpaceId: siteSpaceIds[0] }), body: { position: { before: { type: 'site-space', siteSpace: 'nope' } } } },
          status: 400,
        },
        {
          what: 'space after an unknown one',
          op: 'moveSpace',
          options: { params: { spaceId: spaceIds[0] }, body: { position: { after: { type: 'space', space: 'nope' } } } },
          status: 400,
        },
      ]
      const before = snapshotDb(store())
      for (const c of cases) {
        const res = await t.api.call(c.op, c.options)
        expectError(res, 400, c.what)
        expect(res.body.error.message, c.what).toMatch(/invalid position/i)
      }
      expect(snapshotDb(store())).toEqual(before)
    })

    it('names a move or transfer that changes nothing "no update" (409), and a space that cannot be moved (412)', async () => {
      const nested = await ok('createSpace', { params: org(), body: { title: 'Filed', parent: collectionId } }, 201)
      const before = snapshotDb(store())
      const noMove = await t.api.call('moveSpace', { params: { spaceId: nested.id }, body: { parent: collectionId } })
      expectError(noMove, 409, 'move in place')
      expect(noMove.body.error.message).toMatch(/no update/i)
      const noTransfer = await t.api.call('transferSpace', { params: { spaceId: spaceIds[0] }, body: { organization: orgId } })
      expectError(noTransfer, 409, 'transfer to its own organization')
      expect(noTransfer.body.error.message).toMatch(/no update/i)
      const stuck = await t.api.call('transferSpace', { params: { spaceId: nested.id }, body: { organization: otherOrgId } })
      expectError(stuck, 412, 'transfer of a filed space')
      expect(stuck.body.error.message).toMatch(/cannot be moved/i)
      expect(snapshotDb(store())).toEqual(before)
    })

    it('will not move a space a site publishes to another organization (412), alone or in its collection', async () => {
      const shelf = await ok('createCollection', { params: org(), body: { title: 'Published shelf' } }, 201)
      const filed = await ok('createSpace', { params: org(), body: { title: 'Filed and published', parent: shelf.id } }, 201)
      const loose = await ok('createSpace', { params: org(), body: { title: 'Published' } }, 201)
      const showcase = await ok('createSite', { params: org(), body: { title: 'Showcase', spaces: [filed.id, loose.id] } }, 201)
      const siteSpaces = (await ok('listSiteSpaces', { params: org({ siteId: showcase.id }) })).items as Array<{ id: string; space: { id: string } }>
      await expectRejectedUnchanged([
        { what: 'space on a site', op: 'transferSpace', options: { params: { spaceId: loose.id }, body: { organization: otherOrgId } }, status: 412 },
        { what: 'collection with a space on a site', op: 'transferCollection', options: { params: { collectionId: shelf.id }, body: { organization: otherOrgId } }, status: 412 },
      ])
      for (const siteSpace of siteSpaces) expect((await t.api.call('deleteSiteSpaceById', { params: org({ siteId: showcase.id, siteSpaceId: siteSpace.id }) })).status).toBe(205)
      expect((await ok('transferSpace', { params: { spaceId: loose.id }, body: { organization: otherOrgId } })).organization).toBe(otherOrgId)
      expect((await ok('transferCollection', { params: { collectionId: shelf.id }, body: { organization: otherOrgId } })).organization).toBe(otherOrgId)
    })

    it('answers `Unexpected Error` when the adaptive schema cannot be read or saved', async () => {
      await ok('updateSiteAdaptiveSchema', { params: site(), body: { jsonSchema: { type: 'object', properties: {}, additionalProperties: false } } })
      const db = store().db
      // Fault injection: an unreadable stored schema, then a database that refuses the write.
      db.prepare('UPDATE sites SET adaptive_schema = ? WHERE id = ?').run('{corrupt', siteId)
      try {
        const read = await t.api.call('getSiteAdaptiveSchema', { params: site() })
        expectError(read, 500, 'read')
        expect(read.body.error.message).toMatch(/^Unexpected Error/)
        db.exec("CREATE TRIGGER refuse_schema BEFORE UPDATE OF adaptive_schema ON sites BEGIN SELECT RAISE(ABORT, 'disk full'); END")
        const write = await t.api.call('updateSiteAdaptiveSchema', { params: site(), body: { jsonSchema: { type: 'object', properties: {}, additionalProperties: false } } })
        expectError(write, 500, 'write')
        expect(write.body.error.message).toMatch(/^Unexpected Error/)
      } finally {
        db.exec('DROP TRIGGER IF EXISTS refuse_schema')
        db.prepare('UPDATE sites SET adaptive_schema = NULL WHERE id = ?').run(siteId)
      }
      expect((await t.api.call('getSiteAdaptiveSchema', { params: site() })).status).toBe(404)
    })

    it('answers 204 to deleting a comment, a space user or a site-space customization that is already absent', async () => {
      const comment = await ok('postCommentInSpace', { params: { spaceId: spaceIds[0] }, body: { body: { markdown: 'Gone soon' } } })
      expect((await t.api.call('deleteCommentInSpace', { params: { spaceId: spaceIds[0], commentId: comment.id } })).status).toBe(205)
      expect((await t.api.call('deleteCommentInSpace', { params: { spaceId: spaceIds[0], commentId: comment.id } })).status).toBe(204)
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: spaceIds[0], userId: stranger.id } })).status).toBe(204)
      const ss = site({ siteSpaceId: siteSpaceIds[1] })
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: ss })).status).toBe(204)
      await ok('overrideSiteSpaceCustomizationById', { params: ss, body: { title: 'Override' } })
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: ss })).status).toBe(205)
      expect((await t.api.call('deleteSiteSpaceCustomizationById', { params: ss })).status).toBe(204)
    })
  })

  describe('the delete rule: 205 deleted, 204 "did not exist", 404 only for a missing parent (fonts: 404, as the document says)', () => {
    it('follows it for sites, site sections, section groups, site spaces, OpenAPI specs, translations and spaces', async () => {
      const doomedSite = await ok('createSite', { params: org(), body: { title: 'Doomed', spaces: [spaceIds[0]] } }, 201)
      const doomed = (extra: Record<string, string> = {}) => org({ siteId: doomedSite.id, ...extra })
      const section = await ok('addSectionToSite', { params: doomed(), body: { spaceId: spaceIds[1] } }, 201)
      const group = await ok('addSectionGroupToSite', { params: doomed(), body: { title: 'Doomed group' } }, 201)
      const siteSpace = await ok('addSpaceToSite', { params: doomed(), body: { spaceId: spaceIds[2], sectionId: section.id } }, 201)
      await ok('createOpenAPISpec', { params: org(), body: { slug: 'doomed', source: { text: PETS_OPENAPI } } }, 201)
      const translation = await ok('createTranslation', { params: org(), body: { source: { space: spaceIds[2], language: 'en' }, language: 'es' } }, 201)
      const space = await ok('createSpace', { params: org(), body: { title: 'Doomed space' } }, 201)

      const deletes: Array<[string, Record<string, string>]> = [
        ['deleteSiteSpaceById', doomed({ siteSpaceId: siteSpace.id })],
        ['deleteSiteSectionGroupById', doomed({ siteSectionGroupId: group.id })],
        ['deleteSiteSectionById', doomed({ siteSectionId: section.id })],
        ['deleteSiteById', doomed()],
        ['deleteOpenAPISpecBySlug', org({ specSlug: 'doomed' })],
        ['deleteTranslation', org({ translationId: translation.id })],
        ['deleteSpaceById', { spaceId: space.id }],
      ]
      for (const [op, params] of deletes) {
        const gone = await t.api.call(op, { params })
        expect(gone.status, op).toBe(205)
        expect(gone.body, op).toBeUndefined()
        const again = await t.api.call(op, { params })
        expect(again.status, `${op} again`).toBe(204)
        expect(again.body, op).toBeUndefined()
      }
      // Below a missing parent there is nothing to delete from: that is a 404.
      expectError(await t.api.call('deleteSiteSectionById', { params: org({ siteId: 'nope', siteSectionId: 'x' }) }), 404, 'section of a missing site')
      expectError(await t.api.call('deleteOpenAPISpecBySlug', { params: { organizationId: 'nope', specSlug: 'x' } }), 404, 'spec of a missing organization')
    })

    it('follows it for teams, SAML providers, link invites, share links and collections too', async () => {
      const team = await ok('createOrganizationTeam', { params: org(), body: { title: 'Short-lived' } }, 201)
      const provider = await ok('createOrganizationSAMLProvider', { params: org(), body: { label: 'Short-lived' } }, 201)
      const invite = await ok('createOrganizationInvite', { params: org(), body: { role: 'comment' } }, 201)
      const link = await ok('createSiteShareLink', { params: site(), body: { name: 'Short-lived' } }, 201)
      const collection = await ok('createCollection', { params: org(), body: { title: 'Short-lived' } }, 201)
      const deletes: Array<[string, Record<string, string>]> = [
        ['removeTeamFromOrganizationById', org({ teamId: team.id })],
        ['deleteOrganizationSAMLProvider', org({ samlProviderId: provider.id })],
        ['deleteOrganizationInviteById', org({ inviteId: invite.id })],
        ['deleteSiteShareLinkById', site({ shareLinkId: link.id })],
        ['deleteCollectionById', { collectionId: collection.id }],
      ]
      for (const [op, params] of deletes) {
        expect((await t.api.call(op, { params })).status, op).toBe(205)
        expect((await t.api.call(op, { params })).status, `${op} again`).toBe(204)
      }
    })

    it('answers 404 for a font that does not exist, as the document\'s font table and Errors table say', async () => {
      const font = await ok('createCustomFont', { params: org(), body: { fontFamily: 'Passing', fontFaces: FONT_FACES } }, 201)
      expect((await t.api.call('deleteCustomFont', { params: org({ fontId: font.id }) })).status).toBe(205)
      expectError(await t.api.call('deleteCustomFont', { params: org({ fontId: font.id }) }), 404, 'font again')
    })

    it('keeps the existence of objects a caller cannot see to itself: 204, and nothing is deleted', async () => {
      const before = snapshotDb(store())
      expect((await stranger.api.call('deleteSpaceById', { params: { spaceId: spaceIds[0] } })).status).toBe(204)
      expect((await stranger.api.call('deleteCollectionById', { params: { collectionId } })).status).toBe(204)
      // An organization the caller is not in is itself invisible: its sites' parent is missing.
      expectError(await stranger.api.call('deleteSiteById', { params: site() }), 404, 'site of a hidden organization')
      expectError(await member.api.call('deleteSiteById', { params: site() }), 403, 'site, by a member')
      expect(snapshotDb(store())).toEqual(before)
    })
  })

  describe('section groups: the two operations the published spec lacks', () => {
    it('adds (201) and removes (200) a section, answered with the group as the document describes it', async () => {
      const params = site({ siteSectionGroupId: groupId })
      const added = await ok('addSiteSectionToSectionGroup', { params, body: { sectionId: sectionIds[1] } }, 201)
      expect(added).toMatchObject({ object: 'site-section-group', id: groupId, title: 'Reference' })
      expect(added.children.map((c: { id: string }) => c.id)).toEqual([sectionIds[1]])
      const removed = await ok('removeSiteSectionFromSectionGroup', { params: { ...params, siteSectionId: sectionIds[1] } })
      expect(removed.children).toEqual([])
      await expectRejectedUnchanged([
        { what: 'no sectionId', op: 'addSiteSectionToSectionGroup', options: { params, body: {} }, status: 400 },
        { what: 'unknown section', op: 'addSiteSectionToSectionGroup', options: { params, body: { sectionId: 'nope' } }, status: 404 },
        { what: 'unknown group', op: 'addSiteSectionToSectionGroup', options: { params: site({ siteSectionGroupId: 'nope' }), body: { sectionId: sectionIds[1] } }, status: 404 },
        { what: 'section not in the group', op: 'removeSiteSectionFromSectionGroup', options: { params: { ...params, siteSectionId: sectionIds[1] } }, status: 404 },
      ])
      await expectRejectedUnchanged([{ what: 'member', op: 'addSiteSectionToSectionGroup', options: { params, body: { sectionId: sectionIds[1] } }, status: 403 }], member.api)
    })

    it('holds responses to schemas written from the document (title 1..100, children, icon max 50)', () => {
      const spec = specRegistry()
      const group = { object: 'site-section-group', id: 'g1', title: 'Reference', draft: false, sections: [], children: [] }
      for (const op of ['addSiteSectionToSectionGroup', 'removeSiteSectionFromSectionGroup']) {
        const operation = spec.operation(op)
        const status = op.startsWith('add') ? 201 : 200
        expect(spec.validateResponse(operation, status, group), op).toBeNull()
        expect(spec.validateResponse(operation, status, { ...group, title: 't'.repeat(101) }), op).not.toBeNull()
        expect(spec.validateResponse(operation, status, { ...group, icon: 'i'.repeat(51) }), op).not.toBeNull()
        expect(spec.validateResponse(operation, status, { ...group, children: [{ title: 'no id' }] }), op).not.toBeNull()
        expect(spec.validateResponse(operation, status, { ...group, object: 'site-section' }), op).not.toBeNull()
      }
    })
  })

  describe('organization patch: `defaultContent`', () => {
    it('must name a site of the organization; deleting that site clears it', async () => {
      const home = await ok('createSite', { params: org(), body: { title: 'Home' } }, 201)
      const foreign = (await t.api.call('createSite', { params: { organizationId: otherOrgId }, body: { title: 'Foreign' } })).body
      await expectRejectedUnchanged([
        { what: 'unknown site', op: 'updateOrganizationById', options: { params: org(), body: { defaultContent: { type: 'site', site: 'nope' } } }, status: 400 },
        { what: 'site of another org', op: 'updateOrganizationById', options: { params: org(), body: { defaultContent: { type: 'site', site: foreign.id } } }, status: 400 },
      ])
      const set = await ok('updateOrganizationById', { params: org(), body: { defaultContent: { type: 'site', site: home.id } } })
      expect(set.defaultContent).toEqual({ type: 'site', site: home.id })
      expect((await t.api.call('deleteSiteById', { params: org({ siteId: home.id }) })).status).toBe(205)
      expect((await ok('getOrganizationById', { params: org() })).defaultContent).toBeUndefined()
    })
  })
})

describe('issue 3 conformance: the demo organization', () => {
  let t: TestService
  let orgId: string
  beforeAll(async () => {
    t = await startTestService({ demo: true })
    const orgs = await t.api.call('listOrganizationsForAuthenticatedUser')
    orgId = orgs.body.items.find((o: { title: string }) => o.title === 'Quire Demo').id
  })
  afterAll(() => t.close())

  it('gives a newcomer a published site with two sections, a group and customization, a team, an active SAML provider, a processed OpenAPI spec and a font', async () => {
    const params = { organizationId: orgId }
    const site = (await t.api.call('listSites', { params, query: { published: true } })).body.items[0]
    expect(site).toMatchObject({ published: true, visibility: 'public' })
    const published = await t.api.call('getPublishedContentSite', { params: { ...params, siteId: site.id } })
    const structure = published.body.structure.structure as Array<{ object: string; children?: Array<{ object: string }> }>
    const sections = structure.flatMap((node) => (node.object === 'site-section' ? [node] : (node.children ?? []).filter((c) => c.object === 'site-section')))
    expect(sections.length).toBeGreaterThanOrEqual(2)
    expect(structure.some((node) => node.object === 'site-section-group')).toBe(true)
    expect(published.body.customizations.site.favicon).toBeDefined()

    const teams = (await t.api.call('listTeamsInOrganizationById', { params })).body.items
    expect(teams[0].members).toBeGreaterThanOrEqual(1)
    const providers = (await t.api.call('listSAMLProvidersInOrganizationById', { params })).body.items
    expect(providers.some((p: { status: string }) => p.status === 'active')).toBe(true)
    const specs = (await t.api.call('listOpenAPISpecs', { params })).body.items
    expect(specs[0]).toMatchObject({ processingState: 'complete', lastVersion: expect.any(String) })
    const fonts = (await t.api.call('listCustomFonts', { params })).body.items
    expect(fonts[0].fontFaces.map((f: { weight: number }) => f.weight)).toEqual(expect.arrayContaining([400, 700]))
  })
})

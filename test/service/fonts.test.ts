import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CustomFontsRepository } from '../../src/main/service/store/fonts'
import { arrangeOrg, person, type Person } from '../support/fixtures'
import { startTestService, type TestService } from '../support/service'

const faces = [
  { weight: 400, storageKey: 'fonts/inter/regular.woff2' },
  { weight: 700, storageKey: 'fonts/inter/bold.woff' },
]

describe('custom fonts', () => {
  let t: TestService
  let orgId: string
  let member: Person
  let stranger: Person

  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const stored = () => t.service.store.repo(CustomFontsRepository).listByOrg(orgId)
  const createFont = async (fontFamily = 'Inter') => {
    const res = await t.api.call('createCustomFont', { params: params(), body: { fontFamily, fontFaces: faces } })
    expect(res.status).toBe(201)
    return res.body
  }

  beforeAll(async () => {
    t = await startTestService()
    member = person(t, 'Mia')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [[member, 'edit']], 'Fonts Org')
  })
  afterAll(() => t.close())

  it('creates a font with PUT and describes its faces with sources from the storage keys', async () => {
    const font = await createFont()
    expect(font).toEqual({
      id: expect.any(String),
      custom: true,
      fontFamily: 'Inter',
      fontFaces: [
        { weight: 400, sources: [{ url: `${t.service.origin}/storage/fonts/inter/regular.woff2`, format: 'woff2' }] },
        { weight: 700, sources: [{ url: `${t.service.origin}/storage/fonts/inter/bold.woff`, format: 'woff' }] },
      ],
      permissions: { edit: true },
    })
    const got = await t.api.call('getCustomFont', { params: params({ fontId: font.id }) })
    expect(got.status).toBe(200)
    expect(got.body).toEqual(font)
  })

  it('lists fonts in an envelope; members read them without edit rights', async () => {
    await createFont('Lora')
    const res = await t.api.call('listCustomFonts', { params: params() })
    expect(res.status).toBe(200)
    expect(res.body.count).toBe(stored().length)
    expect(res.body.items.map((f: any) => f.fontFamily)).toContain('Lora')
    const asMember = await member.api.call('listCustomFonts', { params: params() })
    expect(asMember.body.items.every((f: any) => f.permissions.edit === false)).toBe(true)
  })

  it('answers 400 when the required weights 400 and 700 are missing, or for malformed faces, and writes nothing', async () => {
    const before = stored().length
    const bad: Array<Record<string, unknown>> = [
      { fontFamily: 'Thin', fontFaces: [{ weight: 400, storageKey: 'a.woff2' }] },
      { fontFamily: 'Thin', fontFaces: [{ weight: 300, storageKey: 'a.woff2' }, { weight: 700, storageKey: 'b.woff2' }] },
      { fontFamily: 'Dup', fontFaces: [...faces, { weight: 400, storageKey: 'c.woff2' }] },
      { fontFamily: 'Empty', fontFaces: [] },
      { fontFamily: '', fontFaces: faces },
      { fontFamily: '  ', fontFaces: faces },
      { fontFamily: 'x'.repeat(51), fontFaces: faces },
      { fontFamily: 'Heavy', fontFaces: [...faces, { weight: 1001, storageKey: 'd.woff2' }] },
      { fontFamily: 'Frac', fontFaces: [{ weight: 400.5, storageKey: 'a.woff2' }, faces[1]] },
      { fontFamily: 'Key', fontFaces: [{ weight: 400, storageKey: '' }, faces[1]] },
      { fontFamily: 'Key', fontFaces: [{ weight: 400, storageKey: 'k'.repeat(513) }, faces[1]] },
      { fontFaces: faces },
      { fontFamily: 'NoFaces' },
      { fontFamily: 'Str', fontFaces: 'regular' },
    ]
    for (const body of bad) {
      const res = await t.api.call('createCustomFont', { params: params(), body })
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body.error.code).toBe(400)
    }
    const missing = await t.api.call('createCustomFont', { params: params(), body: bad[0] })
    expect(missing.body.error.message).toContain('700')
    expect(stored().length).toBe(before)
  })

  it('updates with POST: faces merge by weight, null removes one, the required weights stay required', async () => {
    const font = await createFont('Merge')
    const res = await t.api.call('updateCustomFont', {
      params: params({ fontId: font.id }),
      body: { fontFamily: 'Merged', fontFaces: [{ weight: 300, storageKey: 'fonts/light.woff2' }, { weight: 700, storageKey: 'fonts/bold2' }] },
    })
    expect(res.status).toBe(201)
    expect(res.body.fontFamily).toBe('Merged')
    expect(res.body.fontFaces.map((f: any) => f.weight)).toEqual([300, 400, 700])
    // A key without a known extension gives a source without a format.
    expect(res.body.fontFaces[2].sources).toEqual([{ url: `${t.service.origin}/storage/fonts/bold2` }])

    const removed = await t.api.call('updateCustomFont', { params: params({ fontId: font.id }), body: { fontFaces: [{ weight: 300, storageKey: null }] } })
    expect(removed.body.fontFaces.map((f: any) => f.weight)).toEqual([400, 700])

    const snapshot = (await t.api.call('getCustomFont', { params: params({ fontId: font.id }) })).body
    for (const body of [
      { fontFaces: [{ weight: 400, storageKey: null }] },
      { fontFaces: [{ weight: 300, storageKey: 'a' }, { weight: 300, storageKey: 'b' }] },
      { fontFamily: '' },
      { fontFamily: 12 },
      { fontFaces: [{ weight: 400 }] },
    ]) {
      const bad = await t.api.call('updateCustomFont', { params: params({ fontId: font.id }), body })
      expect(bad.status).toBe(400)
    }
    expect((await t.api.call('getCustomFont', { params: params({ fontId: font.id }) })).body).toEqual(snapshot)
  })

  it('deletes fonts', async () => {
    const font = await createFont('Gone')
    expect((await t.api.call('deleteCustomFont', { params: params({ fontId: font.id }) })).status).toBe(205)
    expect((await t.api.call('getCustomFont', { params: params({ fontId: font.id }) })).status).toBe(404)
    expect((await t.api.call('deleteCustomFont', { params: params({ fontId: font.id }) })).status).toBe(404)
  })

  it('answers 404 for unknown organizations and fonts and for outsiders, 403 for non-admins', async () => {
    const font = await createFont('Guarded')
    expect((await t.api.call('listCustomFonts', { params: { organizationId: 'nope' } })).status).toBe(404)
    expect((await t.api.call('createCustomFont', { params: { organizationId: 'nope' }, body: { fontFamily: 'X', fontFaces: faces } })).status).toBe(404)
    expect((await t.api.call('getCustomFont', { params: params({ fontId: 'nope' }) })).status).toBe(404)
    expect((await t.api.call('updateCustomFont', { params: params({ fontId: 'nope' }), body: { fontFamily: 'X' } })).status).toBe(404)
    expect((await stranger.api.call('getCustomFont', { params: params({ fontId: font.id }) })).status).toBe(404)
    const before = stored().length
    expect((await member.api.call('createCustomFont', { params: params(), body: { fontFamily: 'Mine', fontFaces: faces } })).status).toBe(403)
    expect((await member.api.call('updateCustomFont', { params: params({ fontId: font.id }), body: { fontFamily: 'Mine' } })).status).toBe(403)
    expect((await member.api.call('deleteCustomFont', { params: params({ fontId: font.id }) })).status).toBe(403)
    expect(stored().length).toBe(before)
    expect((await t.api.call('getCustomFont', { params: params({ fontId: font.id }) })).body.fontFamily).toBe('Guarded')
  })
})

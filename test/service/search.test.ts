import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { arrangeSpace, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

describe('content search', () => {
  let t: TestService
  let docs: ArrangedSpace
  let notes: ArrangedSpace
  let guest: { id: string; token: string }
  let outsider: { id: string; token: string }

  beforeAll(async () => {
    t = await startTestService()
    docs = arrangeSpace(
      t.service,
      [
        page('home', '# Welcome\n\nQuire keeps your documentation in sync with the service.\n'),
        page(
          'guide',
          '# Guide\n\nAn overview of the desktop client.\n\n## Installation\n\nDownload the installer and run it.\n\n' +
            '## Troubleshooting\n\nA conflicted copy appears when both sides changed the same page.\n',
          { description: 'Setting up synchronisation' },
        ),
        page('tokens', '# Access tokens\n\n## Create a token\n\nTokens authenticate the client.\n', { into: 'guide' }),
      ],
      { title: 'Docs' },
    )
    notes = arrangeSpace(t.service, [page('n1', '# Release notes\n\nThe installer is now signed.\n')], { orgId: docs.orgId, title: 'Notes' })
    guest = t.service.createUser({ displayName: 'Guest', email: 'guest@example.com' })
    t.service.store.repo(OrganizationsRepository).setMember(docs.orgId, guest.id, null)
    grant(t.service, notes.spaceId, guest.id, 'read')
    outsider = t.service.createUser({ displayName: 'Outsider', email: 'outsider@example.com' })
  })
  afterAll(() => t.close())

  it('finds the page and the section of a space that hold the words', async () => {
    const res = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'installer' } })
    expect(res.status).toBe(200)
    expect(res.body.count).toBe(1)
    const [hit] = res.body.items
    expect(hit).toMatchObject({
      id: docs.pages.guide,
      title: 'Guide',
      description: 'Setting up synchronisation',
      path: 'guide',
      rank: 1,
      resultType: 'section',
      ancestors: [],
      urls: { app: `${t.service.origin}/app/spaces/${docs.spaceId}/page/${docs.pages.guide}` },
    })
    expect(hit.sections[0]).toMatchObject({
      id: 'installation',
      title: 'Installation',
      path: 'guide#installation',
      body: 'Download the installer and run it.',
      urls: { app: `${t.service.origin}/app/spaces/${docs.spaceId}/page/${docs.pages.guide}#installation` },
    })
  })

  it('ranks pages, gives nested pages their ancestors and matches word prefixes', async () => {
    const res = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'token' } })
    expect(res.body.items.map((i: any) => i.id)).toEqual([docs.pages.tokens])
    expect(res.body.items[0]).toMatchObject({ path: 'guide/access-tokens', ancestors: [{ title: 'Guide' }], resultType: 'page' })
    expect(res.body.items[0].sections[0]).toMatchObject({ id: 'create-a-token', title: 'Create a token' })

    const sync = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'sync' } })
    // "synchronisation" in the guide's description and "sync" in the home page body.
    expect(sync.body.items.map((i: any) => i.id).sort()).toEqual([docs.pages.home, docs.pages.guide].sort())
    expect(sync.body.items.map((i: any) => i.rank)).toEqual([1, 2])

    const none = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'installer welcome' } })
    expect(none.body).toEqual({ count: 0, items: [] })
  })

  it('pages through results, keeping the global rank', async () => {
    const all = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'the' } })
    expect(all.body.count).toBeGreaterThanOrEqual(2)
    const first = await t.api.call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'the', limit: 1 } })
    expect(first.body.items).toEqual(all.body.items.slice(0, 1))
    const second = await t.api.call('searchSpaceContent', {
      params: { spaceId: docs.spaceId },
      query: { query: 'the', limit: 1, page: first.body.next.page },
    })
    expect(second.body.items[0]).toEqual(all.body.items[1])
    expect(second.body.items[0].rank).toBe(2)
  })

  it('searches the spaces of an organization the caller can read, grouped by space', async () => {
    const owner = await t.api.call('searchOrganizationContent', { params: { organizationId: docs.orgId }, query: { query: 'installer' } })
    expect(owner.status).toBe(200)
    expect(owner.body.items.map((i: any) => [i.type, i.id, i.title])).toEqual(
      expect.arrayContaining([
        ['space', docs.spaceId, 'Docs'],
        ['space', notes.spaceId, 'Notes'],
      ]),
    )
    expect(owner.body.items).toHaveLength(2)
    const ranks = owner.body.items.flatMap((i: any) => i.pages.map((p: any) => p.rank)).sort()
    expect(ranks).toEqual([1, 2])
    expect(owner.body.items[0].score).toBeGreaterThanOrEqual(owner.body.items[1].score)

    const asGuest = await t.api.as(guest.token).call('searchOrganizationContent', { params: { organizationId: docs.orgId }, query: { query: 'installer' } })
    expect(asGuest.body.items.map((i: any) => i.id)).toEqual([notes.spaceId])
    expect(asGuest.body.items[0].pages.map((p: any) => p.title)).toEqual(['Release notes'])

    const paged = await t.api.call('searchOrganizationContent', { params: { organizationId: docs.orgId }, query: { query: 'installer', limit: 1 } })
    expect(paged.body.items).toHaveLength(1)
    expect(paged.body.next.page).toEqual(expect.any(String))
  })

  it('hides spaces and organizations the caller cannot see (404)', async () => {
    const space = await t.api.as(guest.token).call('searchSpaceContent', { params: { spaceId: docs.spaceId }, query: { query: 'installer' } })
    expect(space.status).toBe(404)
    const org = await t.api.as(outsider.token).call('searchOrganizationContent', { params: { organizationId: docs.orgId }, query: { query: 'x' } })
    expect(org.status).toBe(404)
    expect(org.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    for (const [op, params] of [
      ['searchSpaceContent', { spaceId: 'nope' }],
      ['searchOrganizationContent', { organizationId: 'nope' }],
    ] as const) {
      const res = await t.api.call(op, { params, query: { query: 'x' } })
      expect(res.status).toBe(404)
    }
  })

  it('rejects a missing, empty, blank or over-long query and hostile limits with 400', async () => {
    for (const base of [`/spaces/${docs.spaceId}/search`, `/orgs/${docs.orgId}/search`]) {
      for (const query of ['', '?query=', '?query=%20%20', `?query=${'a'.repeat(513)}`, '?query=x&limit=5000', '?query=x&limit=-1', '?query=x&limit=abc']) {
        const res = await t.api.raw('GET', `${base}${query}`)
        expect(res.status, `${base}${query.slice(0, 30)}`).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
      expect((await t.api.raw('GET', `${base}?query=${'a'.repeat(512)}`)).status).toBe(200)
    }
  })

  it('searches a space without content as empty', async () => {
    const created = await t.api.call('createSpace', { params: { organizationId: docs.orgId }, body: { title: 'Empty' } })
    const res = await t.api.call('searchSpaceContent', { params: { spaceId: created.body.id }, query: { query: 'installer' } })
    expect(res.body).toEqual({ count: 0, items: [] })
  })
})

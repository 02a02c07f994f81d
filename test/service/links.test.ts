import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { arrangeSpace, editSpaceDirectly, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

const PNG = Buffer.from('89504e470d0a1a0a', 'hex').toString('base64')

describe('link reports and backlinks', () => {
  let t: TestService
  let s: ArrangedSpace
  let logoId: string
  let reader: { id: string; token: string }
  let stranger: { id: string; token: string }

  beforeAll(async () => {
    t = await startTestService()
    const origin = t.service.origin
    // home is README.md, guide is guide/README.md, install is guide/install.md.
    s = arrangeSpace(t.service, [
      { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG }] },
      page(
        'home',
        `# Home\n\nRead the [guide](./guide.md) and [install](./install.md#requirements).\n\n![logo](./logo)\n\n` +
          `A [gone page](missing.md), the [site](https://example.com/docs) and [this space in the app](${origin}/app/spaces/x).\n`,
      ),
      page('guide', '# Guide\n\nBack [home](./home.md). Also [gone](missing.md) and [nowhere](../../../far.md).\n'),
      page('install', '# Install\n\n## Requirements\n\n![logo](./logo) [guide](./guide.md)\n', { into: 'guide' }),
    ])
    const files = await t.api.call('listFiles', { params: { spaceId: s.spaceId } })
    logoId = files.body.items[0].id
    reader = t.service.createUser({ displayName: 'Reader', email: 'reader@example.com' })
    grant(t.service, s.spaceId, reader.id, 'read')
    stranger = t.service.createUser({ displayName: 'Stranger', email: 'stranger@example.com' })
  })
  afterAll(() => t.close())

  const where = () => ({ organization: s.orgId, space: s.spaceId, versionContext: s.revisionId })

  it('reports every link of the space, one item per target with the pages referencing it', async () => {
    const res = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId } })
    expect(res.status).toBe(200)
    const items: any[] = res.body.items
    const find = (target: object) => items.find((item) => JSON.stringify(item.targetReference) === JSON.stringify(target))
    expect(find({ kind: 'page', page: s.pages.guide, ...where() })).toEqual({
      status: 'ok',
      relation: 'reference',
      targetReference: { kind: 'page', page: s.pages.guide, ...where() },
      locationReferences: [
        { kind: 'page', ...where(), page: s.pages.home },
        { kind: 'page', ...where(), page: s.pages.install },
      ],
    })
    expect(find({ kind: 'anchor', page: s.pages.install, anchor: 'requirements', ...where() })?.status).toBe('ok')
    expect(find({ kind: 'file', file: logoId, ...where() })?.locationReferences.map((l: any) => l.page)).toEqual([s.pages.home, s.pages.install])
    expect(find({ kind: 'page', page: 'missing.md', ...where() })?.status).toBe('broken')
    expect(find({ kind: 'page', page: 'missing.md', ...where() })?.locationReferences).toHaveLength(1)
    expect(find({ kind: 'page', page: 'guide/missing.md', ...where() })?.status).toBe('broken')
    expect(find({ kind: 'page', page: '../../../far.md', ...where() })?.status).toBe('broken')
    expect(find({ kind: 'url', url: 'https://example.com/docs' })?.status).toBe('ok')
    expect(find({ kind: 'url', url: `${t.service.origin}/app/spaces/x` })?.status).toBe('in-app')
    expect(res.body.stats).toEqual({ total: items.length, broken: { total: 3, changeRequest: 0 } })
    expect(res.body.count).toBe(items.length)
  })

  it('filters by status without changing the stats', async () => {
    const broken = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId }, query: { status: 'broken' } })
    expect(broken.body.items).toHaveLength(3)
    expect(broken.body.items.every((i: any) => i.status === 'broken')).toBe(true)
    const inApp = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId }, query: { status: 'in-app' } })
    expect(inApp.body.items).toHaveLength(1)
    expect(inApp.body.stats.broken.total).toBe(3)
  })

  it('pages through the report', async () => {
    const all = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId } })
    const first = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId }, query: { limit: 2 } })
    expect(first.body.items).toEqual(all.body.items.slice(0, 2))
    expect(first.body.next.page).toEqual(expect.any(String))
    const second = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId }, query: { limit: 2, page: first.body.next.page } })
    expect(second.body.items).toEqual(all.body.items.slice(2, 4))
  })

  it('reports the links of one page', async () => {
    const res = await t.api.call('listPageLinks', { params: { spaceId: s.spaceId, pageId: s.pages.guide } })
    expect(res.body.items.map((i: any) => [i.status, i.targetReference.page])).toEqual([
      ['ok', s.pages.home],
      ['broken', 'guide/missing.md'],
      ['broken', '../../../far.md'],
    ])
    expect(res.body.items.every((i: any) => i.locationReferences.length === 1 && i.locationReferences[0].page === s.pages.guide)).toBe(true)
    expect(res.body.stats).toEqual({ total: 3, broken: { total: 2, changeRequest: 0 } })
  })

  it('lists the pages that use a file', async () => {
    const res = await t.api.call('listFileBacklinks', { params: { spaceId: s.spaceId, fileId: logoId } })
    expect(res.body.items).toEqual([
      { kind: 'page', ...where(), page: s.pages.home, file: logoId },
      { kind: 'page', ...where(), page: s.pages.install, file: logoId },
    ])
    const paged = await t.api.call('listFileBacklinks', { params: { spaceId: s.spaceId, fileId: logoId }, query: { limit: 1 } })
    expect(paged.body.items).toHaveLength(1)
    expect(paged.body.next.page).toEqual(expect.any(String))
  })

  it('counts broken links that open change requests add, and reports inside a change request', async () => {
    const cr = await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Links' } })
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: s.spaceId, changeRequestId: cr.body.id },
      body: {
        changes: [
          { operation: 'update_page', page: s.pages.guide, document: { markdown: '# Guide\n\n[gone](missing.md) [new gap](new-gap.md) ![logo](../.gitbook/assets/logo.png)\n' } },
        ],
      },
    })
    const space = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId } })
    // guide/missing.md is broken in main already; guide/new-gap.md is what the change request adds.
    expect(space.body.stats.broken).toEqual({ total: 3, changeRequest: 1 })
    const guide = await t.api.call('listPageLinks', { params: { spaceId: s.spaceId, pageId: s.pages.guide } })
    expect(guide.body.stats.broken).toEqual({ total: 2, changeRequest: 1 })
    const home = await t.api.call('listPageLinks', { params: { spaceId: s.spaceId, pageId: s.pages.home } })
    expect(home.body.stats.broken).toEqual({ total: 1, changeRequest: 0 })

    const head = (await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.body.id } })).body.revision
    expect(head).not.toBe(s.revisionId)
    for (const changeRequestId of [cr.body.id, String(cr.body.number)]) {
      const inCr = await t.api.call('listPageLinksInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId, pageId: s.pages.guide } })
      expect(inCr.body.items.map((i: any) => [i.status, i.targetReference.kind])).toEqual([
        ['broken', 'page'],
        ['broken', 'page'],
        ['ok', 'file'],
      ])
      expect(inCr.body.items[0].targetReference.versionContext).toBe(head)
      expect(inCr.body.items[0].locationReferences[0]).toEqual({ kind: 'page', organization: s.orgId, space: s.spaceId, versionContext: head, page: s.pages.guide })
      expect(inCr.body.stats).toEqual({ total: 3, broken: { total: 2, changeRequest: 1 } })
      const backlinks = await t.api.call('listFileBacklinksInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId, fileId: logoId } })
      expect(backlinks.body.items.map((i: any) => i.page)).toEqual([s.pages.home, s.pages.guide, s.pages.install])
    }

    // An archived change request no longer counts.
    await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.body.id }, body: { status: 'archived' } })
    const after = await t.api.call('listSpaceLinks', { params: { spaceId: s.spaceId } })
    expect(after.body.stats.broken.changeRequest).toBe(0)
  })

  it('follows the space to its new revision', async () => {
    const other = arrangeSpace(t.service, [page('a', '# A\n\n[b](./b.md)\n'), page('b', '# B\n\nNo links.\n')])
    const before = await t.api.call('listSpaceLinks', { params: { spaceId: other.spaceId } })
    expect(before.body.stats).toEqual({ total: 1, broken: { total: 0, changeRequest: 0 } })
    const again = await t.api.call('listSpaceLinks', { params: { spaceId: other.spaceId } })
    expect(again.body).toEqual(before.body)
    const revision = editSpaceDirectly(t.service, other.spaceId, [{ operation: 'delete_page', page: other.pages.b }])
    const after = await t.api.call('listSpaceLinks', { params: { spaceId: other.spaceId } })
    expect(after.body.items).toEqual([
      {
        status: 'broken',
        relation: 'reference',
        targetReference: { kind: 'page', page: 'b.md', organization: other.orgId, space: other.spaceId, versionContext: revision },
        locationReferences: [{ kind: 'page', organization: other.orgId, space: other.spaceId, versionContext: revision, page: other.pages.a }],
      },
    ])
  })

  it('answers an empty report for a space without content', async () => {
    const orgId = s.orgId
    const created = await t.api.call('createSpace', { params: { organizationId: orgId }, body: { title: 'Empty' } })
    const res = await t.api.call('listSpaceLinks', { params: { spaceId: created.body.id } })
    expect(res.body).toEqual({ count: 0, items: [], stats: { total: 0, broken: { total: 0, changeRequest: 0 } } })
  })

  it('lets readers see reports and hides the space from others (404)', async () => {
    const asReader = await t.api.as(reader.token).call('listSpaceLinks', { params: { spaceId: s.spaceId } })
    expect(asReader.status).toBe(200)
    for (const [op, params] of [
      ['listSpaceLinks', { spaceId: s.spaceId }],
      ['listPageLinks', { spaceId: s.spaceId, pageId: s.pages.home }],
      ['listFileBacklinks', { spaceId: s.spaceId, fileId: logoId }],
    ] as const) {
      const res = await t.api.as(stranger.token).call(op, { params })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    }
    // An organization member without a role on the space cannot see it either.
    t.service.store.repo(OrganizationsRepository).setMember(s.orgId, stranger.id, null)
    expect((await t.api.as(stranger.token).call('listSpaceLinks', { params: { spaceId: s.spaceId } })).status).toBe(404)
  })

  it('answers 404 for unknown spaces, pages, files and change requests', async () => {
    const calls: Array<[string, Record<string, string>]> = [
      ['listSpaceLinks', { spaceId: 'nope' }],
      ['listPageLinks', { spaceId: s.spaceId, pageId: 'nope' }],
      ['listPageLinks', { spaceId: 'nope', pageId: s.pages.home }],
      ['listPageLinksInChangeRequest', { spaceId: s.spaceId, changeRequestId: 'nope', pageId: s.pages.home }],
      ['listPageLinksInChangeRequest', { spaceId: s.spaceId, changeRequestId: '1', pageId: 'nope' }],
      ['listFileBacklinks', { spaceId: s.spaceId, fileId: 'nope' }],
      ['listFileBacklinks', { spaceId: s.spaceId, fileId: s.pages.home }],
      ['listFileBacklinksInChangeRequest', { spaceId: s.spaceId, changeRequestId: '999', fileId: logoId }],
    ]
    for (const [op, params] of calls) {
      const res = await t.api.call(op, { params })
      expect(res.status, `${op} ${JSON.stringify(params)}`).toBe(404)
      expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    }
  })

  it('rejects hostile query parameters with 400', async () => {
    const base = `/spaces/${s.spaceId}/links`
    for (const query of ['limit=5000', 'limit=-1', 'limit=abc', 'status=dead', 'page=not-a-token']) {
      const res = await t.api.raw('GET', `${base}?${query}`)
      expect(res.status, query).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
    }
    const backlinks = await t.api.raw('GET', `/spaces/${s.spaceId}/content/files/${logoId}/backlinks?limit=5000`)
    expect(backlinks.status).toBe(400)
  })
})

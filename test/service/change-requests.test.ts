import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { changeRequestCounters, ChangeRequestsRepository } from '../../src/main/service/store/change-requests'
import { newId } from '../../src/main/service/store/ids'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, editSpaceDirectly, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

const md = (markdown: string) => ({ markdown })

describe('change requests', () => {
  let t: TestService
  let editor: { id: string; token: string }
  let reviewer: { id: string; token: string }
  let reader: { id: string; token: string }
  let stranger: { id: string; token: string }

  beforeAll(async () => {
    t = await startTestService()
    editor = t.service.createUser({ displayName: 'Editor', email: 'editor@example.com' })
    reviewer = t.service.createUser({ displayName: 'Reviewer', email: 'reviewer@example.com' })
    reader = t.service.createUser({ displayName: 'Reader', email: 'reader@example.com' })
    stranger = t.service.createUser({ displayName: 'Stranger', email: 'stranger@example.com' })
  })
  afterAll(() => t.close())

  /** A space where editor, reviewer and reader have their roles. */
  function space(): ArrangedSpace {
    const s = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n'), page('guide', '# Guide\n\nOld text.\n'), page('faq', '# FAQ\n\nQ.\n')])
    grant(t.service, s.spaceId, editor.id, 'edit')
    grant(t.service, s.spaceId, reviewer.id, 'review')
    grant(t.service, s.spaceId, reader.id, 'read')
    return s
  }

  const create = async (s: ArrangedSpace, body: Record<string, unknown> = { subject: 'Edits' }, token = t.service.token) =>
    (await t.api.as(token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body })).body

  const write = (s: ArrangedSpace, cr: { id: string }, changes: unknown[], compat = false, token = t.service.token) =>
    t.api.as(token).call('updateChangeRequestContent', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, query: { compat }, body: { changes } })

  const crHead = (cr: { id: string }) => t.service.store.repo(ChangeRequestsRepository).get(cr.id)?.revisionId

  describe('create, get, list, update', () => {
    it('creates a draft branched from the space revision and counts it', async () => {
      const s = space()
      const res = await t.api.as(editor.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'Fix typos', extra: 'ignored' } })
      expect(res.status).toBe(201)
      expect(res.body).toMatchObject({
        object: 'change-request',
        number: 1,
        status: 'draft',
        subject: 'Fix typos',
        space: s.spaceId,
        revision: s.revisionId,
        revisionInitial: s.revisionId,
        revisionMergedAncestor: s.revisionId,
        comments: 0,
        outdated: false,
        createdBy: { id: editor.id },
      })
      expect(res.body.urls.location).toBe(`${t.service.baseUrl}/spaces/${s.spaceId}/change-requests/${res.body.id}`)
      const second = await create(s)
      expect(second.number).toBe(2)
      await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: second.id }, body: { status: 'open' } })
      expect(changeRequestCounters(t.service.store, s.spaceId)).toEqual({ changeRequests: 2, changeRequestsOpen: 1, changeRequestsDraft: 1 })
    })

    it('creates a change request from a template, or nothing when the template is unknown', async () => {
      const s = space()
      const res = await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'API docs', template: { id: 'api-docs' } } })
      expect(res.status).toBe(201)
      expect(res.body.revision).not.toBe(s.revisionId)
      const pages = await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: res.body.id } })
      expect(pages.body.pages.map((p: { title: string }) => p.title)).toEqual(['Home', 'Guide', 'FAQ', 'Overview', 'Authentication', 'Reference', 'Changelog'])
      const unknown = await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { template: { id: 'nope' } } })
      expect(unknown.status).toBe(400)
      expect(changeRequestCounters(t.service.store, s.spaceId).changeRequests).toBe(1)
    })

    it('gets a change request by id or by number; unknown ones and those of other spaces are 404', async () => {
      const s = space()
      const other = space()
      const cr = await create(s)
      const otherCr = await create(other)
      for (const ref of [cr.id, String(cr.number)]) {
        const res = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: ref } })
        expect(res.body.id).toBe(cr.id)
      }
      for (const ref of ['nope', '99', otherCr.id, '0', '-1']) {
        const res = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: ref } })
        expect(res.status).toBe(404)
        expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
      }
      expect((await t.api.as(stranger.token).call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).status).toBe(404)
      expect((await t.api.as(reader.token).call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).status).toBe(200)
    })

    it('lists open change requests by default, with filters, order and pagination', async () => {
      const s = space()
      const a = await create(s, { subject: 'A' }, editor.token)
      const b = await create(s, { subject: 'B' })
      const c = await create(s, { subject: 'C' })
      for (const cr of [a, b, c]) await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
      const draft = await create(s, { subject: 'Draft' })
      const params = { spaceId: s.spaceId }

      const all = await t.api.call('listChangeRequestsForSpace', { params })
      expect(all.body.items.map((cr: { subject: string }) => cr.subject).sort()).toEqual(['A', 'B', 'C'])
      const drafts = await t.api.call('listChangeRequestsForSpace', { params, query: { status: 'draft' } })
      expect(drafts.body.items.map((cr: { id: string }) => cr.id)).toEqual([draft.id])
      const mine = await t.api.call('listChangeRequestsForSpace', { params, query: { creator: editor.id } })
      expect(mine.body.items.map((cr: { id: string }) => cr.id)).toEqual([a.id])
      await write(s, b, [{ operation: 'update_page', page: s.pages.faq, document: md('# FAQ\n\nA.\n') }], true, editor.token)
      const contributed = await t.api.call('listChangeRequestsForSpace', { params, query: { contributor: editor.id } })
      expect(contributed.body.items.map((cr: { id: string }) => cr.id).sort()).toEqual([a.id, b.id].sort())
      const byCreation = await t.api.call('listChangeRequestsForSpace', { params, query: { orderBy: 'createdAt' } })
      expect(byCreation.body.items.map((cr: { subject: string }) => cr.subject)).toEqual(['C', 'B', 'A'])
      const byUpdate = await t.api.call('listChangeRequestsForSpace', { params })
      expect(byUpdate.body.items[0].id).toBe(b.id)
      expect((await t.api.call('listChangeRequestsForSpace', { params, query: { requestedReviewer: reviewer.id } })).body.items).toEqual([])

      const first = await t.api.call('listChangeRequestsForSpace', { params, query: { limit: 2 } })
      expect(first.body).toMatchObject({ count: 3, next: { page: expect.any(String) } })
      const rest = await t.api.call('listChangeRequestsForSpace', { params, query: { limit: 2, page: first.body.next.page } })
      expect(rest.body.items).toHaveLength(1)
      expect(rest.body.next).toBeUndefined()

      for (const limit of ['5000', '-1', 'abc']) {
        const res = await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests?limit=${limit}`)
        expect(res.status).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
      expect((await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests?status=bogus`)).status).toBe(400)
      expect((await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests?orderBy=title`)).status).toBe(400)
    })

    it('lists the change requests of an organization across the spaces the caller can see', async () => {
      const s = space()
      const cr = await create(s)
      await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
      const sibling = arrangeSpace(t.service, [page('x', '# X\n')], { orgId: s.orgId })
      const hidden = await create(sibling)
      await t.api.call('updateChangeRequestById', { params: { spaceId: sibling.spaceId, changeRequestId: hidden.id }, body: { status: 'open' } })

      const res = await t.api.call('listChangeRequestsForOrganization', { params: { organizationId: s.orgId } })
      expect(res.body.items.map((x: { id: string }) => x.id).sort()).toEqual([cr.id, hidden.id].sort())
      const both = await t.api.call('listChangeRequestsForOrganization', { params: { organizationId: s.orgId }, query: { status: ['open', 'draft'], space: s.spaceId } })
      expect(both.body.items.map((x: { id: string }) => x.id)).toEqual([cr.id])

      // A member who was granted only one space sees only that space's change requests.
      t.service.store.repo(OrganizationsRepository).setMember(s.orgId, reader.id, null)
      const asReader = await t.api.as(reader.token).call('listChangeRequestsForOrganization', { params: { organizationId: s.orgId } })
      expect(asReader.body.items.map((x: { id: string }) => x.id)).toEqual([cr.id])
      expect((await t.api.as(stranger.token).call('listChangeRequestsForOrganization', { params: { organizationId: s.orgId } })).status).toBe(404)
      expect((await t.api.call('listChangeRequestsForOrganization', { params: { organizationId: 'nope' } })).status).toBe(404)
    })

    it('updates subject, description, links and status', async () => {
      const s = space()
      const cr = await create(s)
      const description = { object: 'document', data: {}, nodes: [{ object: 'block', type: 'paragraph', nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Why', marks: [] }] }] }] }
      const res = await t.api.as(editor.token).call('updateChangeRequestById', {
        params: { spaceId: s.spaceId, changeRequestId: cr.number },
        body: { subject: 'Renamed', description, status: 'open', links: [{ ref: { kind: 'url', url: 'https://example.com/issue/1' }, title: 'Issue' }] },
      })
      expect(res.body).toMatchObject({ subject: 'Renamed', status: 'open', description })
      expect(res.body.links).toEqual([{ id: expect.any(String), ref: { kind: 'url', url: 'https://example.com/issue/1' }, title: 'Issue' }])
      const archived = await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'archived' } })
      expect(archived.body.status).toBe('archived')
    })

    it('rejects bad input and low roles, changing nothing', async () => {
      const s = space()
      const cr = await create(s, { subject: 'Keep' })
      const params = { spaceId: s.spaceId, changeRequestId: cr.id }
      const bad: unknown[] = [{ subject: 'x'.repeat(101) }, { subject: 42 }, { status: 'merged' }, { status: 'bogus' }, { description: 'text' }, { links: [{ ref: { kind: 'url' } }] }]
      for (const body of bad) {
        const res = await t.api.call('updateChangeRequestById', { params, body })
        expect(res.status, JSON.stringify(body)).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
      expect((await t.api.raw('PATCH', `/spaces/${s.spaceId}/change-requests/${cr.id}`, '{not json')).status).toBe(400)
      expect((await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: 'y'.repeat(101) } })).status).toBe(400)
      expect((await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: { subject: ['array'] } })).status).toBe(400)
      expect((await t.api.call('createChangeRequest', { params: { spaceId: 'nope' }, body: {} })).status).toBe(404)
      expect((await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: 'nope' }, body: { subject: 'x' } })).status).toBe(404)

      expect((await t.api.as(reader.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: {} })).status).toBe(403)
      expect((await t.api.as(reader.token).call('updateChangeRequestById', { params, body: { subject: 'No' } })).status).toBe(403)
      expect((await t.api.as(stranger.token).call('createChangeRequest', { params: { spaceId: s.spaceId }, body: {} })).status).toBe(404)

      const after = await t.api.call('getChangeRequestById', { params })
      expect(after.body).toMatchObject({ subject: 'Keep', status: 'draft', updatedAt: cr.updatedAt })
      expect(changeRequestCounters(t.service.store, s.spaceId).changeRequests).toBe(1)
    })

    it('counts open comments on the change request', async () => {
      const s = space()
      const cr = await create(s)
      const insert = t.service.store.db.prepare(
        `INSERT INTO comments (id, space_id, change_request_id, body, posted_by, posted_at, resolved_at) VALUES (?, ?, ?, '{}', ?, ?, ?)`,
      )
      const now = new Date().toISOString()
      insert.run(newId(), s.spaceId, cr.id, t.service.ownerId, now, null)
      insert.run(newId(), s.spaceId, cr.id, t.service.ownerId, now, null)
      insert.run(newId(), s.spaceId, cr.id, t.service.ownerId, now, now)
      insert.run(newId(), s.spaceId, null, t.service.ownerId, now, null)
      const res = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(res.body.comments).toBe(2)
    })
  })

  describe('content writes', () => {
    it('applies a batch as one new revision and answers the affected pages (compat=false)', async () => {
      const s = space()
      const cr = await create(s)
      const res = await write(s, cr, [
        { operation: 'insert_page', ref: 'setup', into: s.pages.guide, document: md('# Setup\n\nSee [home](../README.md).\n') },
        { operation: 'insert_page', ref: 'first', at: 0, title: 'Ignored title', document: md('---\ndescription: First things\n---\n\n# First\n\nGo to [setup](./setup.md).\n') },
        { operation: 'update_page', page: s.pages.guide, document: md('# Guide v2\n\nNew text.\n') },
        { operation: 'delete_page', page: s.pages.faq },
        { operation: 'insert_files', files: [{ ref: 'pic', name: 'pic.txt', contentType: 'text/plain', base64: Buffer.from('bytes').toString('base64') }] },
      ])
      expect(res.status).toBe(200)
      const location = (id: string) => `${t.service.baseUrl}/spaces/${s.spaceId}/change-requests/${cr.id}/content/page/${id}`
      const [setup, first, updated, deleted] = res.body.changes
      expect(setup).toEqual({ object: 'created_page', ref: 'setup', page: { object: 'page', id: expect.any(String), urls: { location: location(setup.page.id) } } })
      expect(first).toMatchObject({ object: 'created_page', ref: 'first' })
      expect(updated).toEqual({ object: 'updated_page', page: { object: 'page', id: s.pages.guide, urls: { location: location(s.pages.guide) } } })
      expect(deleted).toEqual({ object: 'deleted_page', page: s.pages.faq })
      expect(res.body.insertedFiles).toEqual([expect.objectContaining({ name: 'pic.txt', contentType: 'text/plain', size: 5 })])
      expect(res.body.changeRequest.revision).not.toBe(s.revisionId)

      const head = t.service.store.repo(RevisionsRepository).get(res.body.changeRequest.revision)
      expect(head?.parents).toEqual([s.revisionId])
      const pages = await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(pages.body.pages.map((p: { title: string }) => p.title)).toEqual(['First', 'Home', 'Guide v2'])
      expect(pages.body.pages[2].pages[0]).toMatchObject({ id: setup.page.id, title: 'Setup', path: 'guide/setup' })
      const firstPage = await t.api.call('getPageInChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id, pageId: first.page.id }, query: { format: 'markdown' } })
      // Front matter set the description, the H1 the title (over the `title` field), and it is not duplicated.
      expect(firstPage.body).toMatchObject({ title: 'First', description: 'First things' })
      expect(firstPage.body.markdown).toBe(`---\ndescription: First things\n---\n\n# First\n\nGo to [setup](guide/setup.md).\n`)
      expect(firstPage.body.git.oid).toBe(gitBlobOid(firstPage.body.markdown))

      // The space itself did not move.
      expect((await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })).body.id).toBe(s.revisionId)
      const files = await t.api.call('listFilesInChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      const file = await t.api.call('getFileInChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id, fileId: files.body.items[0].id } })
      expect(await (await fetch(file.body.downloadURL)).text()).toBe('bytes')
      const rev = await t.api.call('getRevisionOfChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(rev.body).toMatchObject({ id: head?.id, parents: [s.revisionId] })
    })

    it('answers the change request with compat=true (the default) and every write adds a revision', async () => {
      const s = space()
      const cr = await create(s)
      const one = await write(s, cr, [{ operation: 'update_page', page: s.pages.home, title: 'Start' }], true)
      expect(one.body.object).toBe('change-request')
      const two = await t.api.call('updateChangeRequestContent', {
        params: { spaceId: s.spaceId, changeRequestId: cr.number },
        body: { changes: [{ operation: 'update_page', page: s.pages.home, emoji: '1f600' }] },
      })
      expect(two.body.object).toBe('change-request')
      const revisions = t.service.store.repo(RevisionsRepository)
      const second = revisions.get(two.body.revision)
      expect(second?.parents).toEqual([one.body.revision])
      expect(revisions.get(one.body.revision)?.parents).toEqual([s.revisionId])
      // The first revision still has the page without the emoji.
      const old = await t.api.call('getPageInRevisionById', { params: { spaceId: s.spaceId, revisionId: one.body.revision, pageId: s.pages.home } })
      expect(old.body.emoji).toBeUndefined()
      expect(old.body.title).toBe('Start')
    })

    it('moves pages with into/at and reverts pages to the base', async () => {
      const s = space()
      const cr = await create(s)
      await write(s, cr, [
        { operation: 'update_page', page: s.pages.faq, into: s.pages.guide },
        { operation: 'update_page', page: s.pages.home, document: md('# Home\n\nChanged.\n') },
      ])
      let pages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages
      expect(pages.map((p: { id: string }) => p.id)).toEqual([s.pages.home, s.pages.guide])
      expect(pages[1].pages[0].id).toBe(s.pages.faq)
      await write(s, cr, [{ operation: 'update_page', page: s.pages.faq, into: null, at: 0 }, { operation: 'revert_page', page: s.pages.home }])
      pages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages
      expect(pages.map((p: { id: string }) => p.id)).toEqual([s.pages.faq, s.pages.home, s.pages.guide])
      expect(pages[1].markdown).toBe('# Home\n\nWelcome.\n')
    })

    it('rejects an invalid batch whole: 400 and nothing written', async () => {
      const s = space()
      const cr = await create(s)
      const before = crHead(cr)
      const blobCount = () => (t.service.store.db.prepare('SELECT COUNT(*) AS n FROM blobs').get() as { n: number }).n
      const blobsBefore = blobCount()
      const batches: unknown[] = [
        [{ operation: 'insert_page', document: md('# Fine\n') }, { operation: 'update_page', page: 'no-such-page', title: 'x' }],
        [{ operation: 'insert_page', document: md('# A\n'), into: 'missing-parent' }],
        [{ operation: 'insert_page', document: md('# A\n'), at: 99 }],
        [{ operation: 'insert_page', ref: 'dup', document: md('# A\n') }, { operation: 'insert_page', ref: 'dup', document: md('# B\n') }],
        [{ operation: 'update_page', page: s.pages.guide, into: s.pages.guide }],
        [{ operation: 'revert_page', page: s.pages.home, block: ['b1'] }],
        [{ operation: 'revert_page', page: s.pages.home, revision: 'not-a-revision' }],
        [{ operation: 'insert_files', files: [{ name: 'a.bin', contentType: 'application/octet-stream', base64: '***' }] }],
        [{ operation: 'insert_files', files: [{ name: 'big.bin', contentType: 'application/octet-stream', base64: Buffer.alloc(1024 * 1024 + 1).toString('base64') }] }],
      ]
      for (const changes of batches) {
        const res = await t.api.call('updateChangeRequestContent', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { changes } })
        expect(res.status, JSON.stringify(changes).slice(0, 200)).toBe(400)
        expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      }
      const schemaInvalid: unknown[] = [
        {},
        { changes: [] },
        { changes: new Array(51).fill({ operation: 'delete_page', page: s.pages.faq }) },
        { changes: [{ operation: 'explode' }] },
        { changes: [{ operation: 'insert_page' }] },
        { changes: [{ operation: 'update_page', page: s.pages.home, at: -1 }] },
        { changes: [{ operation: 'insert_files', files: [{ name: 'x.txt' }] }] },
        { changes: 'all of them' },
      ]
      for (const body of schemaInvalid) {
        const res = await t.api.call('updateChangeRequestContent', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body })
        expect(res.status, JSON.stringify(body).slice(0, 200)).toBe(400)
      }
      expect(crHead(cr)).toBe(before)
      expect(blobCount()).toBe(blobsBefore)
      const unknown = await t.api.call('updateChangeRequestContent', { params: { spaceId: s.spaceId, changeRequestId: 'nope' }, body: { changes: [{ operation: 'delete_page', page: s.pages.faq }] } })
      expect(unknown.status).toBe(404)
    })

    it('refuses writes to archived change requests and in locked spaces', async () => {
      const s = space()
      const cr = await create(s)
      const changes = [{ operation: 'delete_page', page: s.pages.faq }]
      await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'archived' } })
      const archived = await write(s, cr, changes)
      expect(archived.status).toBe(409)
      expect(archived.body.error.message).toMatch(/archived/)
      await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
      t.service.store.repo(SpacesRepository).update(s.spaceId, { data: { editMode: 'locked' } })
      expect((await write(s, cr, changes)).status).toBe(403)
      expect((await t.api.call('createChangeRequest', { params: { spaceId: s.spaceId }, body: {} })).status).toBe(403)
      expect((await t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).status).toBe(403)
      expect(crHead(cr)).toBe(s.revisionId)
      t.service.store.repo(SpacesRepository).update(s.spaceId, { data: { editMode: 'live' } })
      expect((await write(s, cr, changes)).status).toBe(200)
    })

    it('needs the edit role to write', async () => {
      const s = space()
      const cr = await create(s)
      const changes = [{ operation: 'delete_page', page: s.pages.faq }]
      expect((await write(s, cr, changes, true, reader.token)).status).toBe(403)
      expect((await write(s, cr, changes, true, stranger.token)).status).toBe(404)
      expect(crHead(cr)).toBe(s.revisionId)
      expect((await write(s, cr, changes, true, editor.token)).status).toBe(200)
    })

    describe('insert_files from a URL', () => {
      let server: http.Server
      let base: string
      beforeAll(async () => {
        server = http.createServer((req, res) => {
          if (req.url === '/logo.svg') {
            res.writeHead(200, { 'Content-Type': 'image/svg+xml; charset=utf-8' })
            res.end('<svg xmlns="http://www.w3.org/2000/svg"/>')
          } else if (req.url === '/huge') {
            res.writeHead(200, { 'Content-Type': 'application/octet-stream' })
            res.end(Buffer.alloc(1024 * 1024 + 10))
          } else {
            res.writeHead(404)
            res.end()
          }
        })
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
        base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
      })
      afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

      it('fetches loopback URLs and refers to the file by its ref', async () => {
        const s = space()
        const cr = await create(s)
        const res = await write(s, cr, [
          { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.svg', url: `${base}/logo.svg` }] },
          { operation: 'insert_page', document: md('# Brand\n\n![Logo](./logo)\n') },
        ])
        expect(res.status).toBe(200)
        const [file] = res.body.insertedFiles
        expect(file).toMatchObject({ name: 'logo.svg', contentType: 'image/svg+xml', size: 41 })
        const created = await t.api.call('getPageInChangeRequestById', {
          params: { spaceId: s.spaceId, changeRequestId: cr.id, pageId: res.body.changes[0].page.id },
          query: { format: 'markdown' },
        })
        expect(created.body.markdown).toContain('.gitbook/assets/logo.svg')
      })

      it('fails fast with 400 naming the URL for other hosts, missing files and files over 1 MB', async () => {
        const s = space()
        const cr = await create(s)
        for (const url of ['https://example.com/a.png', `${base}/missing.png`, `${base}/huge`, 'ftp://127.0.0.1/x']) {
          const started = Date.now()
          const res = await write(s, cr, [{ operation: 'insert_files', files: [{ name: 'x.png', url }] }])
          expect(res.status, url).toBe(400)
          expect(res.body.error.message).toContain(url)
          expect(Date.now() - started).toBeLessThan(5000)
        }
        expect(crHead(cr)).toBe(s.revisionId)
      })
    })
  })

  describe('merge and update', () => {
    it('merges into a new space revision with both parents and marks the change request merged', async () => {
      const s = space()
      const cr = await create(s, { subject: 'Ship it' })
      const written = await write(s, cr, [{ operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nMerged text.\n') }])
      const crRevision = written.body.changeRequest.revision
      const res = await t.api.as(reviewer.token).call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(res.status).toBe(200)
      expect(res.body).toEqual({ revision: expect.any(String), result: 'merge' })

      const rev = await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })
      expect(rev.body).toMatchObject({ id: res.body.revision, parents: [s.revisionId, crRevision], type: 'merge', mergedFrom: { id: cr.id, status: 'merged' } })
      const guide = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.guide }, query: { format: 'markdown' } })
      expect(guide.body.markdown).toBe('# Guide\n\nMerged text.\n')
      const after = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(after.body).toMatchObject({ status: 'merged', revisionMerged: res.body.revision, mergedBy: { id: reviewer.id }, outdated: false })
      expect(after.body.mergedAt).toEqual(expect.any(String))
      // The old space revision is unchanged.
      const old = await t.api.call('getPageInRevisionById', { params: { spaceId: s.spaceId, revisionId: s.revisionId, pageId: s.pages.guide }, query: { format: 'markdown' } })
      expect(old.body.markdown).toBe('# Guide\n\nOld text.\n')

      const again = await t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(again.status).toBe(409)
      const edit = await write(s, cr, [{ operation: 'delete_page', page: s.pages.faq }])
      expect(edit.status).toBe(409)
      expect(edit.body.error.message).toMatch(/merged/)
      const reopen = await t.api.call('updateChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, body: { status: 'open' } })
      expect(reopen.status).toBe(409)
      expect((await t.api.call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).status).toBe(409)
    })

    it('three-way merges with changes made to the space meanwhile', async () => {
      const s = space()
      const cr = await create(s)
      await write(s, cr, [{ operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nFrom the change request.\n') }])
      const live = editSpaceDirectly(t.service, s.spaceId, [{ operation: 'update_page', page: s.pages.faq, document: md('# FAQ\n\nFrom the space.\n') }])
      expect((await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.outdated).toBe(true)

      const res = await t.api.as(reviewer.token).call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(res.body.result).toBe('merge')
      const pages = (await t.api.call('listPages', { params: { spaceId: s.spaceId } })).body.pages
      expect(pages.find((p: { id: string }) => p.id === s.pages.guide).markdown).toBe('# Guide\n\nFrom the change request.\n')
      expect(pages.find((p: { id: string }) => p.id === s.pages.faq).markdown).toBe('# FAQ\n\nFrom the space.\n')
      expect((await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })).body.parents[0]).toBe(live)
    })

    it('refuses to merge over conflicting space changes; an update from main refuses too (409 naming the page) and changes nothing', async () => {
      const s = space()
      const cr = await create(s)
      await write(s, cr, [{ operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nOurs.\n') }])
      const live = editSpaceDirectly(t.service, s.spaceId, [
        { operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nTheirs.\n') },
        { operation: 'insert_page', document: md('# Live page\n') },
      ])
      const conflict = await t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(conflict.body).toEqual({ revision: live, result: 'conflicts' })
      expect((await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })).body.id).toBe(live)

      const headBefore = crHead(cr)
      const update = await t.api.as(editor.token).call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(update.status).toBe(409)
      expect(update.body.error.message).toMatch(/cannot be updated from main.*page "Guide"/)
      const after = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(after.body).toMatchObject({ revision: headBefore, revisionMergedAncestor: s.revisionId, outdated: true })

      // Settled in the change request (main's version kept), the update goes through and the merge keeps main's text.
      await write(s, cr, [{ operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nTheirs.\n') }])
      const updated = await t.api.as(editor.token).call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(updated.body).toEqual({ revision: expect.any(String), result: 'update' })
      expect(t.service.store.repo(RevisionsRepository).get(updated.body.revision)).toMatchObject({ parents: [expect.any(String), live], type: 'update' })
      const crPages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages
      expect(crPages.map((p: { title: string }) => p.title)).toContain('Live page')
      expect((await t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
      const guide = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.guide }, query: { format: 'markdown' } })
      expect(guide.body.markdown).toBe('# Guide\n\nTheirs.\n')
    })

    describe('block by block', () => {
      const PARAGRAPHS = ['First paragraph.', 'Second paragraph.', 'Third paragraph.', 'Fourth paragraph.', 'Fifth paragraph.']
      const doc = (paragraphs: string[]) => `# Doc\n\n${paragraphs.join('\n\n')}\n`
      const edited = (changes: Record<number, string>) => PARAGRAPHS.map((text, i) => changes[i] ?? text)
      const docSpace = () => arrangeSpace(t.service, [page('doc', doc(PARAGRAPHS)), page('other', '# Other\n\nUntouched.\n')])
      const markdownOf = async (s: ArrangedSpace) =>
        (await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.doc }, query: { format: 'markdown' } })).body.markdown
      const merge = (s: ArrangedSpace, cr: { id: string }) => t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      const editDoc = (s: ArrangedSpace, cr: { id: string }, markdown: string) => write(s, cr, [{ operation: 'update_page', page: s.pages.doc, document: md(markdown) }])

      it('two change requests editing different paragraphs of one page both merge, and main has both edits', async () => {
        const s = docSpace()
        const first = await create(s)
        const second = await create(s)
        await editDoc(s, first, doc(edited({ 0: 'First, edited by one.' })))
        await editDoc(s, second, doc(edited({ 3: 'Fourth, edited by two.' })))

        expect((await merge(s, first)).body.result).toBe('merge')
        const res = await merge(s, second)
        expect(res.body.result).toBe('merge')
        expect(await markdownOf(s)).toBe(doc(edited({ 0: 'First, edited by one.', 3: 'Fourth, edited by two.' })))
        // The merged body is a stored blob under its git id, like any other.
        const head = t.service.store.repo(RevisionsRepository).get(res.body.revision)
        const body = head?.tree.pages.find((p) => p.id === s.pages.doc)?.bodyOid as string
        expect(body).toBe(gitBlobOid(edited({ 0: 'First, edited by one.', 3: 'Fourth, edited by two.' }).join('\n\n')))
        expect(t.service.store.repo(RevisionsRepository).hasBlob(body)).toBe(true)
      })

      it('merges a title changed on main with a body changed in the change request', async () => {
        const s = docSpace()
        const cr = await create(s)
        await editDoc(s, cr, doc(edited({ 2: 'Third, from the change request.' })))
        editSpaceDirectly(t.service, s.spaceId, [{ operation: 'update_page', page: s.pages.doc, title: 'Renamed on main' }])
        expect((await merge(s, cr)).body.result).toBe('merge')
        expect(await markdownOf(s)).toBe(doc(edited({ 2: 'Third, from the change request.' })).replace('# Doc', '# Renamed on main'))
      })

      it('answers conflicts when both changed the same paragraph, and main keeps its version', async () => {
        const s = docSpace()
        const first = await create(s)
        const second = await create(s)
        await editDoc(s, first, doc(edited({ 1: 'Second, by one.', 2: 'Third, by one.' })))
        await editDoc(s, second, doc(edited({ 1: 'Second, by two.', 4: 'Fifth, by two.' })))
        const live = (await merge(s, first)).body.revision

        const res = await merge(s, second)
        expect(res.body).toEqual({ revision: live, result: 'conflicts' })
        expect((await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })).body.id).toBe(live)
        expect(await markdownOf(s)).toBe(doc(edited({ 1: 'Second, by one.', 2: 'Third, by one.' })))

        // Updating from main never keeps one side of the clash silently: it is refused, naming the page,
        // and merging the change request after that attempt still keeps main's merged paragraphs.
        const headBefore = (await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: second.id } })).body.revision
        const update = await t.api.call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: second.id } })
        expect(update.status).toBe(409)
        expect(update.body.error.message).toContain('page "Doc"')
        expect((await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: second.id } })).body.revision).toBe(headBefore)
        expect((await merge(s, second)).body.result).toBe('conflicts')
        expect(await markdownOf(s)).toBe(doc(edited({ 1: 'Second, by one.', 2: 'Third, by one.' })))
      })

      it('a change request edited in paragraph 1 and main in paragraph 5 updates cleanly from main, then merges', async () => {
        const s = docSpace()
        const cr = await create(s)
        await editDoc(s, cr, doc(edited({ 0: 'First, in the change request.' })))
        editSpaceDirectly(t.service, s.spaceId, [{ operation: 'update_page', page: s.pages.doc, document: md(doc(edited({ 4: 'Fifth, on main.' }))) }])

        const update = await t.api.call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
        expect(update.body.result).toBe('update')
        const both = doc(edited({ 0: 'First, in the change request.', 4: 'Fifth, on main.' }))
        const crPages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages
        expect(crPages.find((p: { id: string }) => p.id === s.pages.doc).markdown).toBe(both)
        expect((await merge(s, cr)).body.result).toBe('merge')
        expect(await markdownOf(s)).toBe(both)
      })
    })

    it('reports outdated until updated; updating an up-to-date change request changes nothing', async () => {
      const s = space()
      const cr = await create(s)
      const same = await t.api.call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(same.body).toEqual({ revision: s.revisionId, result: 'update' })
      editSpaceDirectly(t.service, s.spaceId, [{ operation: 'delete_page', page: s.pages.faq }])
      expect((await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.outdated).toBe(true)
      const res = await t.api.call('updateChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.number } })
      expect(res.body.result).toBe('update')
      const after = await t.api.call('getChangeRequestById', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(after.body.outdated).toBe(false)
      const pages = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })).body.pages
      expect(pages.map((p: { id: string }) => p.id)).not.toContain(s.pages.faq)
    })

    it('merging needs the review role and the merge rules; updating needs edit', async () => {
      const s = space()
      const cr = await create(s, {})
      const params = { spaceId: s.spaceId, changeRequestId: cr.id }
      expect((await t.api.as(editor.token).call('mergeChangeRequest', { params })).status).toBe(403)
      expect((await t.api.as(reader.token).call('mergeChangeRequest', { params })).status).toBe(403)
      expect((await t.api.as(stranger.token).call('mergeChangeRequest', { params })).status).toBe(404)
      expect((await t.api.as(reader.token).call('updateChangeRequest', { params })).status).toBe(403)
      expect((await t.api.call('mergeChangeRequest', { params: { spaceId: s.spaceId, changeRequestId: 'nope' } })).status).toBe(404)

      t.service.store.repo(SpacesRepository).update(s.spaceId, {
        data: { mergeRules: { type: 'rules', rules: [{ rule: 'require_change_request_subject' }, { rule: 'require_up_to_date_change_request' }] } },
      })
      const noSubject = await t.api.as(reviewer.token).call('mergeChangeRequest', { params })
      expect(noSubject.status).toBe(400)
      expect(noSubject.body.error.message).toContain('subject')
      await t.api.call('updateChangeRequestById', { params, body: { subject: 'Now with a subject' } })
      editSpaceDirectly(t.service, s.spaceId, [{ operation: 'delete_page', page: s.pages.faq }])
      const outdated = await t.api.as(reviewer.token).call('mergeChangeRequest', { params })
      expect(outdated.status).toBe(400)
      expect(outdated.body.error.message).toContain('updated')
      expect((await t.api.call('getChangeRequestById', { params })).body.status).toBe('draft')
      await t.api.call('updateChangeRequest', { params })
      expect((await t.api.as(reviewer.token).call('mergeChangeRequest', { params })).body.result).toBe('merge')
    })

    it('review-based rules cannot pass here, except for users allowed to bypass', async () => {
      const s = space()
      const cr = await create(s)
      const params = { spaceId: s.spaceId, changeRequestId: cr.id }
      t.service.store.repo(SpacesRepository).update(s.spaceId, {
        data: { mergeRules: { type: 'rules', rules: [{ rule: 'require_at_least_one_approved_review' }, { rule: 'allow_bypass', users: [t.service.ownerId] }] } },
      })
      const denied = await t.api.as(reviewer.token).call('mergeChangeRequest', { params })
      expect(denied.status).toBe(400)
      expect(denied.body.error.message).toContain('review')
      expect((await t.api.call('mergeChangeRequest', { params })).body.result).toBe('merge')
    })
  })

  describe('changes and PDF', () => {
    it('lists the semantic changes of a change request', async () => {
      const s = space()
      const cr = await create(s)
      await write(s, cr, [
        { operation: 'insert_page', document: md('# Added\n') },
        { operation: 'update_page', page: s.pages.guide, title: 'Guide renamed' },
        { operation: 'update_page', page: s.pages.home, into: s.pages.guide },
        { operation: 'delete_page', page: s.pages.faq },
        { operation: 'insert_files', files: [{ name: 'a.txt', contentType: 'text/plain', base64: Buffer.from('a').toString('base64') }] },
      ])
      const res = await t.api.call('getChangeRequestChanges', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, query: { limit: 50 } })
      const types = res.body.changes.map((c: { type: string }) => c.type)
      expect(types).toEqual(['page_created', 'page_moved', 'page_deleted', 'file_created'])
      const moved = res.body.changes[1]
      expect(moved).toMatchObject({ page: { id: s.pages.home }, parent: { after: { id: s.pages.guide } } })
      expect(res.body.changes[2].page).toMatchObject({ id: s.pages.faq, title: 'FAQ' })
      const limited = await t.api.call('getChangeRequestChanges', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, query: { limit: 1 } })
      expect(limited.body.changes).toHaveLength(1)
      expect(limited.body.more).toBe(res.body.changes.length - 1)
      expect((await t.api.raw('GET', `/spaces/${s.spaceId}/change-requests/${cr.id}/changes?limit=-1`)).status).toBe(400)
      expect((await t.api.call('getChangeRequestChanges', { params: { spaceId: s.spaceId, changeRequestId: 'nope' } })).status).toBe(404)
    })

    it('prints the change request as a PDF served at a signed URL', async () => {
      const s = space()
      const cr = await create(s, { subject: 'Printable' })
      await write(s, cr, [{ operation: 'update_page', page: s.pages.guide, document: md('# Guide\n\nPrinted (text) here.\n') }])
      const res = await t.api.as(reader.token).call('getChangeRequestPDF', { params: { spaceId: s.spaceId, changeRequestId: cr.id } })
      expect(res.body.url.startsWith(`${t.service.origin}/files/`)).toBe(true)
      const pdf = await fetch(res.body.url)
      expect(pdf.status).toBe(200)
      expect(pdf.headers.get('content-type')).toBe('application/pdf')
      const text = Buffer.from(await pdf.arrayBuffer()).toString('latin1')
      expect(text.startsWith('%PDF-1.4')).toBe(true)
      expect(text.trimEnd().endsWith('%%EOF')).toBe(true)
      expect(text).toContain('(Change request #1: Printable)')
      expect(text).toContain('(Guide)')
      expect(text).toContain('(Printed \\(text\\) here.)')

      const one = await t.api.call('getChangeRequestPDF', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, query: { page: s.pages.home, only: true } })
      const oneText = Buffer.from(await (await fetch(one.body.url)).arrayBuffer()).toString('latin1')
      expect(oneText).toContain('(Home)')
      expect(oneText).not.toContain('(Guide)')
      expect((await t.api.call('getChangeRequestPDF', { params: { spaceId: s.spaceId, changeRequestId: cr.id }, query: { page: 'nope' } })).status).toBe(404)
    })
  })
})

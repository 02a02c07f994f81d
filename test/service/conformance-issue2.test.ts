/**
 * Conformance of issue 2's families against the interface document and the published spec: the
 * protocol, bad input per family (nothing written, checked on the whole database), truthful
 * permissions and counters, and the content semantics a sync client relies on.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { allRoutes } from '../../src/main/service/api'
import { publishedSpec, specRegistry } from '../../src/main/service/spec/openapi-spec'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { arrangeOrg, expectError, HOSTILE_LIMITS, owner, person, snapshotDb, type Person } from '../support/fixtures'
import { startTestService, type ApiClient, type CallOptions, type TestService } from '../support/service'

type Case = [operationId: string, options: CallOptions, status: number]
type Schema = Record<string, unknown>

/** The operations of issue 2's families (the document's sections, plus GET /user). */
const ISSUE2_OPERATIONS = [
  'getAuthenticatedUser',
  'listOrganizationsForAuthenticatedUser', 'getOrganizationById', 'updateOrganizationById', 'joinOrganization', 'searchOrganizationContent',
  'getCollectionById', 'deleteCollectionById', 'updateCollectionById', 'listSpacesInCollectionById', 'moveCollection', 'transferCollection',
  'listCollectionsInOrganizationById', 'createCollection',
  'getSpaceById', 'deleteSpaceById', 'updateSpaceById', 'duplicateSpace', 'restoreSpace', 'moveSpace', 'transferSpace', 'listSpaceLinks',
  'listSpacesInOrganizationById', 'createSpace',
  'searchSpaceContent', 'getCurrentRevision', 'applyTemplateToSpace', 'listPages', 'listFiles', 'getFileById', 'listFileBacklinks', 'getPageById',
  'listPageLinks',
  'listChangeRequestsForSpace', 'createChangeRequest', 'getChangeRequestById', 'updateChangeRequestById', 'mergeChangeRequest',
  'updateChangeRequest', 'getChangeRequestPDF', 'listChangeRequestsForOrganization', 'updateChangeRequestContent',
  'getRevisionOfChangeRequestById', 'listPagesInChangeRequest', 'listFilesInChangeRequestById', 'getFileInChangeRequestById',
  'listFileBacklinksInChangeRequest', 'getPageInChangeRequestById', 'listPageLinksInChangeRequest',
  'listCommentsInSpace', 'postCommentInSpace', 'getCommentInSpace', 'updateCommentInSpace', 'deleteCommentInSpace', 'postCommentReplyInSpace',
  'getCommentReplyInSpace', 'updateCommentReplyInSpace',
  'listCommentsInChangeRequest', 'postCommentInChangeRequest', 'getCommentInChangeRequest', 'updateCommentInChangeRequest',
  'deleteCommentInChangeRequest', 'listCommentRepliesInChangeRequest', 'postCommentReplyInChangeRequest',
  'inviteToSpace', 'listUserPermissionsInSpace', 'updateUserPermissionInSpace', 'removeUserFromSpace', 'listPermissionsAggregateInSpace',
]

/** Values of every JSON type, and strings a parser or a database might choke on. */
const JUNK: unknown[] = [null, 0, -1, 1e308, 'x', '', ' ', 'x'.repeat(5000), '\u0000', '../../etc', true, [], [null], {}, { a: { b: [] } }]

function resolveSchema(schema: unknown): Schema {
  const ref = (schema as { $ref?: string } | undefined)?.$ref
  if (!ref) return (schema ?? {}) as Schema
  const name = ref.split('/').pop() ?? ''
  return resolveSchema((publishedSpec.components.schemas as Record<string, unknown>)[name])
}

/** Top-level property names a body schema names, through allOf/oneOf/anyOf. */
function propertyNames(schema: unknown): string[] {
  const resolved = resolveSchema(schema)
  const names = new Set(Object.keys((resolved.properties ?? {}) as Schema))
  for (const key of ['allOf', 'oneOf', 'anyOf']) for (const sub of (resolved[key] ?? []) as unknown[]) propertyNames(sub).forEach((n) => names.add(n))
  return [...names]
}

describe('issue 2 conformance', () => {
  let t: TestService
  let admin: Person
  let reader: Person // organization role read
  let commenter: Person // organization role comment
  let editor: Person // organization role edit
  let reviewer: Person // organization role review
  let creator: Person // organization role create
  let stranger: Person // not a member
  let orgId: string
  let otherOrgId: string

  const store = () => t.service.store

  const createSpace = async (body: Record<string, unknown> = {}, api: ApiClient = t.api) => {
    const res = await api.call('createSpace', { params: { organizationId: orgId }, body })
    expect(res.status).toBe(201)
    return res.body as { id: string; revision: string; title: string }
  }
  const createCr = async (spaceId: string, body: Record<string, unknown> = { subject: 'Edits' }, api: ApiClient = t.api) => {
    const res = await api.call('createChangeRequest', { params: { spaceId }, body })
    expect(res.status).toBe(201)
    return res.body as { id: string; number: number; revision: string }
  }
  const write = async (spaceId: string, changeRequestId: string, changes: unknown[], api: ApiClient = t.api) => {
    const res = await api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId }, query: { compat: false }, body: { changes } })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    return res.body as { changeRequest: { revision: string }; changes: Array<{ object: string; ref?: string; page: { id: string } | string }> }
  }
  const getSpace = async (spaceId: string, api: ApiClient = t.api) => (await api.call('getSpaceById', { params: { spaceId } })).body

  /** Each case answers its status with the error body, and the database is the same afterwards. */
  const expectRejectedUnchanged = async (cases: Case[], api: ApiClient = t.api) => {
    const before = snapshotDb(store())
    for (const [op, options, status] of cases) {
      expectError(await api.call(op, options), status, `${op} ${JSON.stringify(options)}`)
    }
    expect(snapshotDb(store())).toEqual(before)
  }

  const hostileLimits = (op: string, options: CallOptions): Case[] =>
    HOSTILE_LIMITS.map((limit): Case => [op, { ...options, query: { ...options.query, limit } }, 400])

  beforeAll(async () => {
    t = await startTestService()
    admin = owner(t)
    reader = person(t, 'Rita')
    commenter = person(t, 'Cole')
    editor = person(t, 'Eddie')
    reviewer = person(t, 'Rev')
    creator = person(t, 'Cora')
    stranger = person(t, 'Stan')
    orgId = arrangeOrg(t, [
      [reader, 'read'],
      [commenter, 'comment'],
      [editor, 'edit'],
      [reviewer, 'review'],
      [creator, 'create'],
    ])
    otherOrgId = arrangeOrg(t, [], 'Other org')
  })
  afterAll(() => t.close())

  it('implements every operation of the families, each routed by its operationId', () => {
    const routed = new Set(allRoutes.map((route) => route.operationId))
    expect(ISSUE2_OPERATIONS.filter((op) => !routed.has(op))).toEqual([])
    for (const op of ISSUE2_OPERATIONS) expect(() => specRegistry().operation(op)).not.toThrow()
  })

  describe('protocol', () => {
    it('answers 415 to a body that is not JSON and 400 to malformed JSON, writing nothing', async () => {
      const before = snapshotDb(store())
      const path = `/orgs/${orgId}/collections`
      const plain = await t.api.raw('POST', path, 'title=x', t.service.token, { 'Content-Type': 'text/plain' })
      expectError(plain, 415)
      const form = await t.api.raw('POST', path, 'title=x', t.service.token, { 'Content-Type': 'application/x-www-form-urlencoded' })
      expectError(form, 415)
      expectError(await t.api.raw('POST', path, '{"title": "x"', t.service.token), 400)
      expectError(await t.api.raw('POST', path, '"just a string"', t.service.token), 400)
      expectError(await t.api.raw('PATCH', `/orgs/${orgId}`, '[]', t.service.token), 400)
      expect(snapshotDb(store())).toEqual(before)
    })

    it('answers 400 when a required body is missing', async () => {
      const space = await createSpace()
      const before = snapshotDb(store())
      expectError(await t.api.raw('PATCH', `/spaces/${space.id}`), 400)
      expectError(await t.api.raw('POST', `/spaces/${space.id}/transfer`), 400)
      expect(snapshotDb(store())).toEqual(before)
    })

    it('answers 400, not 500, to a malformed percent-encoding in the path', async () => {
      expectError(await t.api.raw('GET', '/spaces/%E0%A4%A'), 400)
      expectError(await t.api.raw('GET', '/orgs/%ZZ'), 400)
    })

    it('answers 401 on every family without a token or with a wrong one', async () => {
      const space = await createSpace()
      const paths = [`/orgs`, `/orgs/${orgId}`, `/orgs/${orgId}/collections`, `/spaces/${space.id}`, `/spaces/${space.id}/content`, `/spaces/${space.id}/change-requests`, `/spaces/${space.id}/comments`, `/spaces/${space.id}/permissions/users`, `/spaces/${space.id}/links`]
      for (const path of paths) {
        for (const token of [null, 'not-a-token']) {
          const res = await t.api.raw('GET', path, undefined, token)
          expectError(res, 401, path)
        }
      }
      const before = snapshotDb(store())
      expectError(await t.api.raw('POST', `/orgs/${orgId}/spaces`, { title: 'Sneaky' }, null), 401)
      expectError(await t.api.raw('DELETE', `/spaces/${space.id}`, undefined, 'wrong'), 401)
      expect(snapshotDb(store())).toEqual(before)
    })

    it('page tokens are opaque: a forged or tampered token is 400, an issued one pages on', async () => {
      for (let i = 0; i < 3; i++) await createSpace({ title: `Paged ${i}` })
      const first = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId }, query: { limit: 1 } })
      expect(first.status).toBe(200)
      const token = first.body.next.page as string
      const second = await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId }, query: { limit: 1, page: token } })
      expect(second.status).toBe(200)
      expect(second.body.items[0].id).not.toBe(first.body.items[0].id)
      const forged = Buffer.from(JSON.stringify({ o: 2 })).toString('base64url')
      for (const page of [forged, 'garbage', `${token}x`, token.slice(1), Buffer.from(JSON.stringify({ o: -1 })).toString('base64url')]) {
        expectError(await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId }, query: { limit: 1, page } }), 400, page)
      }
    })
  })
  describe('bad input changes nothing, per family', () => {
    it('organizations', async () => {
      const params = { organizationId: orgId }
      await expectRejectedUnchanged([
        ...hostileLimits('listOrganizationsForAuthenticatedUser', {}),
        ['getOrganizationById', { params: { organizationId: 'missing' } }, 404],
        ['updateOrganizationById', { params, body: { title: 'x' } }, 400],
        ['updateOrganizationById', { params, body: { title: 'x'.repeat(256) } }, 400],
        ['updateOrganizationById', { params, body: { title: 42 } }, 400],
        ['updateOrganizationById', { params, body: { hostname: 'ab' } }, 400],
        ['updateOrganizationById', { params, body: { hostname: 'h'.repeat(33) } }, 400],
        ['updateOrganizationById', { params, body: { defaultRole: 'owner' } }, 400],
        ['updateOrganizationById', { params, body: { emailDomains: 'example.com' } }, 400],
        ['updateOrganizationById', { params, body: { logo: `https://example.com/${'l'.repeat(2048)}` } }, 400],
        ['updateOrganizationById', { params, body: { inviteLinks: 'yes' } }, 400],
        ['updateOrganizationById', { params, body: { mergeRules: { type: 'nonsense' } } }, 400],
        ['updateOrganizationById', { params: { organizationId: 'missing' }, body: { title: 'Fine title' } }, 404],
        ['joinOrganization', { params: { organizationId: 'missing' } }, 404],
        ['searchOrganizationContent', { params, query: {} }, 400],
        ['searchOrganizationContent', { params, query: { query: 'q'.repeat(513) } }, 400],
        ['searchOrganizationContent', { params: { organizationId: 'missing' }, query: { query: 'x' } }, 404],
        ...hostileLimits('searchOrganizationContent', { params, query: { query: 'x' } }),
      ])
      await expectRejectedUnchanged([['updateOrganizationById', { params, body: { title: 'Fine title' } }, 403]], editor.api)
      await expectRejectedUnchanged([
        ['updateOrganizationById', { params, body: { title: 'Fine title' } }, 404],
        ['getOrganizationById', { params }, 404],
        // The spec's answer to a domain the organization does not allow.
        ['joinOrganization', { params }, 400],
      ], stranger.api)
    })

    it('collections', async () => {
      const parent = (await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Parent' } })).body
      const params = { collectionId: parent.id }
      await expectRejectedUnchanged([
        ['createCollection', { params: { organizationId: orgId }, body: { title: 't'.repeat(51) } }, 400],
        ['createCollection', { params: { organizationId: orgId }, body: { title: 7 } }, 400],
        ['createCollection', { params: { organizationId: orgId }, body: { title: 'Orphan', parent: 'missing' } }, 400],
        ['createCollection', { params: { organizationId: 'missing' }, body: { title: 'Lost' } }, 404],
        ['getCollectionById', { params: { collectionId: 'missing' } }, 404],
        ['updateCollectionById', { params, body: { title: 't'.repeat(51) } }, 400],
        ['updateCollectionById', { params, body: { description: 'd'.repeat(101) } }, 400],
        ['updateCollectionById', { params, body: { defaultLevel: 'owner' } }, 400],
        ['updateCollectionById', { params: { collectionId: 'missing' }, body: { title: 'x' } }, 404],
        ['moveCollection', { params, body: { parent: 12 } }, 400],
        ['moveCollection', { params, body: { parent: 'missing' } }, 400],
        ['moveCollection', { params, body: { parent: parent.id } }, 400],
        ['moveCollection', { params, body: { position: { before: { type: 'space', space: 'missing' } } } }, 400],
        ['moveCollection', { params: { collectionId: 'missing' }, body: { parent: null } }, 404],
        ['transferCollection', { params, body: {} }, 400],
        ['transferCollection', { params, body: { organization: 3 } }, 400],
        ['transferCollection', { params, body: { organization: 'missing' } }, 404],
        ['transferCollection', { params: { collectionId: 'missing' }, body: { organization: otherOrgId } }, 404],
        ['listSpacesInCollectionById', { params: { collectionId: 'missing' } }, 404],
        ...hostileLimits('listSpacesInCollectionById', { params }),
        ...hostileLimits('listCollectionsInOrganizationById', { params: { organizationId: orgId } }),
        ['listCollectionsInOrganizationById', { params: { organizationId: orgId }, query: { nested: 'maybe' } }, 400],
        ['listCollectionsInOrganizationById', { params: { organizationId: 'missing' } }, 404],
      ])
      await expectRejectedUnchanged([
        ['createCollection', { params: { organizationId: orgId }, body: { title: 'Nope' } }, 403],
        ['updateCollectionById', { params, body: { title: 'Nope' } }, 403],
        ['deleteCollectionById', { params }, 403],
        ['moveCollection', { params, body: { parent: null, position: {} } }, 403],
      ], reader.api)
    })

    it('spaces', async () => {
      const space = await createSpace({ title: 'Bad input target' })
      const params = { spaceId: space.id }
      await expectRejectedUnchanged([
        ['createSpace', { params: { organizationId: orgId }, body: { title: 't'.repeat(51) } }, 400],
        ['createSpace', { params: { organizationId: orgId }, body: { title: ['x'] } }, 400],
        ['createSpace', { params: { organizationId: orgId }, body: { emoji: 'not an emoji' } }, 400],
        ['createSpace', { params: { organizationId: orgId }, body: { parent: 'missing' } }, 400],
        ['createSpace', { params: { organizationId: orgId }, body: { editMode: 'frozen' } }, 400],
        ['createSpace', { params: { organizationId: 'missing' }, body: {} }, 404],
        ['getSpaceById', { params: { spaceId: 'missing' } }, 404],
        ['updateSpaceById', { params, body: { title: 't'.repeat(51) } }, 400],
        ['updateSpaceById', { params, body: { editMode: 'frozen' } }, 400],
        ['updateSpaceById', { params, body: { defaultLevel: 'owner' } }, 400],
        ['updateSpaceById', { params, body: { emoji: 'nope' } }, 400],
        ['updateSpaceById', { params, body: { mergeRules: { type: 'rules', rules: [{ rule: 'require_specific_reviewers', users: ['missing'] }] } } }, 400],
        ['updateSpaceById', { params: { spaceId: 'missing' }, body: { title: 'x' } }, 404],
        ['restoreSpace', { params: { spaceId: 'missing' } }, 404],
        ['restoreSpace', { params }, 400],
        ['duplicateSpace', { params: { spaceId: 'missing' } }, 404],
        ['moveSpace', { params, body: { parent: 5 } }, 400],
        ['moveSpace', { params, body: { parent: 'missing' } }, 400],
        ['moveSpace', { params, body: { position: { after: { type: 'collection', collection: 'missing' } } } }, 400],
        ['moveSpace', { params: { spaceId: 'missing' }, body: { parent: null } }, 404],
        ['transferSpace', { params, body: {} }, 400],
        // The document's schema for transfer names one field and forbids others.
        ['transferSpace', { params, body: { organization: otherOrgId, keepCollection: true } }, 400],
        ['transferSpace', { params, body: { organization: '' } }, 400],
        ['transferSpace', { params, body: { organization: 'missing' } }, 404],
        ['transferSpace', { params: { spaceId: 'missing' }, body: { organization: otherOrgId } }, 404],
        ...hostileLimits('listSpacesInOrganizationById', { params: { organizationId: orgId } }),
        ['listSpacesInOrganizationById', { params: { organizationId: 'missing' } }, 404],
      ])
      await expectRejectedUnchanged([
        ['createSpace', { params: { organizationId: orgId }, body: { title: 'Nope' } }, 403],
        ['updateSpaceById', { params, body: { title: 'Nope' } }, 403],
        ['deleteSpaceById', { params }, 403],
        ['duplicateSpace', { params }, 403],
        ['moveSpace', { params, body: { parent: null } }, 403],
        ['transferSpace', { params, body: { organization: otherOrgId } }, 403],
      ], reader.api)
      await expectRejectedUnchanged([
        ['getSpaceById', { params }, 404],
        ['updateSpaceById', { params, body: { title: 'Nope' } }, 404],
        ['restoreSpace', { params }, 404],
      ], stranger.api)
    })

    it('space content', async () => {
      const space = await createSpace({ title: 'Content bad input' })
      const cr = await createCr(space.id)
      const written = await write(space.id, cr.id, [{ operation: 'insert_page', document: { markdown: '# Page\n\nText.\n' } }])
      const pageId = (written.changes[0].page as { id: string }).id
      const params = { spaceId: space.id }
      await expectRejectedUnchanged([
        ['getCurrentRevision', { params: { spaceId: 'missing' } }, 404],
        ['getCurrentRevision', { params, query: { metadata: 'perhaps' } }, 400],
        ['listPages', { params, query: { computed: 'perhaps' } }, 400],
        ...hostileLimits('listFiles', { params }),
        ['getFileById', { params: { ...params, fileId: 'missing' } }, 404],
        ['getPageById', { params: { ...params, pageId: 'missing' } }, 404],
        ['getPageById', { params: { ...params, pageId: pageId }, query: {} }, 404], // only in the change request
        ['getPageById', { params: { ...params, pageId: 'missing' }, query: { format: 'html' } }, 400],
        ['getPageById', { params: { ...params, pageId: 'missing' }, query: { evaluated: 'sometimes' } }, 400],
        ['listFileBacklinks', { params: { ...params, fileId: 'missing' } }, 404],
        ['listPageLinks', { params: { ...params, pageId: 'missing' } }, 404],
        ['listSpaceLinks', { params, query: { status: 'fine' } }, 400],
        ...hostileLimits('listSpaceLinks', { params }),
        ['listSpaceLinks', { params: { spaceId: 'missing' } }, 404],
        ['searchSpaceContent', { params, query: {} }, 400],
        ['searchSpaceContent', { params, query: { query: 'q'.repeat(513) } }, 400],
        ...hostileLimits('searchSpaceContent', { params, query: { query: 'page' } }),
        ['applyTemplateToSpace', { params, body: { id: 'no-such-template' } }, 400],
        ['applyTemplateToSpace', { params, body: { id: 5 } }, 400],
        ['applyTemplateToSpace', { params, body: { id: 'blank', changeRequestId: 'missing' } }, 404],
        ['applyTemplateToSpace', { params: { spaceId: 'missing' }, body: { id: 'blank' } }, 404],
      ])
      await expectRejectedUnchanged([['applyTemplateToSpace', { params, body: { id: 'blank' } }, 403]], reader.api)
      await expectRejectedUnchanged([['getCurrentRevision', { params }, 404], ['listPages', { params }, 404]], stranger.api)
    })

    it('change requests and their content', async () => {
      const space = await createSpace({ title: 'CR bad input' })
      const cr = await createCr(space.id)
      const params = { spaceId: space.id }
      const crParams = { ...params, changeRequestId: cr.id }
      const insert = (markdown: string) => ({ operation: 'insert_page', document: { markdown } })
      await expectRejectedUnchanged([
        ['createChangeRequest', { params, body: { subject: 's'.repeat(101) } }, 400],
        ['createChangeRequest', { params, body: { subject: 5 } }, 400],
        ['createChangeRequest', { params, body: { subject: 'T', template: { id: 'no-such-template' } } }, 400],
        ['createChangeRequest', { params: { spaceId: 'missing' }, body: { subject: 'x' } }, 404],
        ...hostileLimits('listChangeRequestsForSpace', { params }),
        ['listChangeRequestsForSpace', { params, query: { status: 'finished' } }, 400],
        ['listChangeRequestsForSpace', { params, query: { orderBy: 'size' } }, 400],
        ...hostileLimits('listChangeRequestsForOrganization', { params: { organizationId: orgId } }),
        ['listChangeRequestsForOrganization', { params: { organizationId: 'missing' } }, 404],
        ['getChangeRequestById', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ['getChangeRequestById', { params: { ...params, changeRequestId: '999' } }, 404],
        ['updateChangeRequestById', { params: crParams, body: { status: 'merged' } }, 400],
        ['updateChangeRequestById', { params: crParams, body: { subject: 's'.repeat(101) } }, 400],
        ['updateChangeRequestById', { params: crParams, body: { description: 'plain text' } }, 400],
        ['updateChangeRequestById', { params: { ...params, changeRequestId: 'missing' }, body: { subject: 'x' } }, 404],
        ['mergeChangeRequest', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ['updateChangeRequest', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ['getChangeRequestPDF', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: Array.from({ length: 51 }, () => insert('# P\n')) } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [{ operation: 'rename_page', page: 'x' }] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [{ operation: 'update_page', page: 'missing', title: 'x' }] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [insert('# Good\n'), { operation: 'delete_page', page: 'missing' }] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [{ operation: 'insert_page', document: { markdown: '# X\n' }, into: 'missing' }] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [{ operation: 'insert_files', files: [{ name: 'a.txt', base64: 'not base64 at all!' }] }] } }, 400],
        ['updateChangeRequestContent', { params: crParams, body: {} }, 400],
        ['updateChangeRequestContent', { params: { ...params, changeRequestId: 'missing' }, body: { changes: [insert('# X\n')] } }, 404],
        ['getRevisionOfChangeRequestById', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ['listPagesInChangeRequest', { params: { ...params, changeRequestId: 'missing' } }, 404],
        ...hostileLimits('listFilesInChangeRequestById', { params: crParams }),
        ['getFileInChangeRequestById', { params: { ...crParams, fileId: 'missing' } }, 404],
        ['getPageInChangeRequestById', { params: { ...crParams, pageId: 'missing' } }, 404],
        ['listFileBacklinksInChangeRequest', { params: { ...crParams, fileId: 'missing' } }, 404],
        ['listPageLinksInChangeRequest', { params: { ...crParams, pageId: 'missing' } }, 404],
      ])
      await expectRejectedUnchanged([
        ['createChangeRequest', { params, body: { subject: 'Nope' } }, 403],
        ['updateChangeRequestById', { params: crParams, body: { subject: 'Nope' } }, 403],
        ['updateChangeRequestContent', { params: crParams, body: { changes: [insert('# X\n')] } }, 403],
        ['mergeChangeRequest', { params: crParams }, 403],
        ['updateChangeRequest', { params: crParams }, 403],
      ], reader.api)
      await expectRejectedUnchanged([['mergeChangeRequest', { params: crParams }, 403]], editor.api)
      await expectRejectedUnchanged([['getChangeRequestById', { params: crParams }, 404], ['listChangeRequestsForSpace', { params }, 404]], stranger.api)
    })

    it('space and change request comments', async () => {
      const space = await createSpace({ title: 'Comment bad input' })
      const cr = await createCr(space.id)
      const comment = (await t.api.call('postCommentInSpace', { params: { spaceId: space.id }, body: { body: { markdown: 'First' } } })).body
      const crComment = (await t.api.call('postCommentInChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id }, body: { body: { markdown: 'On CR' } } })).body
      const params = { spaceId: space.id }
      const crParams = { ...params, changeRequestId: cr.id }
      await expectRejectedUnchanged([
        ['postCommentInSpace', { params, body: {} }, 400],
        ['postCommentInSpace', { params, body: { body: 'text' } }, 400],
        ['postCommentInSpace', { params, body: { body: { markdown: 5 } } }, 400],
        ['postCommentInSpace', { params, body: { body: { markdown: 'x'.repeat(100_001) } } }, 400],
        ['postCommentInSpace', { params, body: { body: { markdown: 'x' }, node: 'n'.repeat(257) } }, 400],
        ['postCommentInSpace', { params, body: { body: { markdown: 'x' }, page: 'missing' } }, 404],
        ['postCommentInSpace', { params: { spaceId: 'missing' }, body: { body: { markdown: 'x' } } }, 404],
        ...hostileLimits('listCommentsInSpace', { params }),
        ['listCommentsInSpace', { params, query: { order: 'sideways' } }, 400],
        ['listCommentsInSpace', { params, query: { status: 'pending' } }, 400],
        ['listCommentsInSpace', { params, query: { format: 'html' } }, 400],
        ['getCommentInSpace', { params: { ...params, commentId: 'missing' } }, 404],
        ['getCommentInSpace', { params: { ...params, commentId: crComment.id } }, 404],
        ['updateCommentInSpace', { params: { ...params, commentId: comment.id }, body: { resolved: 'yes' } }, 400],
        ['updateCommentInSpace', { params: { ...params, commentId: comment.id }, body: { addedReactions: 'x' } }, 400],
        ['updateCommentInSpace', { params: { ...params, commentId: comment.id }, body: { addedReactions: ['not-an-emoji'] } }, 400],
        ['updateCommentInSpace', { params: { ...params, commentId: 'missing' }, body: { resolved: true } }, 404],
        ['postCommentReplyInSpace', { params: { ...params, commentId: comment.id }, body: {} }, 400],
        ['postCommentReplyInSpace', { params: { ...params, commentId: 'missing' }, body: { body: { markdown: 'x' } } }, 404],
        ['getCommentReplyInSpace', { params: { ...params, commentId: comment.id, commentReplyId: 'missing' } }, 404],
        ['updateCommentReplyInSpace', { params: { ...params, commentId: comment.id, commentReplyId: 'missing' }, body: { body: { markdown: 'x' } } }, 404],
        ['postCommentInChangeRequest', { params: crParams, body: { body: { markdown: 'x' }, page: 'missing' } }, 404],
        ['postCommentInChangeRequest', { params: { ...params, changeRequestId: 'missing' }, body: { body: { markdown: 'x' } } }, 404],
        ...hostileLimits('listCommentsInChangeRequest', { params: crParams }),
        ['getCommentInChangeRequest', { params: { ...crParams, commentId: comment.id } }, 404],
        ['updateCommentInChangeRequest', { params: { ...crParams, commentId: crComment.id }, body: { body: { markdown: '' } } }, 400],
        ...hostileLimits('listCommentRepliesInChangeRequest', { params: { ...crParams, commentId: crComment.id } }),
        ['listCommentRepliesInChangeRequest', { params: { ...crParams, commentId: 'missing' } }, 404],
        ['postCommentReplyInChangeRequest', { params: { ...crParams, commentId: crComment.id }, body: { body: 3 } }, 400],
      ])
      await expectRejectedUnchanged([
        ['postCommentInSpace', { params, body: { body: { markdown: 'x' } } }, 403],
        ['postCommentReplyInSpace', { params: { ...params, commentId: comment.id }, body: { body: { markdown: 'x' } } }, 403],
        ['updateCommentInSpace', { params: { ...params, commentId: comment.id }, body: { resolved: true } }, 403],
        ['deleteCommentInSpace', { params: { ...params, commentId: comment.id } }, 403],
        ['postCommentInChangeRequest', { params: crParams, body: { body: { markdown: 'x' } } }, 403],
      ], reader.api)
      // A commenter may not edit or delete someone else's comment.
      await expectRejectedUnchanged([
        ['updateCommentInSpace', { params: { ...params, commentId: comment.id }, body: { body: { markdown: 'Hijacked' } } }, 403],
        ['deleteCommentInSpace', { params: { ...params, commentId: comment.id } }, 403],
      ], commenter.api)
      await expectRejectedUnchanged([['listCommentsInSpace', { params }, 404], ['getCommentInSpace', { params: { ...params, commentId: comment.id } }, 404]], stranger.api)
    })

    it('space users', async () => {
      const space = await createSpace({ title: 'Users bad input' })
      const params = { spaceId: space.id }
      await t.api.call('inviteToSpace', { params, body: { role: 'read', users: [stranger.id] } })
      await expectRejectedUnchanged([
        ['inviteToSpace', { params, body: {} }, 400],
        ['inviteToSpace', { params, body: { role: 'owner', users: [stranger.id] } }, 400],
        ['inviteToSpace', { params, body: { role: 'read', users: stranger.id } }, 400],
        ['inviteToSpace', { params, body: { role: 'read', users: ['missing'] } }, 404],
        ['inviteToSpace', { params, body: { role: 'read', teams: ['missing'] } }, 404],
        ['inviteToSpace', { params: { spaceId: 'missing' }, body: { role: 'read', users: [stranger.id] } }, 404],
        ...hostileLimits('listUserPermissionsInSpace', { params }),
        ['updateUserPermissionInSpace', { params: { ...params, userId: stranger.id }, body: {} }, 400],
        ['updateUserPermissionInSpace', { params: { ...params, userId: stranger.id }, body: { role: 'owner' } }, 400],
        ['updateUserPermissionInSpace', { params: { ...params, userId: reader.id }, body: { role: 'edit' } }, 404],
        ...hostileLimits('listPermissionsAggregateInSpace', { params }),
        ['listPermissionsAggregateInSpace', { params, query: { role: 'owner' } }, 400],
      ])
      await expectRejectedUnchanged([
        ['inviteToSpace', { params, body: { role: 'admin', users: [reader.id] } }, 403],
        ['updateUserPermissionInSpace', { params: { ...params, userId: stranger.id }, body: { role: 'admin' } }, 403],
        ['removeUserFromSpace', { params: { ...params, userId: stranger.id } }, 403],
      ], reader.api)
    })
  })
  describe('the Errors table rows of these families', () => {
    it('a move or transfer that changes nothing is "no update" (409); a space in a collection cannot be transferred (412)', async () => {
      const collection = (await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Holder' } })).body
      const inside = await createSpace({ title: 'Inside', parent: collection.id })
      await expectRejectedUnchanged([
        ['moveSpace', { params: { spaceId: inside.id }, body: { parent: collection.id } }, 409],
        ['transferSpace', { params: { spaceId: inside.id }, body: { organization: orgId } }, 409],
        ['transferSpace', { params: { spaceId: inside.id }, body: { organization: otherOrgId } }, 412],
        ['moveCollection', { params: { collectionId: collection.id }, body: { parent: null } }, 409],
        ['transferCollection', { params: { collectionId: collection.id }, body: { organization: orgId } }, 409],
      ])
    })

    it('deleting a comment or a space user that is already absent is a 204 success', async () => {
      const space = await createSpace({ title: 'Absent things' })
      const cr = await createCr(space.id)
      const before = snapshotDb(store())
      expect((await t.api.call('deleteCommentInSpace', { params: { spaceId: space.id, commentId: 'missing' } })).status).toBe(204)
      expect((await t.api.call('deleteCommentInChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id, commentId: 'missing' } })).status).toBe(204)
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: space.id, userId: stranger.id } })).status).toBe(204)
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: space.id, userId: 'missing' } })).status).toBe(204)
      expect((await t.api.call('deleteSpaceById', { params: { spaceId: 'missing' } })).status).toBe(204)
      expect((await t.api.call('deleteCollectionById', { params: { collectionId: 'missing' } })).status).toBe(204)
      expect(snapshotDb(store())).toEqual(before)
      await t.api.call('inviteToSpace', { params: { spaceId: space.id }, body: { role: 'read', users: [stranger.id] } })
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: space.id, userId: stranger.id } })).status).toBe(205)
      expect((await t.api.call('removeUserFromSpace', { params: { spaceId: space.id, userId: stranger.id } })).status).toBe(204)
    })
  })

  describe('counters stay true', () => {
    const counters = async (spaceId: string) => {
      const space = await getSpace(spaceId)
      return { comments: space.comments, changeRequests: space.changeRequests, open: space.changeRequestsOpen, draft: space.changeRequestsDraft }
    }

    it('changeRequests, changeRequestsOpen and changeRequestsDraft follow every status change and merge', async () => {
      const space = await createSpace({ title: 'Counted' })
      expect(await counters(space.id)).toEqual({ comments: 0, changeRequests: 0, open: 0, draft: 0 })
      const first = await createCr(space.id)
      expect(await counters(space.id)).toMatchObject({ changeRequests: 1, open: 0, draft: 1 })
      await t.api.call('updateChangeRequestById', { params: { spaceId: space.id, changeRequestId: first.id }, body: { status: 'open' } })
      expect(await counters(space.id)).toMatchObject({ changeRequests: 1, open: 1, draft: 0 })
      const second = await createCr(space.id, { subject: 'Second' })
      expect(await counters(space.id)).toMatchObject({ changeRequests: 2, open: 1, draft: 1 })
      await t.api.call('updateChangeRequestById', { params: { spaceId: space.id, changeRequestId: second.number }, body: { status: 'archived' } })
      expect(await counters(space.id)).toMatchObject({ changeRequests: 2, open: 1, draft: 0 })
      await write(space.id, first.id, [{ operation: 'insert_page', document: { markdown: '# Added\n' } }])
      expect((await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: first.id } })).body.result).toBe('merge')
      expect(await counters(space.id)).toMatchObject({ changeRequests: 2, open: 0, draft: 0 })
      await t.api.call('updateChangeRequestById', { params: { spaceId: space.id, changeRequestId: second.id }, body: { status: 'draft' } })
      expect(await counters(space.id)).toMatchObject({ changeRequests: 2, open: 0, draft: 1 })
      // A rejected request moves no counter.
      await t.api.call('createChangeRequest', { params: { spaceId: space.id }, body: { subject: 's'.repeat(101) } })
      expect(await counters(space.id)).toMatchObject({ changeRequests: 2, open: 0, draft: 1 })
      // Lists agree with the counters.
      const drafts = await t.api.call('listChangeRequestsForSpace', { params: { spaceId: space.id }, query: { status: 'draft' } })
      expect(drafts.body.count).toBe(1)
    })

    it('comments counts open comments on the space and on each change request, replies aside', async () => {
      const space = await createSpace({ title: 'Commented' })
      const cr = await createCr(space.id)
      const crCount = async () => (await t.api.call('getChangeRequestById', { params: { spaceId: space.id, changeRequestId: cr.id } })).body.comments
      const params = { spaceId: space.id }
      const a = (await commenter.api.call('postCommentInSpace', { params, body: { body: { markdown: 'A' } } })).body
      const b = (await t.api.call('postCommentInSpace', { params, body: { body: { markdown: 'B' } } })).body
      expect((await counters(space.id)).comments).toBe(2)
      await t.api.call('postCommentReplyInSpace', { params: { ...params, commentId: a.id }, body: { body: { markdown: 'reply' } } })
      expect((await counters(space.id)).comments).toBe(2)
      const onCr = (await t.api.call('postCommentInChangeRequest', { params: { ...params, changeRequestId: cr.id }, body: { body: { markdown: 'C' } } })).body
      expect(await crCount()).toBe(1)
      expect((await counters(space.id)).comments).toBe(2)
      await commenter.api.call('updateCommentInSpace', { params: { ...params, commentId: b.id }, body: { resolved: true } })
      expect((await counters(space.id)).comments).toBe(1)
      await t.api.call('updateCommentInSpace', { params: { ...params, commentId: b.id }, body: { resolved: false } })
      expect((await counters(space.id)).comments).toBe(2)
      expect((await commenter.api.call('deleteCommentInSpace', { params: { ...params, commentId: a.id } })).status).toBe(205)
      expect((await counters(space.id)).comments).toBe(1)
      await t.api.call('updateCommentInChangeRequest', { params: { ...params, changeRequestId: cr.number, commentId: onCr.id }, body: { resolved: true } })
      expect(await crCount()).toBe(0)
      const open = await t.api.call('listCommentsInSpace', { params, query: { status: 'open' } })
      expect(open.body.count).toBe((await counters(space.id)).comments)
    })
  })

  describe('revisions, merges and outdated', () => {
    it('every write makes a new revision on top of the last; old revisions never change', async () => {
      const space = await createSpace({ title: 'History' })
      const initial = (await t.api.call('getCurrentRevision', { params: { spaceId: space.id } })).body
      const cr = await createCr(space.id)
      expect(cr.revision).toBe(initial.id)
      const first = await write(space.id, cr.id, [{ operation: 'insert_page', ref: 'p', document: { markdown: '# One\n\nFirst.\n' } }])
      const pageId = (first.changes[0].page as { id: string }).id
      const r1 = first.changeRequest.revision
      expect(r1).not.toBe(initial.id)
      const second = await write(space.id, cr.id, [{ operation: 'update_page', page: pageId, document: { markdown: '# One\n\nSecond.\n' } }])
      const r2 = second.changeRequest.revision
      const revisionOf = async (revisionId: string) => (await t.api.call('getRevisionById', { params: { spaceId: space.id, revisionId } })).body
      const r1Json = await revisionOf(r1)
      expect(r1Json.parents).toEqual([initial.id])
      expect((await revisionOf(r2)).parents).toEqual([r1])
      // The space does not move until the merge.
      expect((await getSpace(space.id)).revision).toBe(initial.id)
      const merged = await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      expect(merged.body.result).toBe('merge')
      const after = await getSpace(space.id)
      expect(after.revision).toBe(merged.body.revision)
      const crAfter = (await t.api.call('getChangeRequestById', { params: { spaceId: space.id, changeRequestId: cr.id } })).body
      expect(crAfter.revisionMerged).toBe(merged.body.revision)
      expect(crAfter.outdated).toBe(false)
      const head = (await t.api.call('getCurrentRevision', { params: { spaceId: space.id } })).body
      expect(head.id).toBe(merged.body.revision)
      expect(head.parents).toEqual([initial.id, r2])
      // Older revisions read exactly as before, the stored trees included.
      expect(await revisionOf(initial.id)).toEqual(initial)
      expect(await revisionOf(r1)).toEqual(r1Json)
      const r1Page = await t.api.call('getPageInRevisionById', { params: { spaceId: space.id, revisionId: r1, pageId }, query: { format: 'markdown' } })
      expect(r1Page.body.markdown).toBe('# One\n\nFirst.\n')
      expect(store().repo(RevisionsRepository).get(r1)?.parents).toEqual([initial.id])
    })

    it('a change request behind the space reports outdated until updated', async () => {
      const space = await createSpace({ title: 'Moving target' })
      const behind = await createCr(space.id, { subject: 'Behind' })
      const ahead = await createCr(space.id, { subject: 'Ahead' })
      const outdated = async () => (await t.api.call('getChangeRequestById', { params: { spaceId: space.id, changeRequestId: behind.id } })).body.outdated
      expect(await outdated()).toBe(false)
      await write(space.id, ahead.id, [{ operation: 'insert_page', document: { markdown: '# Ahead\n' } }])
      expect(await outdated()).toBe(false)
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: ahead.id } })
      expect(await outdated()).toBe(true)
      const listed = await t.api.call('listChangeRequestsForSpace', { params: { spaceId: space.id }, query: { status: 'draft' } })
      expect(listed.body.items.find((cr: { id: string }) => cr.id === behind.id).outdated).toBe(true)
      // Writing content does not bring it up to date; only the update does.
      await write(space.id, behind.id, [{ operation: 'insert_page', document: { markdown: '# Behind\n' } }])
      expect(await outdated()).toBe(true)
      const updated = await t.api.call('updateChangeRequest', { params: { spaceId: space.id, changeRequestId: behind.number } })
      expect(updated.body.result).toBe('update')
      const cr = (await t.api.call('getChangeRequestById', { params: { spaceId: space.id, changeRequestId: behind.id } })).body
      expect(cr).toMatchObject({ outdated: false, revisionMergedAncestor: (await getSpace(space.id)).revision, revision: updated.body.revision })
      const titles = (await t.api.call('listPagesInChangeRequest', { params: { spaceId: space.id, changeRequestId: behind.id } })).body.pages.map((p: { title: string }) => p.title)
      expect([...titles].sort()).toEqual(['Ahead', 'Behind', 'Introduction'])
    })
  })

  describe('pages as Git Sync writes them', () => {
    it('git.path follows the Git Sync layout and git.oid is the blob id of the page markdown', async () => {
      const space = await createSpace({ title: 'Layout' })
      const cr = await createCr(space.id)
      const res = await write(space.id, cr.id, [
        { operation: 'insert_page', ref: 'guide', document: { markdown: '# Guide\n\nTop.\n' } },
        { operation: 'insert_page', ref: 'setup', into: 'guide', document: { markdown: '# Set up\n\nMiddle.\n' } },
        { operation: 'insert_page', ref: 'linux', into: 'setup', document: { markdown: '# Linux\n\nDeep.\n' } },
        { operation: 'insert_page', ref: 'faq', document: { markdown: '# FAQ\n' } },
      ])
      const ids = Object.fromEntries(res.changes.map((c) => [c.ref, (c.page as { id: string }).id]))
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      const pages = (await t.api.call('listPages', { params: { spaceId: space.id } })).body.pages
      const flat: Array<{ id: string; git: { path: string; oid: string }; markdown: string }> = []
      const walk = (list: typeof pages) => list.forEach((p: { pages: unknown[] }) => (flat.push(p as never), walk(p.pages)))
      walk(pages)
      const pathOf = (id: string) => flat.find((p) => p.id === id)?.git.path
      expect(flat[0].git.path).toBe('README.md')
      expect(pathOf(ids.guide)).toBe('guide/README.md')
      expect(pathOf(ids.setup)).toBe('guide/set-up/README.md')
      expect(pathOf(ids.linux)).toBe('guide/set-up/linux.md')
      expect(pathOf(ids.faq)).toBe('faq.md')
      for (const page of flat) {
        const markdown = (await t.api.call('getPageById', { params: { spaceId: space.id, pageId: page.id }, query: { format: 'markdown' } })).body
        expect(markdown.markdown).toBe(page.markdown)
        expect(page.git.oid).toBe(gitBlobOid(markdown.markdown))
        expect(markdown.git).toEqual(page.git)
        // The document format describes the same file.
        expect((await t.api.call('getPageById', { params: { spaceId: space.id, pageId: page.id } })).body.git).toEqual(page.git)
      }
      // A page that changed has a new oid; one that did not keeps its oid.
      const cr2 = await createCr(space.id)
      await write(space.id, cr2.id, [{ operation: 'update_page', page: ids.faq, document: { markdown: '# FAQ\n\nNow with answers.\n' } }])
      const inCr = (await t.api.call('getRevisionOfChangeRequestById', { params: { spaceId: space.id, changeRequestId: cr2.id } })).body
      const oidIn = (list: Array<{ id: string; git: { oid: string }; pages: unknown[] }>, id: string): string | undefined => {
        for (const p of list) {
          if (p.id === id) return p.git.oid
          const found = oidIn(p.pages as typeof list, id)
          if (found) return found
        }
        return undefined
      }
      expect(oidIn(inCr.pages, ids.faq)).toBe(gitBlobOid('# FAQ\n\nNow with answers.\n'))
      expect(oidIn(inCr.pages, ids.linux)).toBe(flat.find((p) => p.id === ids.linux)?.git.oid)
    })

    it('front matter sets metadata, the leading H1 sets the title and is not repeated in the body', async () => {
      const space = await createSpace({ title: 'Front matter' })
      const cr = await createCr(space.id)
      const markdown = '---\ndescription: What this page is about\nhidden: true\n---\n\n# Real title\n\nBody text.\n'
      const res = await write(space.id, cr.id, [{ operation: 'insert_page', document: { markdown } }])
      const pageId = (res.changes[0].page as { id: string }).id
      const at = { spaceId: space.id, changeRequestId: cr.id, pageId }
      const page = (await t.api.call('getPageInChangeRequestById', { params: at, query: { format: 'markdown' } })).body
      expect(page).toMatchObject({ title: 'Real title', description: 'What this page is about', hidden: true, slug: 'real-title' })
      expect(page.markdown).toBe(markdown)
      expect(page.markdown.match(/^# Real title$/gm)).toHaveLength(1)
      const document = (await t.api.call('getPageInChangeRequestById', { params: at })).body.document
      expect(JSON.stringify(document)).not.toContain('Real title')
      expect(JSON.stringify(document)).toContain('Body text.')
      // Front matter in an update changes the metadata; a new H1 renames the page.
      await write(space.id, cr.id, [{ operation: 'update_page', page: pageId, document: { markdown: '---\ndescription: Changed\n---\n\n# Renamed\n\nBody text.\n' } }])
      const updated = (await t.api.call('getPageInChangeRequestById', { params: at, query: { format: 'markdown' } })).body
      expect(updated).toMatchObject({ title: 'Renamed', description: 'Changed', hidden: false })
      expect(updated.markdown).toBe('---\ndescription: Changed\n---\n\n# Renamed\n\nBody text.\n')
    })

    it('GitBook blocks survive a write, a merge and a read of the space byte for byte', async () => {
      const blocks = [
        '# Blocks',
        '',
        '{% hint style="warning" %}',
        'Careful with *stars* and \\_escapes\\_ and `{% raw %}` text.',
        '{% endhint %}',
        '',
        '{% tabs %}',
        '{% tab title="macOS" %}',
        '```bash',
        'brew install quire',
        '```',
        '{% endtab %}',
        '{% endtabs %}',
        '',
        '{% code title="config.yaml" overflow="wrap" lineNumbers="true" %}',
        '```yaml',
        'key: value',
        '```',
        '{% endcode %}',
        '',
        '{% content-ref url="other.md" %}',
        '[other.md](other.md)',
        '{% endcontent-ref %}',
        '',
        '<figure><img src=".gitbook/assets/missing.png" alt=""><figcaption><p>A caption</p></figcaption></figure>',
        '',
        '<details>',
        '',
        '<summary>More</summary>',
        '',
        'Hidden text.',
        '',
        '</details>',
        '',
        '$$',
        'E = mc^2',
        '$$',
        '',
        '* a bullet',
        '* another_bullet',
        '',
      ].join('\n')
      const space = await createSpace({ title: 'Blocks' })
      const cr = await createCr(space.id)
      const res = await write(space.id, cr.id, [{ operation: 'insert_page', document: { markdown: blocks } }])
      const pageId = (res.changes[0].page as { id: string }).id
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      const page = (await t.api.call('getPageById', { params: { spaceId: space.id, pageId }, query: { format: 'markdown' } })).body
      expect(Buffer.from(page.markdown).equals(Buffer.from(blocks))).toBe(true)
      expect(page.git.oid).toBe(gitBlobOid(blocks))
      // Writing the same bytes back changes nothing: same oid in the next revision.
      const cr2 = await createCr(space.id)
      await write(space.id, cr2.id, [{ operation: 'update_page', page: pageId, document: { markdown: page.markdown } }])
      const again = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: space.id, changeRequestId: cr2.id, pageId }, query: { format: 'markdown' } })).body
      expect(again.markdown).toBe(blocks)
      expect(again.git.oid).toBe(page.git.oid)
    })
  })

  describe('link reports', () => {
    it('are computed from the content: ok, broken and in-app targets with honest stats', async () => {
      const space = await createSpace({ title: 'Linked' })
      const cr = await createCr(space.id)
      const png = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAIAAACQd1PeAAAADElEQVR4nGP4z8AAAAMBAQDJ/pLvAAAAAElFTkSuQmCC', 'base64')
      const res = await write(space.id, cr.id, [
        { operation: 'insert_files', files: [{ ref: 'img', name: 'pixel.png', contentType: 'image/png', base64: png.toString('base64') }] },
        { operation: 'insert_page', ref: 'target', document: { markdown: '# Target\n\n## Section\n' } },
        {
          operation: 'insert_page',
          ref: 'source',
          document: {
            markdown: [
              '# Source',
              '',
              '[to target](target.md) and [again](target.md) and [anchor](target.md#section)',
              '[gone](nowhere.md) and ![pixel](.gitbook/assets/pixel.png) and ![lost](.gitbook/assets/lost.png)',
              `[external](https://example.com/docs) and [app](${t.service.origin}/app/spaces/${space.id})`,
              '',
            ].join('\n'),
          },
        },
      ])
      const sourceId = res.changes.find((c) => c.ref === 'source')?.page as { id: string }
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      const report = (await t.api.call('listSpaceLinks', { params: { spaceId: space.id }, query: { limit: 1000 } })).body
      const byStatus = (status: string) => report.items.filter((i: { status: string }) => i.status === status)
      expect(report.stats).toEqual({ total: report.count, broken: { total: byStatus('broken').length, changeRequest: 0 } })
      expect(report.count).toBe(report.items.length)
      expect(byStatus('broken').length).toBe(2)
      expect(byStatus('in-app').length).toBe(1)
      expect(byStatus('ok').length).toBe(4)
      const kinds = byStatus('ok').map((i: { targetReference: { kind: string } }) => i.targetReference.kind).sort()
      expect(kinds).toEqual(['anchor', 'file', 'page', 'url'])
      for (const item of report.items) expect(item.locationReferences).toEqual([expect.objectContaining({ kind: 'page', page: sourceId.id, space: space.id })])
      const broken = (await t.api.call('listSpaceLinks', { params: { spaceId: space.id }, query: { status: 'broken' } })).body
      expect(broken.count).toBe(2)
      expect(broken.stats).toEqual(report.stats)
      // A change request that breaks one more link is counted in stats.broken.changeRequest.
      const cr2 = await createCr(space.id)
      await write(space.id, cr2.id, [{ operation: 'insert_page', document: { markdown: '# New\n\n[bad](missing-page.md) [old bad](nowhere.md)\n' } }])
      const withCr = (await t.api.call('listSpaceLinks', { params: { spaceId: space.id } })).body
      expect(withCr.stats.broken).toEqual({ total: 2, changeRequest: 1 })
      const pageReport = (await t.api.call('listPageLinks', { params: { spaceId: space.id, pageId: sourceId.id } })).body
      expect(pageReport.count).toBe(report.count)
    })
  })

  describe('files and references', () => {
    it('files get Git Sync asset paths, clashing names suffixed, and pages refer to them by ./<ref> in the batch', async () => {
      const space = await createSpace({ title: 'Assets' })
      const cr = await createCr(space.id)
      const bytes = (text: string) => Buffer.from(text).toString('base64')
      const res = await t.api.call('updateChangeRequestContent', {
        params: { spaceId: space.id, changeRequestId: cr.id },
        query: { compat: false },
        body: {
          changes: [
            { operation: 'insert_files', files: [{ ref: 'a', name: 'notes.txt', contentType: 'text/plain', base64: bytes('first') }, { ref: 'b', name: 'notes.txt', contentType: 'text/plain', base64: bytes('second') }] },
            { operation: 'insert_page', ref: 'parent', document: { markdown: '# Parent\n\n[first](./a)\n' } },
            { operation: 'insert_page', ref: 'child', into: 'parent', document: { markdown: '# Child\n\n[second](./b)\n\n{% file src="./a" %}\n' } },
          ],
        },
      })
      expect(res.status).toBe(200)
      const files = res.body.insertedFiles as Array<{ id: string; size: number; git: { path: string; oid: string } }>
      expect(files.map((f) => f.git.path)).toEqual(['.gitbook/assets/notes.txt', '.gitbook/assets/notes (1).txt'])
      expect(files.map((f) => f.git.oid)).toEqual([gitBlobOid(Buffer.from('first')), gitBlobOid(Buffer.from('second'))])
      expect(files.map((f) => f.size)).toEqual([5, 6])
      const child = (res.body.changes as Array<{ ref?: string; page: { id: string } }>).find((c) => c.ref === 'child')?.page.id ?? ''
      const markdown = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: space.id, changeRequestId: cr.id, pageId: child }, query: { format: 'markdown' } })).body.markdown
      // The child lives in parent/, so the assets are one level up, written as Git Sync writes them.
      expect(markdown).toContain('[second](<../.gitbook/assets/notes (1).txt>)')
      expect(markdown).toContain('{% file src="../.gitbook/assets/notes.txt" %}')
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      const report = (await t.api.call('listSpaceLinks', { params: { spaceId: space.id } })).body
      expect(report.stats.broken.total).toBe(0)
      expect(report.items.map((i: { status: string; targetReference: { kind: string; file?: string } }) => [i.status, i.targetReference.kind, i.targetReference.file]).sort()).toEqual(
        [['ok', 'file', files[0].id], ['ok', 'file', files[1].id]].sort(),
      )
      const backlinks = (await t.api.call('listFileBacklinks', { params: { spaceId: space.id, fileId: files[0].id } })).body
      expect(backlinks.count).toBe(2)
    })
  })

  describe('rate limit headers', () => {
    it('come with every response, errors included', async () => {
      const limited = await startTestService({ rateLimitPerMinute: 100 })
      try {
        const responses = [
          await limited.api.raw('GET', '/user'),
          await limited.api.raw('GET', '/user', undefined, null),
          await limited.api.raw('GET', '/orgs/missing'),
          await limited.api.raw('GET', '/orgs/%ZZ'),
          await limited.api.raw('GET', '/orgs?limit=5000'),
          await limited.api.raw('POST', '/orgs/x/collections', 'x', limited.service.token, { 'Content-Type': 'text/plain' }),
        ]
        for (const res of responses) {
          expect(res.headers.get('x-ratelimit-limit'), String(res.status)).toBe('100')
          expect(res.headers.get('x-ratelimit-remaining'), String(res.status)).not.toBeNull()
          expect(res.headers.get('x-ratelimit-reset'), String(res.status)).not.toBeNull()
        }
      } finally {
        await limited.close()
      }
    })
  })

  describe('permissions flags tell the truth', () => {
    const roles: Array<[string, () => Person]> = [
      ['read', () => reader],
      ['comment', () => commenter],
      ['edit', () => editor],
      ['review', () => reviewer],
      ['create', () => creator],
      ['admin', () => admin],
    ]

    it('on a space: each flag matches what the operation answers', async () => {
      for (const [role, who] of roles) {
        const space = await createSpace({ title: `Perm ${role}` })
        const cr = await createCr(space.id)
        await write(space.id, cr.id, [{ operation: 'insert_page', document: { markdown: '# Change\n' } }])
        const api = who().api
        const flags = (await getSpace(space.id, api)).permissions
        const params = { spaceId: space.id }
        const allowed = (status: number) => status !== 403
        expect(flags.view, role).toBe(true)
        expect(allowed((await api.call('createChangeRequest', { params, body: { subject: 'x' } })).status), `${role} edit`).toBe(flags.edit)
        expect(allowed((await api.call('postCommentInSpace', { params, body: { body: { markdown: 'x' } } })).status), `${role} comment`).toBe(flags.comment)
        expect(allowed((await api.call('mergeChangeRequest', { params: { ...params, changeRequestId: cr.id } })).status), `${role} merge`).toBe(flags.merge)
        expect(allowed((await api.call('updateSpaceById', { params, body: { language: 'fr' } })).status), `${role} admin`).toBe(flags.admin)
        expect(allowed((await api.call('inviteToSpace', { params, body: { role: 'read', users: [stranger.id] } })).status), `${role} admin invite`).toBe(flags.admin)
      }
    })

    it('on a locked space nobody may edit or merge, and the flags say so', async () => {
      const space = await createSpace({ title: 'Locked' })
      const cr = await createCr(space.id)
      await t.api.call('updateSpaceById', { params: { spaceId: space.id }, body: { editMode: 'locked' } })
      for (const [role, who] of roles) {
        const api = who().api
        const flags = (await getSpace(space.id, api)).permissions
        expect(flags.edit, role).toBe(false)
        expect(flags.merge, role).toBe(false)
        expectError(await api.call('createChangeRequest', { params: { spaceId: space.id }, body: { subject: 'x' } }), 403)
        expectError(await api.call('updateChangeRequestContent', { params: { spaceId: space.id, changeRequestId: cr.id }, body: { changes: [{ operation: 'insert_page', document: { markdown: '# X\n' } }] } }), 403)
        expectError(await api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } }), 403)
      }
    })

    it('on an organization and a collection', async () => {
      const collection = (await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Perm collection' } })).body
      for (const [role, who] of roles) {
        const api = who().api
        const org = (await api.call('getOrganizationById', { params: { organizationId: orgId } })).body.permissions
        const createTop = await api.call('createSpace', { params: { organizationId: orgId }, body: { title: `Top ${role}` } })
        expect(createTop.status !== 403, `${role} createContent`).toBe(org.createContent)
        const members = await api.call('listMembersInOrganizationById', { params: { organizationId: orgId } })
        expect(members.status !== 403, `${role} listMembers`).toBe(org.listMembers)
        const patchOrg = await api.call('updateOrganizationById', { params: { organizationId: orgId }, body: { ai: false } })
        expect(patchOrg.status !== 403, `${role} org admin`).toBe(org.admin)

        const flags = (await api.call('getCollectionById', { params: { collectionId: collection.id } })).body.permissions
        const inCollection = await api.call('createSpace', { params: { organizationId: orgId }, body: { title: `In ${role}`, parent: collection.id } })
        expect(inCollection.status !== 403, `${role} collection create`).toBe(flags.create)
        const patch = await api.call('updateCollectionById', { params: { collectionId: collection.id }, body: { description: role } })
        expect(patch.status !== 403, `${role} collection admin`).toBe(flags.admin)
      }
    })

    it('on comments and replies', async () => {
      const space = await createSpace({ title: 'Comment perms' })
      const params = { spaceId: space.id }
      const mine = (await commenter.api.call('postCommentInSpace', { params, body: { body: { markdown: 'Mine' } } })).body
      for (const [role, who] of roles) {
        const api = who().api
        const flags = (await api.call('getCommentInSpace', { params: { ...params, commentId: mine.id } })).body.permissions
        const reply = await api.call('postCommentReplyInSpace', { params: { ...params, commentId: mine.id }, body: { body: { markdown: `from ${role}` } } })
        expect(reply.status !== 403, `${role} reply`).toBe(flags.reply)
        const edit = await api.call('updateCommentInSpace', { params: { ...params, commentId: mine.id }, body: { body: { markdown: `edited by ${role}` } } })
        expect(edit.status !== 403, `${role} edit`).toBe(flags.edit)
      }
      const flags = (await commenter.api.call('getCommentInSpace', { params: { ...params, commentId: mine.id } })).body.permissions
      expect(flags).toEqual({ view: true, edit: true, reply: true, delete: true })
      expect((await commenter.api.call('deleteCommentInSpace', { params: { ...params, commentId: mine.id } })).status).toBe(205)
    })
  })

  describe('organization patch', () => {
    it('answers every valid title with a valid organization and refuses one that trims to under 2 characters', async () => {
      const org = arrangeOrg(t, [], 'Trim me')
      const params = { organizationId: org }
      const ok = await t.api.call('updateOrganizationById', { params, body: { title: '  Spaced title  ' } })
      expect(ok.status).toBe(200)
      expect(ok.body.title).toBe('Spaced title')
      await expectRejectedUnchanged([
        ['updateOrganizationById', { params, body: { title: ' a ' } }, 400],
        ['updateOrganizationById', { params, body: { title: '     ' } }, 400],
      ])
    })
  })
  describe('never a 500', () => {
    it('for junk in any body field, query parameter or path parameter of the families', async () => {
      const space = await createSpace({ title: 'Fuzzed' })
      const cr = await createCr(space.id)
      const written = await write(space.id, cr.id, [
        { operation: 'insert_files', files: [{ ref: 'f', name: 'f.txt', contentType: 'text/plain', base64: Buffer.from('f').toString('base64') }] },
        { operation: 'insert_page', ref: 'p', document: { markdown: '# P\n\n[f](.gitbook/assets/f.txt)\n' } },
      ])
      await t.api.call('mergeChangeRequest', { params: { spaceId: space.id, changeRequestId: cr.id } })
      const cr2 = await createCr(space.id)
      const pageId = (written.changes.find((c) => c.ref === 'p')?.page as { id: string }).id
      const fileId = (await t.api.call('listFiles', { params: { spaceId: space.id } })).body.items[0].id
      const comment = (await t.api.call('postCommentInSpace', { params: { spaceId: space.id }, body: { body: { markdown: 'c' } } })).body
      const reply = (await t.api.call('postCommentReplyInSpace', { params: { spaceId: space.id, commentId: comment.id }, body: { body: { markdown: 'r' } } })).body
      const crComment = (await t.api.call('postCommentInChangeRequest', { params: { spaceId: space.id, changeRequestId: cr2.id }, body: { body: { markdown: 'c' } } })).body
      const collection = (await t.api.call('createCollection', { params: { organizationId: orgId }, body: { title: 'Fuzz' } })).body
      const ids: Record<string, string> = {
        organizationId: orgId, collectionId: collection.id, spaceId: space.id, changeRequestId: cr2.id, pageId, fileId,
        commentId: comment.id, commentReplyId: reply.id, userId: stranger.id, revisionId: space.revision,
      }
      const paramsFor = (op: string) => {
        const params = { ...ids }
        if (op.includes('CommentInChangeRequest') || op.includes('CommentReplyInChangeRequest') || op === 'listCommentRepliesInChangeRequest') params.commentId = crComment.id
        return params
      }
      const spec = specRegistry()
      const failures: string[] = []
      const check = async (op: string, options: CallOptions) => {
        const res = await t.api.raw(spec.operation(op).method.toUpperCase(), urlOf(op, options), options.body)
        if (res.status >= 500) failures.push(`${op} ${JSON.stringify(options).slice(0, 200)} -> ${res.status} ${JSON.stringify(res.body).slice(0, 300)}`)
      }
      const urlOf = (op: string, options: CallOptions) => {
        const path = spec.operation(op).path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(String(options.params?.[name] ?? '')))
        const url = new URL(`${t.service.baseUrl}${path}`)
        for (const [key, value] of Object.entries(options.query ?? {})) url.searchParams.set(key, String(value))
        return url.toString()
      }
      // Deleting and removing would take the fixtures away; their inputs are path ids only, fuzzed below.
      const destructive = (op: string) => /^(delete|remove)/.test(op) || op === 'mergeChangeRequest' || op === 'transferSpace' || op === 'transferCollection'
      for (const op of ISSUE2_OPERATIONS) {
        const operation = spec.operation(op)
        const params = paramsFor(op)
        if (!destructive(op)) {
          for (const p of operation.parameters.filter((q) => q.in === 'query')) {
            for (const value of ['', 'x', '-1', '1e999', 'true', '%', 'x'.repeat(600), '[]']) await check(op, { params, query: { [p.name]: value } })
          }
          const bodySchema = operation.requestBody?.schema
          if (bodySchema) {
            for (const whole of JUNK) await check(op, { params, body: whole === null ? 'null' : whole })
            for (const name of propertyNames(bodySchema)) for (const value of JUNK) await check(op, { params, body: { [name]: value } })
          }
        }
        for (const name of Object.keys(params)) {
          if (!operation.path.includes(`{${name}}`)) continue
          for (const value of ['missing', ' ', 'x'.repeat(300), '0', '-1', '1.5']) await check(op, { params: { ...params, [name]: value } })
        }
      }
      // Each kind of content change with junk in each of its fields.
      const valid: Record<string, Schema> = {
        insert_page: { operation: 'insert_page', document: { markdown: '# X\n' } },
        update_page: { operation: 'update_page', page: pageId },
        delete_page: { operation: 'delete_page', page: pageId },
        revert_page: { operation: 'revert_page', page: pageId },
        insert_files: { operation: 'insert_files', files: [{ name: 'a.txt', base64: 'YQ==' }] },
      }
      const union = resolveSchema({ $ref: '#/components/schemas/ChangeRequestContentChange' }) as { discriminator: { mapping: Record<string, string> } }
      for (const [kind, ref] of Object.entries(union.discriminator.mapping)) {
        for (const name of propertyNames({ $ref: ref }).filter((n) => n !== 'operation')) {
          for (const value of JUNK) await check('updateChangeRequestContent', { params: ids, body: { changes: [{ ...valid[kind], [name]: value }] } })
        }
      }
      for (const file of [{}, { name: 'a' }, { name: 'a', base64: '!!' }, { name: 'a', url: 'ftp://x' }, { name: '', base64: 'YQ==' }, { name: 'a/../../b', base64: 'YQ==' }]) {
        await check('updateChangeRequestContent', { params: ids, body: { changes: [{ operation: 'insert_files', files: [file] }] } })
      }
      expect(failures).toEqual([])
    }, 300_000)
  })
})

import { GitBookAPI } from '@gitbook/api'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

/** Every answer the official client gets must validate against the published spec. */
async function checked<T>(operationId: string, call: Promise<{ status: number; data: T }>): Promise<T> {
  const response = await call
  const spec = specRegistry()
  expect(spec.validateResponse(spec.operation(operationId), response.status, response.data), operationId).toBeNull()
  return response.data
}

describe('the official GitBook client against the local service', () => {
  let t: TestService
  let client: GitBookAPI
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService()
    client = new GitBookAPI({ endpoint: t.service.origin, authToken: t.service.token })
    // The spaces HTTP API belongs to another family: the space is arranged through the store.
    s = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n'), page('guide', '---\ndescription: The guide\n---\n\n# Guide\n\nStep one.\n')])
  })
  afterAll(() => t.close())

  it('lists pages, edits through a change request, merges and reads the new revision', async () => {
    const { pages } = await checked('listPages', client.spaces.listPages(s.spaceId))
    expect(pages.map((p) => p.title)).toEqual(['Home', 'Guide'])

    const guide = await checked('getPageById', client.spaces.getPageById(s.spaceId, s.pages.guide, { format: 'markdown' }))
    expect('markdown' in guide && guide.markdown).toBe('---\ndescription: The guide\n---\n\n# Guide\n\nStep one.\n')

    const cr = await checked('createChangeRequest', client.spaces.createChangeRequest(s.spaceId, { subject: 'Client edits' }))
    expect(cr).toMatchObject({ status: 'draft', revision: s.revisionId })

    const update = await checked(
      'updateChangeRequestContent',
      client.spaces.updateChangeRequestContent(
        s.spaceId,
        cr.id,
        {
          changes: [
            { operation: 'update_page', page: s.pages.guide, document: { markdown: '---\ndescription: The guide\n---\n\n# Guide\n\nStep one.\n\nStep two.\n' } },
            { operation: 'insert_page', ref: 'faq', into: s.pages.guide, document: { markdown: '# FAQ\n\nAsk away.\n' } },
          ],
        },
        { compat: false },
      ),
    )
    if (!('changes' in update)) throw new Error('compat=false must answer the changes')
    const created = update.changes.find((change) => change.object === 'created_page')
    if (!created || created.object !== 'created_page') throw new Error('the inserted page is not reported')
    expect(created.ref).toBe('faq')

    const byNumber = await checked('getChangeRequestById', client.spaces.getChangeRequestById(s.spaceId, String(cr.number)))
    expect(byNumber.revision).toBe(update.changeRequest.revision)

    const merge = await checked('mergeChangeRequest', client.spaces.mergeChangeRequest(s.spaceId, cr.id))
    expect(merge.result).toBe('merge')

    const revision = await checked('getCurrentRevision', client.spaces.getCurrentRevision(s.spaceId))
    expect(revision.id).toBe(merge.revision)
    expect(revision.parents).toEqual([s.revisionId, update.changeRequest.revision])
    const merged = revision.pages[1]
    if (merged.type !== 'document') throw new Error('the guide is a document')
    expect(merged.pages.map((p) => p.title)).toEqual(['FAQ'])
    expect(merged.git?.path).toBe('guide/README.md')

    const faq = await checked('getPageById', client.spaces.getPageById(s.spaceId, created.page.id, { format: 'markdown' }))
    expect('markdown' in faq && faq.markdown).toBe('# FAQ\n\nAsk away.\n')
    expect(faq.type === 'document' && faq.git).toEqual({ oid: gitBlobOid('# FAQ\n\nAsk away.\n'), path: 'guide/faq.md' })

    const mergedCr = await checked('getChangeRequestById', client.spaces.getChangeRequestById(s.spaceId, cr.id))
    expect(mergedCr).toMatchObject({ status: 'merged', revisionMerged: merge.revision })
  })

  it('surfaces service errors as GitBookAPIError with the message', async () => {
    await expect(client.spaces.getChangeRequestById(s.spaceId, 'nope')).rejects.toMatchObject({ message: expect.stringContaining('nope') })
  })
})

describe('the official GitBook client through the demo organization', () => {
  let t: TestService
  let client: GitBookAPI
  beforeAll(async () => {
    t = await startTestService({ demo: true })
    client = new GitBookAPI({ endpoint: t.service.origin, authToken: t.service.token })
  })
  afterAll(() => t.close())

  it('lists organizations and spaces, reads a page, edits and adds pages in a change request, merges, reads the new revision', async () => {
    const orgs = await checked('listOrganizationsForAuthenticatedUser', client.orgs.listOrganizationsForAuthenticatedUser())
    const demo = orgs.items.find((o) => o.title === 'Quire Demo')!
    const spaces = await checked('listSpacesInOrganizationById', client.orgs.listSpacesInOrganizationById(demo.id))
    const guide = spaces.items.find((sp) => sp.title === 'User Guide')!
    const before = guide.revision

    const byPath = await checked('getPageByPath', client.spaces.getPageByPath(guide.id, 'getting-started/installation', { format: 'markdown' }))
    const markdown = (byPath as { markdown?: string }).markdown!
    expect(markdown).toContain('{% tabs %}')
    expect(gitBlobOid(markdown)).toBe((byPath as { git?: { oid: string } }).git!.oid)

    const cr = await checked('createChangeRequest', client.spaces.createChangeRequest(guide.id, { subject: 'Clarify installation' }))
    const edited = markdown.replace('Quire runs on macOS, Windows and Linux.', 'Quire runs on macOS 13+, Windows 10+ and Linux.')
    await checked(
      'updateChangeRequestContent',
      client.spaces.updateChangeRequestContent(guide.id, cr.id, {
        changes: [
          { operation: 'update_page', page: byPath.id, document: { markdown: edited } },
          { operation: 'insert_page', document: { markdown: '# Uninstalling\n\nDrag Quire to the trash.\n' } },
        ],
      }),
    )
    const merged = await checked('mergeChangeRequest', client.spaces.mergeChangeRequest(guide.id, cr.id))
    expect(merged.result).toBe('merge')

    const space = await checked('getSpaceById', client.spaces.getSpaceById(guide.id))
    expect(space.revision).not.toBe(before)
    expect(space.revision).toBe(merged.revision)
    const revision = await checked('getCurrentRevision', client.spaces.getCurrentRevision(guide.id))
    expect(revision.parents).toContain(before)
    expect(revision.pages.some((p) => p.title === 'Uninstalling')).toBe(true)
    const after = await checked('getPageById', client.spaces.getPageById(guide.id, byPath.id, { format: 'markdown' }))
    expect((after as { markdown?: string }).markdown).toContain('macOS 13+')
  })
})

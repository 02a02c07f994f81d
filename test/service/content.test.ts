import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, editSpaceDirectly, grant, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

// A 2x3 PNG: the service reports its dimensions.
const PNG = Buffer.from(
  'iVBORw0KGgoAAAANSUhEUgAAAAIAAAADCAIAAAA2iEnWAAAAC0lEQVR4nGNgwAIAABUAAapll8QAAAAASUVORK5CYII=',
  'base64',
)

const GITBOOK_BLOCKS = [
  '---',
  'description: Every block Git Sync writes verbatim.',
  '---',
  '',
  '# Blocks',
  '',
  '{% hint style="info" %}',
  'A hint with _underscores_ and * stars.',
  '{% endhint %}',
  '',
  '{% tabs %}',
  '{% tab title="JavaScript" %}',
  '```js',
  'console.log("hi")',
  '```',
  '{% endtab %}',
  '',
  '{% tab title="Python" %}',
  '```python',
  'print("hi")',
  '```',
  '{% endtab %}',
  '{% endtabs %}',
  '',
  '{% code title="a.js" lineNumbers="true" %}',
  '```javascript',
  'const a = 1',
  '```',
  '{% endcode %}',
  '',
  '{% embed url="https://www.youtube.com/watch?v=dQw4w9WgXcQ" %}',
  '',
  '* asterisk bullet',
  '* another_one',
  '',
].join('\n')

describe('space content', () => {
  let t: TestService
  let s: ArrangedSpace
  let reader: { id: string; token: string }
  let stranger: { id: string; token: string }

  beforeAll(async () => {
    t = await startTestService()
    s = arrangeSpace(t.service, [
      page('home', '# Welcome\n\nStart here.\n'),
      page('guide', '---\ndescription: How to use it\n---\n\n# Guide\n\nRead on.\n'),
      page('install', '# Install\n\nRun `npm i`.\n', { into: 'guide' }),
      { operation: 'insert_files', files: [{ ref: 'logo', name: 'logo.png', contentType: 'image/png', base64: PNG.toString('base64') }] },
      { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: Buffer.from('plain notes').toString('base64') }] },
    ])
    reader = t.service.createUser({ displayName: 'Reader', email: 'reader@example.com' })
    stranger = t.service.createUser({ displayName: 'Stranger', email: 'stranger@example.com' })
    grant(t.service, s.spaceId, reader.id, 'read')
  })
  afterAll(() => t.close())

  const params = (extra: Record<string, string> = {}) => ({ spaceId: s.spaceId, ...extra })

  it('getCurrentRevision answers the space revision with git paths and oids of the Git Sync files', async () => {
    const res = await t.api.call('getCurrentRevision', { params: params() })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ object: 'revision', id: s.revisionId, parents: [], type: 'edits' })
    const [home, guide] = res.body.pages
    expect(home.git.path).toBe('README.md')
    expect(guide.git.path).toBe('guide/README.md')
    expect(guide.pages[0].git.path).toBe('guide/install.md')
    for (const p of [home, guide, guide.pages[0]]) expect(p.git.oid).toBe(gitBlobOid(p.markdown))
    expect(res.body.files.map((f: { name: string }) => f.name)).toEqual(['logo.png', 'notes.txt'])
    expect(res.body.files[0]).toMatchObject({ contentType: 'image/png', size: PNG.length, dimensions: { width: 2, height: 3 }, git: { path: '.gitbook/assets/logo.png', oid: gitBlobOid(PNG) } })
  })

  it('metadata=false omits the git metadata of pages and files', async () => {
    const res = await t.api.call('getCurrentRevision', { params: params(), query: { metadata: false } })
    expect(res.body.pages[0].git).toBeUndefined()
    expect(res.body.files[0].git).toBeUndefined()
    const pages = await t.api.call('listPages', { params: params(), query: { metadata: false } })
    expect(pages.body.pages[1].pages[0].git).toBeUndefined()
  })

  it('listPages answers the tree with paths', async () => {
    const res = await t.api.call('listPages', { params: params() })
    expect(res.body.pages.map((p: { title: string }) => p.title)).toEqual(['Welcome', 'Guide'])
    expect(res.body.pages[1]).toMatchObject({ slug: 'guide', path: 'guide', description: 'How to use it' })
    expect(res.body.pages[1].pages[0]).toMatchObject({ id: s.pages.install, path: 'guide/install' })
  })

  it('getPageById format=markdown answers exactly the Git Sync file', async () => {
    const res = await t.api.call('getPageById', { params: params({ pageId: s.pages.guide }), query: { format: 'markdown' } })
    expect(res.body.markdown).toBe('---\ndescription: How to use it\n---\n\n# Guide\n\nRead on.\n')
    expect(res.body.git.oid).toBe(gitBlobOid(res.body.markdown))
    expect(res.body.document).toBeUndefined()
  })

  it('getPageById defaults to the JSON document', async () => {
    const res = await t.api.call('getPageById', { params: params({ pageId: s.pages.home }) })
    expect(res.body.document).toMatchObject({ object: 'document' })
    expect(res.body.markdown).toBeUndefined()
    const explicit = await t.api.call('getPageById', { params: params({ pageId: s.pages.home }), query: { format: 'document', evaluated: true } })
    expect(explicit.body.document).toEqual(res.body.document)
  })

  it('getPageByPath finds nested pages by their slug path', async () => {
    const res = await t.api.call('getPageByPath', { params: params({ pagePath: 'guide/install' }), query: { format: 'markdown' } })
    expect(res.body.id).toBe(s.pages.install)
    expect(res.body.markdown).toBe('# Install\n\nRun `npm i`.\n')
    const missing = await t.api.call('getPageByPath', { params: params({ pagePath: 'guide/nope' }) })
    expect(missing.status).toBe(404)
  })

  it('lists files with pagination and serves their bytes at downloadURL without a token', async () => {
    const first = await t.api.call('listFiles', { params: params(), query: { limit: 1 } })
    expect(first.body.items).toHaveLength(1)
    expect(first.body.count).toBe(2)
    const second = await t.api.call('listFiles', { params: params(), query: { limit: 1, page: first.body.next.page } })
    expect(second.body.items[0].name).toBe('notes.txt')
    expect(second.body.next).toBeUndefined()

    const file = await t.api.call('getFileById', { params: params({ fileId: first.body.items[0].id }) })
    expect(file.body.downloadURL.startsWith(`${t.service.origin}/files/`)).toBe(true)
    const download = await fetch(file.body.downloadURL)
    expect(download.status).toBe(200)
    expect(download.headers.get('content-type')).toBe('image/png')
    expect(Buffer.from(await download.arrayBuffer()).equals(PNG)).toBe(true)

    const tampered = file.body.downloadURL.replace(/sig=[^&]+/, 'sig=forged')
    expect((await fetch(tampered)).status).toBe(404)
    const unsigned = `${t.service.origin}/files/${gitBlobOid(PNG)}/logo.png?type=image/png`
    expect((await fetch(unsigned)).status).toBe(404)
  })

  it('reads a given revision and its pages and files', async () => {
    const rev = await t.api.call('getRevisionById', { params: params({ revisionId: s.revisionId }) })
    expect(rev.body.id).toBe(s.revisionId)
    const pages = await t.api.call('listPagesInRevisionById', { params: params({ revisionId: s.revisionId }) })
    expect(pages.body.pages).toHaveLength(2)
    const files = await t.api.call('listFilesInRevisionById', { params: params({ revisionId: s.revisionId }) })
    expect(files.body.count).toBe(2)
    const file = await t.api.call('getFileInRevisionById', { params: params({ revisionId: s.revisionId, fileId: files.body.items[1].id }) })
    expect(file.body.name).toBe('notes.txt')
    const one = await t.api.call('getPageInRevisionById', { params: params({ revisionId: s.revisionId, pageId: s.pages.install }), query: { format: 'markdown' } })
    expect(one.body.title).toBe('Install')
    const byPath = await t.api.call('getPageInRevisionByPath', { params: params({ revisionId: s.revisionId, pagePath: 'guide' }), query: { format: 'markdown' } })
    expect(byPath.body.id).toBe(s.pages.guide)
  })

  it('revisions are immutable: an old revision reads the same after later writes', async () => {
    const before = await t.api.call('getRevisionById', { params: params({ revisionId: s.revisionId }), query: { format: 'markdown' } })
    const oldPage = await t.api.call('getPageInRevisionById', { params: params({ revisionId: s.revisionId, pageId: s.pages.home }), query: { format: 'markdown' } })
    const next = editSpaceDirectly(t.service, s.spaceId, [
      { operation: 'update_page', page: s.pages.home, document: { markdown: '# Welcome\n\nChanged.\n' } },
      { operation: 'delete_page', page: s.pages.guide },
    ])
    const current = await t.api.call('getCurrentRevision', { params: params() })
    expect(current.body.id).toBe(next)
    expect(current.body.parents).toEqual([s.revisionId])
    expect(current.body.pages).toHaveLength(1)

    const after = await t.api.call('getRevisionById', { params: params({ revisionId: s.revisionId }), query: { format: 'markdown' } })
    expect(after.body).toEqual(before.body)
    const oldAgain = await t.api.call('getPageInRevisionById', { params: params({ revisionId: s.revisionId, pageId: s.pages.home }), query: { format: 'markdown' } })
    expect(oldAgain.body.markdown).toBe(oldPage.body.markdown)
    expect(oldAgain.body.markdown).toBe('# Welcome\n\nStart here.\n')
    // Back to the arranged content for the other tests.
    t.service.store.repo(SpacesRepository).setRevision(s.spaceId, s.revisionId)
  })

  it('a reader reads; a user without access gets 404', async () => {
    const asReader = await t.api.as(reader.token).call('listPages', { params: params() })
    expect(asReader.status).toBe(200)
    for (const op of ['getCurrentRevision', 'listPages', 'listFiles']) {
      const res = await t.api.as(stranger.token).call(op, { params: params() })
      expect(res.status).toBe(404)
      expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    }
  })

  it('unknown ids are 404 and a revision of another space is not found', async () => {
    const other = arrangeSpace(t.service, [page('x', '# Other\n')])
    const cases: Array<[string, Record<string, string>]> = [
      ['getCurrentRevision', { spaceId: 'nope' }],
      ['getPageById', params({ pageId: 'nope' })],
      ['getFileById', params({ fileId: 'nope' })],
      ['getRevisionById', params({ revisionId: 'nope' })],
      ['getRevisionById', params({ revisionId: other.revisionId })],
      ['getPageInRevisionById', params({ revisionId: s.revisionId, pageId: other.pages.x })],
      ['getFileInRevisionById', params({ revisionId: s.revisionId, fileId: 'nope' })],
      ['getPageInRevisionByPath', params({ revisionId: s.revisionId, pagePath: 'x' })],
    ]
    for (const [op, p] of cases) {
      const res = await t.api.call(op, { params: p })
      expect(res.status, `${op} ${JSON.stringify(p)}`).toBe(404)
    }
  })

  it('rejects bad query input with 400 and the error body', async () => {
    for (const limit of ['5000', '-1', 'abc']) {
      const res = await t.api.raw('GET', `/spaces/${s.spaceId}/content/files?limit=${limit}`)
      expect(res.status).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
    }
    expect((await t.api.raw('GET', `/spaces/${s.spaceId}/content/files?page=garbage`)).status).toBe(400)
    expect((await t.api.raw('GET', `/spaces/${s.spaceId}/content/page/${s.pages.home}?format=html`)).status).toBe(400)
    expect((await t.api.raw('GET', `/spaces/${s.spaceId}/content?metadata=maybe`)).status).toBe(400)
  })

  it('GitBook blocks round trip byte for byte through a change request', async () => {
    const cr = await t.api.call('createChangeRequest', { params: params(), body: { subject: 'Blocks' } })
    const write = await t.api.call('updateChangeRequestContent', {
      params: params({ changeRequestId: cr.body.id }),
      query: { compat: false },
      body: { changes: [{ operation: 'insert_page', document: { markdown: GITBOOK_BLOCKS } }] },
    })
    const created = write.body.changes[0].page.id
    const res = await t.api.call('getPageInChangeRequestById', { params: params({ changeRequestId: cr.body.id, pageId: created }), query: { format: 'markdown' } })
    expect(res.body.title).toBe('Blocks')
    expect(res.body.description).toBe('Every block Git Sync writes verbatim.')
    expect(Buffer.from(res.body.markdown).equals(Buffer.from(GITBOOK_BLOCKS))).toBe(true)
    expect(res.body.markdown.match(/# Blocks/g)).toHaveLength(1)
    const byPath = await t.api.call('getPageInChangeRequestByPath', { params: params({ changeRequestId: cr.body.number, pagePath: 'blocks' }), query: { format: 'markdown' } })
    expect(byPath.body.markdown).toBe(GITBOOK_BLOCKS)
  })

  it('resolves relative links to pages and files: stable markdown refs and document references', async () => {
    const cr = await t.api.call('createChangeRequest', { params: params(), body: { subject: 'Links' } })
    const files = await t.api.call('listFiles', { params: params() })
    const logo = files.body.items[0].id
    const write = await t.api.call('updateChangeRequestContent', {
      params: params({ changeRequestId: cr.body.id }),
      query: { compat: false },
      body: { changes: [{ operation: 'insert_page', document: { markdown: '# Links\n\nSee [install](guide/install.md#run) and ![logo](.gitbook/assets/logo.png).\n' } }] },
    })
    const pageId = write.body.changes[0].page.id
    const at = params({ changeRequestId: cr.body.id, pageId })
    const relative = await t.api.call('getPageInChangeRequestById', { params: at, query: { format: 'markdown' } })
    expect(relative.body.markdown).toBe('# Links\n\nSee [install](guide/install.md#run) and ![logo](.gitbook/assets/logo.png).\n')
    const stable = await t.api.call('getPageInChangeRequestById', { params: at, query: { format: 'markdown', 'format.markdown.refs': 'stable' } })
    expect(stable.body.markdown).toBe(`# Links\n\nSee [install](/pages/${s.pages.install}#run) and ![logo](/files/${logo}).\n`)
    expect(stable.body.git.oid).toBe(gitBlobOid(relative.body.markdown))
    const document = await t.api.call('getPageInChangeRequestById', { params: at, query: { format: 'document' } })
    const text = JSON.stringify(document.body.document)
    expect(text).toContain(JSON.stringify({ kind: 'anchor', page: s.pages.install, anchor: 'run' }))
    expect(text).toContain(JSON.stringify({ kind: 'file', file: logo }))
  })

  describe('applyTemplateToSpace', () => {
    it('adds the template pages to main content as a new revision', async () => {
      const fresh = arrangeSpace(t.service, [page('only', '# Only\n')])
      const res = await t.api.call('applyTemplateToSpace', { params: { spaceId: fresh.spaceId }, body: { id: 'product-docs' } })
      expect(res.status).toBe(201)
      const rev = await t.api.call('getCurrentRevision', { params: { spaceId: fresh.spaceId } })
      expect(rev.body.parents).toEqual([fresh.revisionId])
      expect(rev.body.pages.map((p: { title: string }) => p.title)).toEqual(['Only', 'Introduction', 'Getting started', 'Guides', 'FAQ'])
      expect(rev.body.pages[2].pages.map((p: { title: string }) => p.title)).toEqual(['Quickstart', 'Installation'])
    })

    it('applies to a change request when one is named', async () => {
      const fresh = arrangeSpace(t.service, [page('only', '# Only\n')])
      const cr = await t.api.call('createChangeRequest', { params: { spaceId: fresh.spaceId }, body: {} })
      const res = await t.api.call('applyTemplateToSpace', { params: { spaceId: fresh.spaceId }, body: { id: 'api-docs', changeRequestId: cr.body.id } })
      expect(res.status).toBe(201)
      const crPages = await t.api.call('listPagesInChangeRequest', { params: { spaceId: fresh.spaceId, changeRequestId: cr.body.id } })
      expect(crPages.body.pages).toHaveLength(5)
      const space = await t.api.call('listPages', { params: { spaceId: fresh.spaceId } })
      expect(space.body.pages).toHaveLength(1)
    })

    it('rejects unknown templates and readers, changing nothing', async () => {
      const revisionBefore = t.service.store.repo(SpacesRepository).get(s.spaceId)?.revisionId
      const unknown = await t.api.call('applyTemplateToSpace', { params: params(), body: { id: 'no-such-template' } })
      expect(unknown.status).toBe(400)
      expect(unknown.body.error.message).toContain('no-such-template')
      const missing = await t.api.call('applyTemplateToSpace', { params: params(), body: {} })
      expect(missing.status).toBe(400)
      const denied = await t.api.as(reader.token).call('applyTemplateToSpace', { params: params(), body: { id: 'blank' } })
      expect(denied.status).toBe(403)
      const unknownCr = await t.api.call('applyTemplateToSpace', { params: params(), body: { id: 'blank', changeRequestId: 'nope' } })
      expect(unknownCr.status).toBe(404)
      expect(t.service.store.repo(SpacesRepository).get(s.spaceId)?.revisionId).toBe(revisionBefore)
      expect(t.service.store.repo(RevisionsRepository).get(s.revisionId)?.tree.pages).toHaveLength(2)
    })
  })
})

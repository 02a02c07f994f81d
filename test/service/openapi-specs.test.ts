import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEMO_OPENAPI_SLUG, seedOpenApiDemo } from '../../src/main/service/demo/openapi'
import { configureOpenApiProcessing } from '../../src/main/service/openapi/processing'
import { OpenApiSpecsRepository } from '../../src/main/service/store/openapi-specs'
import { arrangeOrg, person, type Person } from '../support/fixtures'
import { startTestService, type ApiClient, type TestService } from '../support/service'

const PETS_JSON = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'Pets', version: '1.0.0' },
  paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } } },
})
const PETS_V2_JSON = JSON.stringify({
  openapi: '3.1.0',
  info: { title: 'Pets', version: '2.0.0' },
  paths: { '/pets': { get: { responses: { '200': { description: 'ok' } } } }, '/owners': {} },
})
const SWAGGER_YAML = `swagger: "2.0"
info:
  title: Legacy
  version: "0.9"
paths:
  /things:
    get:
      responses:
        "200":
          description: ok
`

/**
 * A loopback server playing the outside world: specs in JSON and YAML, documents that are not OpenAPI,
 * a 404, and a path that accepts the request and never answers.
 */
async function startSpecServer() {
  const routes: Record<string, { type: string; body: string }> = {
    '/pets.json': { type: 'application/json', body: PETS_JSON },
    '/pets-v2.json': { type: 'application/json', body: PETS_V2_JSON },
    '/legacy.yaml': { type: 'application/yaml', body: SWAGGER_YAML },
    '/hello.json': { type: 'application/json', body: '{"hello": "world"}' },
    '/broken.yaml': { type: 'application/yaml', body: 'openapi: 3.0.0\ninfo: [unclosed\n  title: x' },
    '/broken.json': { type: 'application/json', body: '{"openapi": "3.0.0",' },
  }
  const server = http.createServer((req, res) => {
    if (req.url === '/hang') return // never answers: the service's deadline must end the fetch
    const route = routes[req.url ?? '']
    if (!route) {
      res.writeHead(404).end('not here')
      return
    }
    res.writeHead(200, { 'Content-Type': route.type }).end(route.body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url: (path: string) => `${base}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

/** A loopback port nothing listens on: connecting fails at once with ECONNREFUSED. */
async function closedPort(): Promise<number> {
  const server = http.createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as AddressInfo).port
  await new Promise<void>((resolve) => server.close(() => resolve()))
  return port
}

describe('OpenAPI specs', () => {
  let t: TestService
  let specs: Awaited<ReturnType<typeof startSpecServer>>
  let orgId: string
  let otherOrgId: string
  let creator: Person // organization role `create`: may manage specs
  let editor: Person // organization role `edit`: reads only
  let guest: Person // organization guest (null role)
  let stranger: Person // not in the organization

  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const specCount = () => t.service.store.repo(OpenApiSpecsRepository).listByOrg(orgId).length

  /** Polls until the background run has recorded its outcome. */
  async function processed(slug: string, api: ApiClient = t.api) {
    for (let i = 0; i < 500; i++) {
      const res = await api.call('getOpenAPISpecBySlug', { params: params({ specSlug: slug }) })
      if (res.body.processingState === 'complete') return res.body
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`spec ${slug} was never processed`)
  }

  const create = async (slug: string, source: { url: string } | { text: string }, api: ApiClient = t.api) => {
    const res = await api.call('createOpenAPISpec', { params: params(), body: { slug, source } })
    expect(res.status).toBe(201)
    return res.body
  }

  beforeAll(async () => {
    t = await startTestService()
    specs = await startSpecServer()
    configureOpenApiProcessing(t.service.store, { timeoutMs: 300 })
    creator = person(t, 'Cleo')
    editor = person(t, 'Eddie')
    guest = person(t, 'Gina')
    stranger = person(t, 'Stu')
    orgId = arrangeOrg(t, [[creator, 'create'], [editor, 'edit'], [guest, null]], 'Specs Org')
    otherOrgId = arrangeOrg(t, [], 'Other Org')
  })
  afterAll(async () => {
    await t.close()
    await specs.close()
  })

  it('creates a spec from a loopback URL, fetches and parses it in the background into a version', async () => {
    const url = specs.url('/pets.json')
    const createdSpec = await create('pets', { url })
    expect(createdSpec).toMatchObject({
      object: 'openapi-spec',
      slug: 'pets',
      sourceURL: url,
      processingState: 'pending',
      visibility: 'private',
      lastProcessedErrorCount: 0,
      permissions: { view: true, edit: true },
    })
    expect(createdSpec.lastVersion).toBeUndefined()
    expect(createdSpec.urls.location).toBe(`${t.service.baseUrl}/orgs/${orgId}/openapi/pets`)

    const spec = await processed('pets')
    expect(spec.lastVersion).toEqual(expect.any(String))
    expect(spec.lastProcessErrorCode).toBeUndefined()
    expect(spec.lastProcessedErrors).toEqual([])
    expect(Date.parse(spec.lastProcessedAt)).toBeGreaterThanOrEqual(Date.parse(createdSpec.createdAt))

    const list = await t.api.call('listOpenAPISpecs', { params: params() })
    expect(list.body.items.map((s: { slug: string }) => s.slug)).toEqual(['pets'])

    const versions = await t.api.call('listOpenAPISpecVersions', { params: params({ specSlug: 'pets' }) })
    expect(versions.body.count).toBe(1)
    expect(versions.body.items[0]).toMatchObject({ object: 'openapi-spec-version', id: spec.lastVersion, url })

    const latest = await t.api.call('getLatestOpenAPISpecVersion', { params: params({ specSlug: 'pets' }) })
    expect(latest.body.id).toBe(spec.lastVersion)
    const byId = await t.api.call('getOpenAPISpecVersionById', { params: params({ specSlug: 'pets', versionId: spec.lastVersion }) })
    expect(byId.body).toEqual(latest.body)

    const raw = await t.api.call('getLatestOpenAPISpecVersionContentRaw', { params: params({ specSlug: 'pets' }) })
    expect(raw.body).toEqual({ text: PETS_JSON, format: 'json' })

    const content = await t.api.call('getLatestOpenAPISpecVersionContent', { params: params({ specSlug: 'pets' }) })
    expect(content.body.filesystem.files['openapi.json'].info.title).toBe('Pets')
    expect(content.body.urls).toEqual({ source: url, public: null })
    const contentById = await t.api.call('getOpenAPISpecVersionContentById', { params: params({ specSlug: 'pets', versionId: spec.lastVersion }) })
    expect(contentById.body).toEqual(content.body)
  })

  it('parses YAML (Swagger 2.0) sources', async () => {
    await create('legacy', { url: specs.url('/legacy.yaml') })
    const spec = await processed('legacy')
    expect(spec.lastProcessErrorCode).toBeUndefined()
    const raw = await t.api.call('getLatestOpenAPISpecVersionContentRaw', { params: params({ specSlug: 'legacy' }) })
    expect(raw.body).toEqual({ text: SWAGGER_YAML, format: 'yaml' })
  })

  it('creates from text and processes it before answering', async () => {
    const spec = await create('inline', { text: SWAGGER_YAML })
    expect(spec.processingState).toBe('complete')
    expect(spec.sourceURL).toBeUndefined()
    expect(spec.lastVersion).toEqual(expect.any(String))
    const version = await t.api.call('getLatestOpenAPISpecVersion', { params: params({ specSlug: 'inline' }) })
    expect(version.body.url).toBe(`${t.service.baseUrl}/orgs/${orgId}/openapi/inline/versions/${spec.lastVersion}/content`)
  })

  it('records FETCH_ERROR for a URL nothing listens on', async () => {
    const url = `http://127.0.0.1:${await closedPort()}/openapi.json`
    await create('refused', { url })
    const spec = await processed('refused')
    expect(spec).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'FETCH_ERROR', lastProcessedErrorCount: 1 })
    expect(spec.lastProcessedErrors[0]).toMatchObject({ code: 'ECONNREFUSED', message: expect.stringContaining(url) })
    expect(spec.lastVersion).toBeUndefined()
    const latest = await t.api.raw('GET', `/orgs/${orgId}/openapi/refused/versions/latest`)
    expect(latest.status).toBe(404)
  })

  it('records FETCH_TIMEOUT for a server that never answers', async () => {
    await create('hangs', { url: specs.url('/hang') })
    const spec = await processed('hangs')
    expect(spec.lastProcessErrorCode).toBe('FETCH_TIMEOUT')
    expect(spec.lastProcessedErrors).toEqual([{ code: 'TIMEOUT', message: expect.stringContaining('300 ms') }])
  })

  it('records FETCH_ERROR for an HTTP error and PARSE_ERROR for documents that are not OpenAPI', async () => {
    await create('missing', { url: specs.url('/missing.json') })
    expect(await processed('missing')).toMatchObject({ lastProcessErrorCode: 'FETCH_ERROR', lastProcessedErrors: [{ code: 'HTTP_404' }] })

    await create('hello', { url: specs.url('/hello.json') })
    const hello = await processed('hello')
    expect(hello).toMatchObject({ lastProcessErrorCode: 'PARSE_ERROR', lastProcessedErrorCount: 2 })
    expect(hello.lastProcessedErrors.map((e: { code: string }) => e.code)).toEqual(['NOT_OPENAPI', 'MISSING_INFO'])
    await create('broken-yaml', { url: specs.url('/broken.yaml') })
    expect(await processed('broken-yaml')).toMatchObject({ lastProcessErrorCode: 'PARSE_ERROR', lastProcessedErrors: [{ code: 'INVALID_YAML' }] })
    await create('broken-json', { url: specs.url('/broken.json') })
    expect(await processed('broken-json')).toMatchObject({ lastProcessErrorCode: 'PARSE_ERROR', lastProcessedErrors: [{ code: 'INVALID_JSON' }] })
    const text = await create('text-junk', { text: 'just: some yaml' })
    expect(text).toMatchObject({ processingState: 'complete', lastProcessErrorCode: 'PARSE_ERROR' })
  })

  it('PUT replaces the source (200) and reprocesses; unchanged text adds no version; a failure keeps the last version', async () => {
    await create('evolving', { url: specs.url('/pets.json') })
    const first = await processed('evolving')

    const res = await t.api.call('createOrUpdateOpenAPISpecBySlug', { params: params({ specSlug: 'evolving' }), body: { source: { url: specs.url('/pets-v2.json') } } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: first.id, sourceURL: specs.url('/pets-v2.json'), processingState: 'pending' })
    const second = await processed('evolving')
    expect(second.lastVersion).not.toBe(first.lastVersion)

    await t.api.call('createOrUpdateOpenAPISpecBySlug', { params: params({ specSlug: 'evolving' }), body: { source: { url: specs.url('/pets-v2.json') } } })
    const third = await processed('evolving')
    expect(third.lastVersion).toBe(second.lastVersion)
    const versions = await t.api.call('listOpenAPISpecVersions', { params: params({ specSlug: 'evolving' }) })
    expect(versions.body.items.map((v: { id: string }) => v.id)).toEqual([second.lastVersion, first.lastVersion])

    await t.api.call('createOrUpdateOpenAPISpecBySlug', { params: params({ specSlug: 'evolving' }), body: { source: { url: specs.url('/hello.json') } } })
    const failed = await processed('evolving')
    expect(failed).toMatchObject({ lastProcessErrorCode: 'PARSE_ERROR', lastVersion: second.lastVersion })
  })

  it('PUT creates the spec when absent (201)', async () => {
    const res = await t.api.call('createOrUpdateOpenAPISpecBySlug', { params: params({ specSlug: 'brand-new' }), body: { source: { text: PETS_JSON } } })
    expect(res.status).toBe(201)
    expect(res.body).toMatchObject({ slug: 'brand-new', processingState: 'complete' })
  })

  it('PATCH sets the visibility; a public spec has a published URL', async () => {
    await create('shown', { text: PETS_JSON })
    const res = await t.api.call('updateOpenAPISpecBySlug', { params: params({ specSlug: 'shown' }), body: { visibility: 'public' } })
    expect(res.status).toBe(200)
    expect(res.body.visibility).toBe('public')
    expect(res.body.urls.published).toEqual(expect.stringContaining('/openapi/shown'))
    const back = await t.api.call('updateOpenAPISpecBySlug', { params: params({ specSlug: 'shown' }), body: { visibility: 'private' } })
    expect(back.body.visibility).toBe('private')
    expect(back.body.urls.published).toBeUndefined()
  })

  it('DELETE answers 205 when deleted and 204 when the spec did not exist', async () => {
    await create('doomed', { text: PETS_JSON })
    const deleted = await t.api.call('deleteOpenAPISpecBySlug', { params: params({ specSlug: 'doomed' }) })
    expect(deleted.status).toBe(205)
    const again = await t.api.call('deleteOpenAPISpecBySlug', { params: params({ specSlug: 'doomed' }) })
    expect(again.status).toBe(204)
    const gone = await t.api.raw('GET', `/orgs/${orgId}/openapi/doomed`)
    expect(gone.status).toBe(404)
  })

  it('a superseded or deleted processing run writes nothing', () => {
    const repo = t.service.store.repo(OpenApiSpecsRepository)
    const spec = repo.create({ orgId: otherOrgId, slug: 'raced', source: { url: 'http://127.0.0.1:9/a.json' }, processToken: 'first' })
    expect(repo.markInProgress(spec.id, 'first')).toBe(true)
    repo.replaceSource(spec.id, { url: 'http://127.0.0.1:9/b.json' }, 'second')
    const late = { ok: true as const, url: 'http://127.0.0.1:9/a.json', text: PETS_JSON, format: 'json' as const }
    expect(repo.finishProcessing(spec.id, 'first', late)).toBeUndefined()
    expect(repo.get(spec.id)).toMatchObject({ processingState: 'pending', lastVersionId: null })
    expect(repo.versions(spec.id)).toEqual([])
    repo.delete(spec.id)
    expect(repo.markInProgress(spec.id, 'second')).toBe(false)
    expect(repo.finishProcessing(spec.id, 'second', late)).toBeUndefined()
    expect(repo.get(spec.id)).toBeUndefined()
  })

  it('pages the list with next.page', async () => {
    const total = specCount()
    expect(total).toBeGreaterThan(2)
    const seen: string[] = []
    let page: string | undefined
    do {
      const res = await t.api.call('listOpenAPISpecs', { params: params(), query: { limit: 2, page } })
      expect(res.body.count).toBe(total)
      seen.push(...res.body.items.map((s: { slug: string }) => s.slug))
      page = res.body.next?.page
    } while (page)
    expect(new Set(seen).size).toBe(total)
  })

  it('rejects bad input with 400 and writes nothing', async () => {
    const before = specCount()
    const bad: unknown[] = [
      { slug: 'Bad Slug', source: { url: specs.url('/pets.json') } },
      { slug: '-lead', source: { url: specs.url('/pets.json') } },
      { slug: 'double--dash', source: { url: specs.url('/pets.json') } },
      { slug: 'x'.repeat(101), source: { url: specs.url('/pets.json') } },
      { slug: 5, source: { url: specs.url('/pets.json') } },
      { source: { url: specs.url('/pets.json') } },
      { slug: 'no-source' },
      { slug: 'empty-source', source: {} },
      { slug: 'not-a-url', source: { url: 'not a url' } },
      { slug: 'ftp', source: { url: 'ftp://example.com/spec.json' } },
      { slug: 'file', source: { url: 'file:///etc/passwd' } },
      { slug: 'long-url', source: { url: `http://example.com/${'a'.repeat(2048)}` } },
      { slug: 'empty-text', source: { text: '' } },
    ]
    for (const body of bad) {
      const res = await t.api.raw('POST', `/orgs/${orgId}/openapi`, body)
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
    }
    expect((await t.api.raw('POST', `/orgs/${orgId}/openapi`, '{"slug": ')).status).toBe(400)
    expect((await t.api.raw('PUT', `/orgs/${orgId}/openapi/Not%20A%20Slug`, { source: { text: PETS_JSON } })).status).toBe(400)
    expect((await t.api.raw('PUT', `/orgs/${orgId}/openapi/pets`, { source: { url: 'gopher://x' } })).status).toBe(400)
    expect((await t.api.raw('PUT', `/orgs/${orgId}/openapi/pets`, {})).status).toBe(400)
    expect((await t.api.raw('PATCH', `/orgs/${orgId}/openapi/pets`, { visibility: 'secret' })).status).toBe(400)
    expect((await t.api.raw('PATCH', `/orgs/${orgId}/openapi/pets`, {})).status).toBe(400)
    expect(specCount()).toBe(before)
    const pets = await t.api.call('getOpenAPISpecBySlug', { params: params({ specSlug: 'pets' }) })
    expect(pets.body).toMatchObject({ sourceURL: specs.url('/pets.json'), visibility: 'private' })
  })

  it('rejects a second spec with the same slug (409)', async () => {
    const before = specCount()
    const res = await t.api.raw('POST', `/orgs/${orgId}/openapi`, { slug: 'pets', source: { text: PETS_JSON } })
    expect(res.status).toBe(409)
    expect(specCount()).toBe(before)
  })

  it('rejects hostile limits', async () => {
    for (const limit of ['5000', '-1', 'abc']) {
      const res = await t.api.raw('GET', `/orgs/${orgId}/openapi?limit=${limit}`)
      expect(res.status, limit).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
      expect((await t.api.raw('GET', `/orgs/${orgId}/openapi/pets/versions?limit=${limit}`)).status).toBe(400)
    }
  })

  it('answers 404 for unknown organizations, specs and versions', async () => {
    const paths = [
      ['GET', `/orgs/nope/openapi`],
      ['GET', `/orgs/${orgId}/openapi/nope`],
      ['PATCH', `/orgs/${orgId}/openapi/nope`, { visibility: 'public' }],
      ['GET', `/orgs/${orgId}/openapi/nope/versions`],
      ['GET', `/orgs/${orgId}/openapi/nope/versions/latest`],
      ['GET', `/orgs/${orgId}/openapi/nope/versions/latest/content`],
      ['GET', `/orgs/${orgId}/openapi/nope/versions/latest/content/raw`],
      ['GET', `/orgs/${orgId}/openapi/pets/versions/nope`],
      ['GET', `/orgs/${orgId}/openapi/pets/versions/nope/content`],
      // A spec of another organization is not reachable through this one.
      ['GET', `/orgs/${otherOrgId}/openapi/pets`],
    ] as const
    for (const [method, path, body] of paths) {
      const res = await t.api.raw(method, path, body)
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    }
  })

  it('lets members with the create role manage specs; others read or get 403; outsiders get 404', async () => {
    const mine = await create('by-creator', { text: PETS_JSON }, creator.api)
    expect(mine.permissions).toEqual({ view: true, edit: true })

    const read = await editor.api.call('getOpenAPISpecBySlug', { params: params({ specSlug: 'pets' }) })
    expect(read.body.permissions).toEqual({ view: true, edit: false })
    const listed = await editor.api.call('listOpenAPISpecs', { params: params() })
    expect(listed.body.items.every((s: { permissions: { edit: boolean } }) => !s.permissions.edit)).toBe(true)

    const before = specCount()
    const writes = [
      ['POST', `/orgs/${orgId}/openapi`, { slug: 'nope', source: { text: PETS_JSON } }],
      ['PUT', `/orgs/${orgId}/openapi/pets`, { source: { text: PETS_JSON } }],
      ['PATCH', `/orgs/${orgId}/openapi/pets`, { visibility: 'public' }],
      ['DELETE', `/orgs/${orgId}/openapi/pets`],
    ] as const
    for (const [method, path, body] of writes) {
      expect((await editor.api.raw(method, path, body)).status, `${method} ${path}`).toBe(403)
      expect((await guest.api.raw(method, path, body)).status, `guest ${method} ${path}`).toBe(403)
      expect((await stranger.api.raw(method, path, body)).status, `stranger ${method} ${path}`).toBe(404)
    }
    expect((await guest.api.raw('GET', `/orgs/${orgId}/openapi`)).status).toBe(403)
    expect((await stranger.api.raw('GET', `/orgs/${orgId}/openapi`)).status).toBe(404)
    expect((await stranger.api.raw('GET', `/orgs/${orgId}/openapi/pets`)).status).toBe(404)
    expect(specCount()).toBe(before)
    const pets = await t.api.call('getOpenAPISpecBySlug', { params: params({ specSlug: 'pets' }) })
    expect(pets.body).toMatchObject({ visibility: 'private', sourceURL: specs.url('/pets.json') })
  })

  it('seeds the demo spec, processed from embedded text', async () => {
    seedOpenApiDemo(t.service.store, otherOrgId, t.service.ownerId)
    const res = await t.api.call('getOpenAPISpecBySlug', { params: { organizationId: otherOrgId, specSlug: DEMO_OPENAPI_SLUG } })
    expect(res.body).toMatchObject({ processingState: 'complete', lastProcessedErrorCount: 0, lastVersion: expect.any(String) })
    expect(res.body.sourceURL).toBeUndefined()
    const content = await t.api.call('getLatestOpenAPISpecVersionContent', { params: { organizationId: otherOrgId, specSlug: DEMO_OPENAPI_SLUG } })
    expect(content.body.filesystem.files['openapi.yaml'].info.title).toBe('Demo Notes API')
  })
})

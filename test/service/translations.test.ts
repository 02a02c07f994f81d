import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content/markdown/blob-oid'
import type { RevisionTree, TreePage } from '../../src/main/content/types'
import { OrganizationsRepository } from '../../src/main/service/store/organizations'
import { createSpaceRevision, RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository, type Space } from '../../src/main/service/store/spaces'
import { TranslationsRepository } from '../../src/main/service/store/translations'
import { copyTranslator, setTranslator, type TranslateOptions } from '../../src/main/service/translation/translator'
import { startTestService, type ApiClient, type TestService } from '../support/service'

interface Person {
  id: string
  token: string
  api: ApiClient
}

const INSTRUCTIONS = {
  object: 'document',
  data: {},
  nodes: [{ object: 'block', type: 'paragraph', data: {}, nodes: [{ object: 'text', leaves: [{ object: 'leaf', text: 'Use a formal tone.', marks: [] }] }] }],
}

const WELCOME_BODY = 'Welcome to the product.\n\nRead the [install guide](install.md).\n'
const INSTALL_BODY = '## Steps\n\n1. Download it\n2. Run it\n'

describe('translations', () => {
  let t: TestService
  let orgId: string
  let otherOrgId: string
  let source: Space
  let otherOrgSpace: Space
  let member: Person // organization role `create`: reads only
  let stranger: Person // not in the organization

  const person = (name: string): Person => {
    const user = t.service.createUser({ displayName: name, email: `${name.toLowerCase()}@example.com` })
    return { ...user, api: t.api.as(user.token) }
  }
  const params = (extra: Record<string, string> = {}) => ({ organizationId: orgId, ...extra })
  const count = () => t.service.store.repo(TranslationsRepository).listByOrg(orgId).length
  const spaceCount = () => t.service.store.repo(SpacesRepository).listByOrg(orgId).length
  const encoder = new TextEncoder()

  const page = (id: string, title: string, body: string | undefined, extra: Partial<TreePage> = {}): TreePage => ({
    id,
    type: 'document',
    title,
    slug: title.toLowerCase().replace(/\s+/g, '-'),
    metadata: {},
    ...(body !== undefined ? { bodyOid: gitBlobOid(body) } : {}),
    createdAt: '2024-01-01T00:00:00.000Z',
    updatedAt: '2024-01-01T00:00:00.000Z',
    pages: [],
    ...extra,
  })

  /** Writes a revision of the source space with these pages (bodies stored as blobs). */
  function writeSource(pages: TreePage[], bodies: string[]) {
    const tree: RevisionTree = { pages, files: [] }
    const blobs = new Map(bodies.map((b) => [gitBlobOid(b), encoder.encode(b)]))
    const current = t.service.store.repo(SpacesRepository).get(source.id) as Space
    return createSpaceRevision(t.service.store, source.id, tree, blobs, current.revisionId ? [current.revisionId] : [])
  }

  const sourcePages = () => [
    page('pg-welcome', 'Welcome', WELCOME_BODY, {
      metadata: { description: 'Start here' },
      pages: [page('pg-install', 'Install', INSTALL_BODY)],
    }),
    page('pg-link', 'Website', undefined, { type: 'link', href: 'https://example.com' }),
  ]

  const create = async (body: Record<string, unknown>) => {
    const res = await t.api.call('createTranslation', { params: params(), body })
    expect(res.status).toBe(201)
    return res.body
  }

  /** Polls until the run has finished (status leaves `running`). */
  async function settled(id: string) {
    for (let i = 0; i < 500; i++) {
      const res = await t.api.call('getTranslation', { params: params({ translationId: id }) })
      if (res.body.status !== 'running') return res.body
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    throw new Error(`translation ${id} never finished`)
  }

  const run = async (id: string) => {
    const res = await t.api.call('runTranslation', { params: params({ translationId: id }) })
    expect(res.status).toBe(204)
    expect(res.body).toBeUndefined()
  }

  const bodyOf = (oid: string | undefined) => t.service.store.repo(RevisionsRepository).blob(oid ?? '')?.toString('utf8')

  beforeAll(async () => {
    t = await startTestService()
    const store = t.service.store
    const orgs = store.repo(OrganizationsRepository)
    orgId = orgs.create({ title: 'Translations Org', owner: t.service.ownerId }).id
    otherOrgId = orgs.create({ title: 'Elsewhere', owner: t.service.ownerId }).id
    member = person('Maya')
    stranger = person('Sven')
    orgs.setMember(orgId, member.id, 'create')
    // Spaces and their content belong to other families; the test arranges them directly.
    source = store.repo(SpacesRepository).create({ orgId, title: 'Handbook', data: { emoji: '📘' } })
    otherOrgSpace = store.repo(SpacesRepository).create({ orgId: otherOrgId, title: 'Foreign' })
    writeSource(sourcePages(), [WELCOME_BODY, INSTALL_BODY])
  })
  afterAll(() => t.close())

  it('creates a pending translation (201), lists it and gets it', async () => {
    const created = await create({ source: { space: source.id, language: 'en' }, language: 'de', instructions: INSTRUCTIONS })
    expect(created).toMatchObject({
      object: 'translation',
      status: 'pending',
      source: { space: source.id, language: 'en' },
      language: 'de',
      instructions: INSTRUCTIONS,
      stats: { runs: 0, totalWords: 0, totalPages: 0, totalDuration: 0, latestRunDuration: 0, latestPages: 0, latestWords: 0 },
      permissions: { view: true, edit: true },
      urls: { location: `${t.service.baseUrl}/orgs/${orgId}/translations/${created.id}` },
    })
    expect(created.result).toBeUndefined()

    const list = await t.api.call('listTranslations', { params: params() })
    expect(list.body.items.map((x: { id: string }) => x.id)).toContain(created.id)
    const got = await t.api.call('getTranslation', { params: params({ translationId: created.id }) })
    expect(got.body).toEqual(created)

    const noInstructions = await create({ source: { space: source.id, language: 'en' }, language: 'it' })
    expect(noInstructions.instructions).toEqual({ object: 'document', data: {}, nodes: [] })
  })

  it('runs with the default translator: a real copy in a new space, and the run says the text was not translated', async () => {
    const translation = await create({ source: { space: source.id, language: 'en' }, language: 'fr' })
    await run(translation.id)
    const done = await settled(translation.id)

    expect(done.status).toBe('completed')
    expect(done.result).toEqual({ space: expect.any(String), revision: expect.any(String), language: 'fr' })
    expect(done.result.space).not.toBe(source.id)
    expect(done.lastRun).toMatchObject({ outcome: 'succeeded', translator: 'copy', machineTranslation: false })
    expect(done.lastRun.message).toContain('copied unchanged')
    // Words of the source text: titles, the description and the bodies.
    const words = 1 + 2 + 8 + 1 + 7 + 1
    expect(done.stats).toMatchObject({ runs: 1, totalPages: 3, latestPages: 3, latestWords: words, totalWords: words })

    const store = t.service.store
    const space = store.repo(SpacesRepository).get(done.result.space) as Space
    expect(space).toMatchObject({ orgId, title: 'Handbook (fr)', revisionId: done.result.revision })
    expect(space.data).toMatchObject({ language: 'fr', emoji: '📘' })
    const revision = store.repo(RevisionsRepository).get(done.result.revision)
    expect(revision?.spaceId).toBe(space.id)
    const [welcome, link] = revision?.tree.pages ?? []
    expect(welcome).toMatchObject({ id: 'pg-welcome', title: 'Welcome', metadata: { description: 'Start here' } })
    expect(bodyOf(welcome.bodyOid)).toBe(WELCOME_BODY)
    expect(welcome.pages[0]).toMatchObject({ id: 'pg-install', title: 'Install' })
    expect(bodyOf(welcome.pages[0].bodyOid)).toBe(INSTALL_BODY)
    expect(link).toMatchObject({ id: 'pg-link', type: 'link', href: 'https://example.com' })
    // The source is untouched.
    expect(store.repo(SpacesRepository).get(source.id)?.data.language).toBeUndefined()
  })

  it('uses a plugged-in translator, moves pending -> running -> completed, and a second run updates the same space', async () => {
    const calls: TranslateOptions[] = []
    let release!: () => void
    const gate = new Promise<void>((resolve) => (release = resolve))
    setTranslator(t.service.store, {
      name: 'test-es',
      machineTranslation: true,
      async translate(text, options) {
        calls.push(options)
        await gate
        return `[es] ${text}`
      },
    })
    try {
      const translation = await create({ source: { space: source.id, language: 'en' }, language: 'es', instructions: INSTRUCTIONS })
      expect(translation.status).toBe('pending')
      await run(translation.id)
      const during = await t.api.call('getTranslation', { params: params({ translationId: translation.id }) })
      expect(during.body.status).toBe('running')
      expect(during.body.lastRun).toMatchObject({ outcome: 'running', translator: 'test-es' })
      release()
      const first = await settled(translation.id)
      expect(first.status).toBe('completed')
      expect(first.lastRun).toMatchObject({ outcome: 'succeeded', machineTranslation: true })
      expect(calls[0]).toEqual({ from: 'en', to: 'es', instructions: 'Use a formal tone.' })

      const store = t.service.store
      const firstRevision = store.repo(RevisionsRepository).get(first.result.revision)
      const welcome = firstRevision?.tree.pages[0]
      expect(welcome?.title).toBe('[es] Welcome')
      expect(welcome?.metadata.description).toBe('[es] Start here')
      expect(bodyOf(welcome?.bodyOid)).toBe(`[es] ${WELCOME_BODY}`)
      expect(store.repo(SpacesRepository).get(first.result.space)?.title).toBe('[es] Handbook (es)')

      // The source gains a page; the second run writes a new revision of the same target space.
      writeSource([...sourcePages(), page('pg-faq', 'FAQ', 'Questions and answers.\n')], [WELCOME_BODY, INSTALL_BODY, 'Questions and answers.\n'])
      const spacesBefore = spaceCount()
      await run(translation.id)
      const second = await settled(translation.id)
      expect(second.result.space).toBe(first.result.space)
      expect(second.result.revision).not.toBe(first.result.revision)
      expect(store.repo(RevisionsRepository).get(second.result.revision)?.parents).toEqual([first.result.revision])
      expect(store.repo(SpacesRepository).get(second.result.space)?.revisionId).toBe(second.result.revision)
      expect(spaceCount()).toBe(spacesBefore)
      expect(second.stats).toMatchObject({
        runs: 2,
        latestPages: 4,
        totalPages: 4,
        latestWords: first.stats.latestWords + 1 + 3,
        totalWords: 2 * first.stats.latestWords + 4,
      })
    } finally {
      release()
      setTranslator(t.service.store, copyTranslator)
    }
  })

  it('a failed run is reported, leaves status pending without a result and writes no space', async () => {
    setTranslator(t.service.store, { name: 'broken', machineTranslation: true, translate: () => Promise.reject(new Error('engine offline')) })
    try {
      const translation = await create({ source: { space: source.id, language: 'en' }, language: 'ja' })
      const spacesBefore = spaceCount()
      await run(translation.id)
      const done = await settled(translation.id)
      expect(done.status).toBe('pending')
      expect(done.result).toBeUndefined()
      expect(done.lastRun).toMatchObject({ outcome: 'failed', translator: 'broken' })
      expect(done.lastRun.message).toContain('engine offline')
      expect(done.stats).toMatchObject({ runs: 1, latestPages: 0, totalPages: 0 })
      expect(spaceCount()).toBe(spacesBefore)
    } finally {
      setTranslator(t.service.store, copyTranslator)
    }
  })

  it('PUT replaces the instructions', async () => {
    const translation = await create({ source: { space: source.id, language: 'en' }, language: 'nl' })
    const res = await t.api.call('updateTranslation', { params: params({ translationId: translation.id }), body: { instructions: INSTRUCTIONS } })
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ id: translation.id, instructions: INSTRUCTIONS, status: 'pending' })
  })

  it('DELETE answers 205 when deleted and 204 when the translation did not exist; the translated space stays', async () => {
    const translation = await create({ source: { space: source.id, language: 'en' }, language: 'pl' })
    await run(translation.id)
    const done = await settled(translation.id)
    const deleted = await t.api.call('deleteTranslation', { params: params({ translationId: translation.id }) })
    expect(deleted.status).toBe(205)
    const again = await t.api.call('deleteTranslation', { params: params({ translationId: translation.id }) })
    expect(again.status).toBe(204)
    expect((await t.api.raw('GET', `/orgs/${orgId}/translations/${translation.id}`)).status).toBe(404)
    expect((await t.api.raw('POST', `/orgs/${orgId}/translations/${translation.id}/run`)).status).toBe(404)
    expect(t.service.store.repo(SpacesRepository).get(done.result.space)?.deletedAt).toBeNull()
  })

  it('pages the list with next.page', async () => {
    const total = count()
    expect(total).toBeGreaterThan(2)
    const seen: string[] = []
    let page: string | undefined
    do {
      const res = await t.api.call('listTranslations', { params: params(), query: { limit: 2, page } })
      expect(res.body.count).toBe(total)
      seen.push(...res.body.items.map((x: { id: string }) => x.id))
      page = res.body.next?.page
    } while (page)
    expect(new Set(seen).size).toBe(total)
  })

  it('rejects bad input with 400 and writes nothing', async () => {
    const before = count()
    const spacesBefore = spaceCount()
    const bad: unknown[] = [
      { source: { space: source.id, language: 'en' } },
      { language: 'ko' },
      { source: { space: source.id }, language: 'ko' },
      { source: { language: 'en' }, language: 'ko' },
      { source: { space: source.id, language: 'en' }, language: 'klingon' },
      { source: { space: source.id, language: 'en' }, language: 5 },
      { source: { space: source.id, language: 'en' }, language: 'en' },
      { source: { space: 'no-such-space', language: 'en' }, language: 'ko' },
      { source: { space: otherOrgSpace.id, language: 'en' }, language: 'ko' },
      { source: { space: source.id, language: 'en' }, language: 'ko', instructions: 'be nice' },
      { source: { space: source.id, language: 'en' }, language: 'ko', instructions: { object: 'document' } },
    ]
    for (const body of bad) {
      const res = await t.api.raw('POST', `/orgs/${orgId}/translations`, body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
    }
    expect((await t.api.raw('POST', `/orgs/${orgId}/translations`, '{"language"')).status).toBe(400)

    const existing = t.service.store.repo(TranslationsRepository).listByOrg(orgId)[0]
    for (const body of [{}, { instructions: 'text' }, { instructions: { object: 'document', data: {}, nodes: 'x' } }]) {
      expect((await t.api.raw('PUT', `/orgs/${orgId}/translations/${existing.id}`, body)).status).toBe(400)
    }
    expect(t.service.store.repo(TranslationsRepository).get(existing.id)?.instructions).toEqual(existing.instructions)
    expect(count()).toBe(before)
    expect(spaceCount()).toBe(spacesBefore)
  })

  it('rejects a second translation of a space to the same language (409)', async () => {
    const before = count()
    const res = await t.api.raw('POST', `/orgs/${orgId}/translations`, { source: { space: source.id, language: 'en' }, language: 'fr' })
    expect(res.status).toBe(409)
    expect(count()).toBe(before)
  })

  it('rejects hostile limits', async () => {
    for (const limit of ['5000', '-1', 'abc']) {
      const res = await t.api.raw('GET', `/orgs/${orgId}/translations?limit=${limit}`)
      expect(res.status, limit).toBe(400)
      expect(res.body).toEqual({ error: { code: 400, message: expect.any(String) } })
    }
  })

  it('answers 404 for unknown organizations and translations', async () => {
    const other = await t.api.call('createTranslation', {
      params: { organizationId: otherOrgId },
      body: { source: { space: otherOrgSpace.id, language: 'en' }, language: 'fr' },
    })
    const paths = [
      ['GET', `/orgs/nope/translations`],
      ['POST', `/orgs/nope/translations`, { source: { space: source.id, language: 'en' }, language: 'ko' }],
      ['GET', `/orgs/${orgId}/translations/nope`],
      ['PUT', `/orgs/${orgId}/translations/nope`, { instructions: INSTRUCTIONS }],
      ['POST', `/orgs/${orgId}/translations/nope/run`],
      // Another organization's translation is not reachable through this one.
      ['GET', `/orgs/${orgId}/translations/${other.body.id}`],
      ['POST', `/orgs/${orgId}/translations/${other.body.id}/run`],
    ] as const
    for (const [method, path, body] of paths) {
      const res = await t.api.raw(method, path, body)
      expect(res.status, `${method} ${path}`).toBe(404)
      expect(res.body).toEqual({ error: { code: 404, message: expect.any(String) } })
    }
    const notDeleted = await t.api.call('deleteTranslation', { params: params({ translationId: other.body.id }) })
    expect(notDeleted.status).toBe(204)
    expect(t.service.store.repo(TranslationsRepository).get(other.body.id)).toBeDefined()
  })

  it('members read translations; only admins manage them (403); outsiders get 404', async () => {
    const existing = t.service.store.repo(TranslationsRepository).listByOrg(orgId)[0]
    const read = await member.api.call('getTranslation', { params: params({ translationId: existing.id }) })
    expect(read.body.permissions).toEqual({ view: true, edit: false })
    const list = await member.api.call('listTranslations', { params: params() })
    expect(list.body.count).toBe(count())

    const before = count()
    const writes = [
      ['POST', `/orgs/${orgId}/translations`, { source: { space: source.id, language: 'en' }, language: 'ko' }],
      ['PUT', `/orgs/${orgId}/translations/${existing.id}`, { instructions: INSTRUCTIONS }],
      ['DELETE', `/orgs/${orgId}/translations/${existing.id}`],
      ['POST', `/orgs/${orgId}/translations/${existing.id}/run`],
    ] as const
    for (const [method, path, body] of writes) {
      const res = await member.api.raw(method, path, body)
      expect(res.status, `${method} ${path}`).toBe(403)
      expect(res.body).toEqual({ error: { code: 403, message: expect.any(String) } })
      expect((await stranger.api.raw(method, path, body)).status, `stranger ${method} ${path}`).toBe(404)
    }
    expect((await stranger.api.raw('GET', `/orgs/${orgId}/translations`)).status).toBe(404)
    expect((await stranger.api.raw('GET', `/orgs/${orgId}/translations/${existing.id}`)).status).toBe(404)
    expect(count()).toBe(before)
    expect(t.service.store.repo(TranslationsRepository).get(existing.id)).toMatchObject({ status: existing.status, instructions: existing.instructions })
  })
})

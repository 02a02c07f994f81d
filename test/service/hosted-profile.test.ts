/**
 * `quire service --hosted` in-process (issue 26): the embedded service behaving as the hosted one does.
 * Trees carry no page markdown (a client reads pages one by one), file bytes come from a file host on an
 * origin of its own (no token, and not from the API's origin), a rate limit answers with X-RateLimit-*
 * headers and 429s with Retry-After, and `latencyMs` delays every request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

const NOTES = Buffer.from('notes kept beside the pages\n')

describe('the hosted profile', () => {
  let t: TestService
  let s: ArrangedSpace

  beforeAll(async () => {
    t = await startTestService({ profile: 'hosted' })
    s = arrangeSpace(t.service, [
      page('home', '# Welcome\n\nStart here.\n'),
      page('guide', '# Guide\n\nRead on.\n'),
      page('install', '# Install\n\nRun it.\n', { into: 'guide' }),
      { operation: 'insert_files', files: [{ name: 'notes.txt', contentType: 'text/plain', base64: NOTES.toString('base64') }] },
    ])
  })
  afterAll(() => t.close())

  it('answers trees without page markdown; each page is read on its own, its oid that of its markdown', async () => {
    for (const op of ['getCurrentRevision', 'listPages'] as const) {
      const tree = await t.api.call(op, { params: { spaceId: s.spaceId } })
      const [home, guide] = tree.body.pages
      for (const each of [home, guide, guide.pages[0]]) {
        expect(each.markdown, `${op}: ${each.title}`).toBeUndefined()
        expect(each.document).toBeUndefined()
        const read = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: each.id }, query: { format: 'markdown' } })
        expect(gitBlobOid(read.body.markdown)).toBe(each.git.oid)
      }
    }
  })

  it('serves file bytes from its file host, on an origin of its own, without a token; the API origin has none', async () => {
    expect(t.service.fileOrigin).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(t.service.fileOrigin).not.toBe(t.service.origin)
    const tree = await t.api.call('getCurrentRevision', { params: { spaceId: s.spaceId } })
    const url = new URL(tree.body.files[0].downloadURL)
    expect(url.origin).toBe(t.service.fileOrigin)
    const download = await fetch(url)
    expect(download.status).toBe(200)
    expect(Buffer.from(await download.arrayBuffer()).equals(NOTES)).toBe(true)
    const fromApi = await fetch(`${t.service.origin}${url.pathname}${url.search}`)
    expect(fromApi.status).toBe(404)
    await fromApi.arrayBuffer()
    expect((await fetch(`${t.service.fileOrigin}/v1/user`, { headers: { Authorization: `Bearer ${t.service.token}` } })).status).toBe(404)
  })

  it('reports its rate limit in X-RateLimit-* headers', async () => {
    const res = await t.api.call('getAuthenticatedUser')
    expect(Number(res.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0)
    expect(res.headers.get('x-ratelimit-remaining')).not.toBeNull()
    expect(res.headers.get('x-ratelimit-reset')).not.toBeNull()
  })
})

describe('the hosted profile with a rate and a latency given', () => {
  let t: TestService

  beforeAll(async () => {
    t = await startTestService({ profile: 'hosted', rateLimitPerMinute: 3, rateLimitWindowMs: 1000, latencyMs: 60 })
  })
  afterAll(() => t.close())

  it('answers 429 with Retry-After past the rate, and again once the window has passed', async () => {
    // Windows begin on a whole second (the reset they report is their end): requests may fall in two.
    const answered = new Map<string, number>()
    let refused: Headers | undefined
    for (let i = 0; i < 20 && !refused; i++) {
      const res = await t.api.raw('GET', '/user')
      const reset = res.headers.get('x-ratelimit-reset') ?? ''
      if (res.status === 200) answered.set(reset, (answered.get(reset) ?? 0) + 1)
      if (res.status === 429) refused = res.headers
    }
    for (const count of answered.values()) expect(count).toBeLessThanOrEqual(3)
    expect(refused).toBeDefined()
    expect(Number(refused!.get('retry-after'))).toBeGreaterThanOrEqual(1)
    expect(refused!.get('x-ratelimit-remaining')).toBe('0')
    await new Promise((resolve) => setTimeout(resolve, Number(refused!.get('retry-after')) * 1000))
    expect((await t.api.raw('GET', '/user')).status).toBe(200)
  })

  it('holds every request for the latency, the file host\'s too', async () => {
    for (const url of [`${t.service.origin}/v1/user`, `${t.service.fileOrigin}/files/none`]) {
      const started = performance.now()
      await (await fetch(url)).arrayBuffer()
      expect(performance.now() - started, url).toBeGreaterThanOrEqual(55)
    }
  })
})

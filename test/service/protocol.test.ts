import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RateLimiter } from '../../src/main/service/http/rate-limit'
import { startTestService, type TestService } from '../support/service'

describe('service protocol', () => {
  let t: TestService
  beforeAll(async () => {
    t = await startTestService()
  })
  afterAll(() => t.close())

  it('GET /user answers the caller', async () => {
    const res = await t.api.call('getAuthenticatedUser')
    expect(res.status).toBe(200)
    expect(res.body.id).toBe(t.service.ownerId)
    expect(res.body.object).toBe('user')
  })

  it('answers 401 with the error body without a token or with a wrong one', async () => {
    for (const token of [null, 'wrong']) {
      const res = await t.api.raw('GET', '/user', undefined, token)
      expect(res.status).toBe(401)
      expect(res.body).toEqual({ error: { code: 401, message: expect.any(String) } })
      expect(res.headers.get('www-authenticate')).toBe('Bearer')
    }
  })

  it('answers 404 for unknown paths and 405 for a wrong method', async () => {
    expect((await t.api.raw('GET', '/nothing/here')).status).toBe(404)
    expect((await t.api.raw('DELETE', '/user')).status).toBe(405)
    expect((await t.api.raw('GET', `${t.service.origin}/user`)).status).toBe(404)
  })

  it('another user sees themselves', async () => {
    const other = t.service.createUser({ displayName: 'Ada', email: 'ada@example.com' })
    const res = await t.api.as(other.token).call('getAuthenticatedUser')
    expect(res.body).toMatchObject({ id: other.id, displayName: 'Ada', email: 'ada@example.com' })
  })
})

describe('rate limit', () => {
  it('answers 429 with Retry-After and reports X-RateLimit-* on every response', async () => {
    const t = await startTestService({ rateLimitPerMinute: 3 })
    try {
      const statuses: number[] = []
      for (let i = 0; i < 4; i++) {
        const res = await t.api.raw('GET', '/user')
        statuses.push(res.status)
        expect(res.headers.get('x-ratelimit-limit')).toBe('3')
        expect(Number(res.headers.get('x-ratelimit-remaining'))).toBe(Math.max(0, 2 - i))
        expect(Number(res.headers.get('x-ratelimit-reset'))).toBeGreaterThan(Date.now() / 1000)
      }
      expect(statuses).toEqual([200, 200, 200, 429])
      const limited = await t.api.raw('GET', '/user')
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
      expect(limited.body).toEqual({ error: { code: 429, message: expect.any(String) } })
    } finally {
      await t.close()
    }
  })

  it('a window ends at the reset it reports (epoch seconds): the next request after it starts a new one', () => {
    let now = 1_700_000_000_600
    const limiter = new RateLimiter(2, () => now, 1000)
    const first = limiter.take('token')
    expect(first.headers['X-RateLimit-Reset']).toBe('1700000001')
    expect(limiter.take('token').allowed).toBe(true)
    expect(limiter.take('token').allowed).toBe(false)
    // Right at the reset the headers gave, a client that waited for it is answered.
    now = 1_700_000_001_000
    const next = limiter.take('token')
    expect(next.allowed).toBe(true)
    expect(next.headers['X-RateLimit-Remaining']).toBe('1')
  })
})

import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { ApiGateway, paginate, ServiceUnreachableError, type GatewayEvent } from '../../src/main/engine/gateway/api-gateway'
import { backoffDelay, parseRetryAfter } from '../../src/main/engine/gateway/retry-policy'
import { startTestService } from '../support/service'

type Script = (req: http.IncomingMessage, res: http.ServerResponse, n: number) => void
const servers: http.Server[] = []
afterEach(async () => {
  for (const s of servers.splice(0)) await new Promise((r) => (s.closeAllConnections(), s.close(r)))
})

/** A loopback server answering each request by a script, counting requests. */
async function scripted(script: Script) {
  let n = 0
  const server = http.createServer((req, res) => script(req, res, n++))
  servers.push(server)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, count: () => n }
}

const json = (res: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers })
  res.end(JSON.stringify(body))
}
const user = { object: 'user', id: 'u1', displayName: 'U', urls: { location: 'http://x/u1' } }

function gateway(origin: string, extra: Partial<ConstructorParameters<typeof ApiGateway>[0]> = {}) {
  const events: GatewayEvent[] = []
  const sleeps: number[] = []
  const gw = new ApiGateway({
    endpoint: origin,
    token: 't',
    sleep: async (ms) => void sleeps.push(ms),
    random: () => 0.5,
    onEvent: (e) => events.push(e),
    ...extra,
  })
  return { gw, events, sleeps }
}

describe('retry policy', () => {
  it('computes full-jitter backoff bounded by the cap', () => {
    expect(backoffDelay(0, { baseMs: 100, capMs: 1000 }, () => 0.999)).toBe(99)
    expect(backoffDelay(10, { baseMs: 100, capMs: 1000 }, () => 0.5)).toBe(500)
    expect(backoffDelay(3, { baseMs: 100, capMs: 1000 }, () => 0)).toBe(0)
  })
  it('reads Retry-After as seconds or as an HTTP date', () => {
    expect(parseRetryAfter('7')).toBe(7000)
    const now = Date.parse('2026-01-01T00:00:00Z')
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('soon')).toBeUndefined()
    expect(parseRetryAfter(null)).toBeUndefined()
  })
})

describe('ApiGateway', () => {
  it('knows the service is away from the first attempt with no answer, while it waits out retries; the next answer clears it', async () => {
    const s = await scripted((_req, res) => json(res, 200, user))
    let calls = 0
    const refusedOnce: typeof fetch = (input, init) =>
      calls++ === 0 ? Promise.reject(Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })) : fetch(input, init)
    const seenWhileWaiting: Array<string | undefined> = []
    const changes: Array<string | undefined> = []
    const gw: ApiGateway = new ApiGateway({ endpoint: s.origin, token: 't', fetch: refusedOnce, random: () => 0.5, sleep: async () => void seenWhileWaiting.push(gw.reachability.unreachable) })
    gw.reachability.observe((reason) => changes.push(reason))
    expect(gw.reachability.unreachable).toBeUndefined()
    await gw.client.user.getAuthenticatedUser()
    expect(seenWhileWaiting).toEqual([expect.stringMatching(/cannot be reached/)])
    expect(gw.reachability.unreachable).toBeUndefined()
    expect(changes).toEqual([expect.stringMatching(/cannot be reached/), undefined])
  })

  it('waits out a 429 for as long as Retry-After says, then succeeds', async () => {
    const s = await scripted((_req, res, n) =>
      n === 0 ? json(res, 429, { error: { code: 429, message: 'slow down' } }, { 'Retry-After': '3' }) : json(res, 200, user),
    )
    const { gw, events, sleeps } = gateway(s.origin)
    const { data } = await gw.client.user.getAuthenticatedUser()
    expect(data.id).toBe('u1')
    expect(s.count()).toBe(2)
    expect(events.find((e) => e.type === 'rate-limited')).toMatchObject({ waitMs: 3000 })
    expect(sleeps.some((ms) => ms > 2000 && ms <= 3000)).toBe(true)
  })

  it('retries 5xx on reads with backoff, but never re-sends a POST the server may have applied', async () => {
    const s = await scripted((req, res, n) => (n < 2 ? json(res, 503, { error: { code: 503, message: 'busy' } }) : json(res, 200, user)))
    const { gw, events } = gateway(s.origin)
    await gw.client.user.getAuthenticatedUser()
    expect(events.filter((e) => e.type === 'retry')).toHaveLength(2)

    const p = await scripted((_req, res) => json(res, 500, { error: { code: 500, message: 'boom' } }))
    const post = gateway(p.origin)
    const res = await post.gw.fetch(`${p.origin}/v1/spaces/s/change-requests`, { method: 'POST', body: '{}' })
    expect(res.status).toBe(500)
    expect(p.count()).toBe(1)
  })

  it('reads X-RateLimit-* on every response and pauses when the window is spent', async () => {
    const reset = Math.ceil(Date.now() / 1000) + 2
    const s = await scripted((_req, res) => json(res, 200, user, { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '0', 'X-RateLimit-Reset': String(reset) }))
    const { gw, events, sleeps } = gateway(s.origin)
    await gw.client.user.getAuthenticatedUser()
    expect(gw.rateLimit).toMatchObject({ limit: 10, remaining: 0, resetAt: reset * 1000 })
    expect(events.some((e) => e.type === 'paused')).toBe(true)
    await gw.client.user.getAuthenticatedUser()
    expect(sleeps.length).toBeGreaterThan(0)
  })

  it("spends none of the API's rate-limit window on downloads from a file host", async () => {
    const reset = Math.ceil(Date.now() / 1000) + 30
    const api = await scripted((_req, res) => json(res, 200, user, { 'X-RateLimit-Limit': '10', 'X-RateLimit-Remaining': '1', 'X-RateLimit-Reset': String(reset) }))
    const files = await scripted((_req, res) => (res.writeHead(200, { 'Content-Type': 'image/png' }), res.end('png')))
    const { gw, sleeps } = gateway(api.origin)
    await gw.client.user.getAuthenticatedUser()
    for (let i = 0; i < 3; i++) expect(await (await gw.fetchFile(new URL(`${files.origin}/f${i}.png`), { stream: false })).text()).toBe('png')
    // The window still has the one request the API said it has: sent at once.
    await gw.client.user.getAuthenticatedUser()
    expect(sleeps).toEqual([])
    expect([api.count(), files.count()]).toEqual([2, 3])
  })

  it('times out a hung request and reports the service unreachable after its attempts', async () => {
    const s = await scripted(() => {
      /* never answers */
    })
    const { gw } = gateway(s.origin, { timeoutMs: 100, maxAttempts: 2 })
    await expect(gw.fetch(`${s.origin}/v1/user`)).rejects.toBeInstanceOf(ServiceUnreachableError)
    expect(s.count()).toBe(2)
  })

  it('says the service is unreachable when nothing listens', async () => {
    const s = await scripted(() => {})
    const origin = s.origin
    await new Promise((r) => servers.pop()!.close(r))
    const { gw } = gateway(origin, { maxAttempts: 3 })
    await expect(gw.client.user.getAuthenticatedUser()).rejects.toThrow(/cannot be reached/)
  })

  it('respects the local service rate limit end to end', async () => {
    const t = await startTestService({ rateLimitPerMinute: 2 })
    try {
      const { gw, events } = gateway(t.service.origin, { token: t.service.token, maxAttempts: 2 })
      await gw.client.user.getAuthenticatedUser()
      await gw.client.user.getAuthenticatedUser()
      expect(gw.rateLimit.remaining).toBe(0)
      await expect(gw.client.user.getAuthenticatedUser()).rejects.toThrow()
      expect(events.some((e) => e.type === 'rate-limited' && e.waitMs >= 1000)).toBe(true)
    } finally {
      await t.close()
    }
  })
})

describe('paginate', () => {
  it('follows next.page to the end and refuses a token loop', async () => {
    const pages: Record<string, { items: number[]; next?: { page: string } }> = {
      start: { items: [1, 2], next: { page: 'b' } },
      b: { items: [3], next: { page: 'c' } },
      c: { items: [4] },
    }
    const all: number[] = []
    for await (const n of paginate((p) => Promise.resolve(pages[p ?? 'start']))) all.push(n)
    expect(all).toEqual([1, 2, 3, 4])
    const looping = paginate(() => Promise.resolve({ items: [1], next: { page: 'same' } }))
    await expect((async () => {
      for await (const _ of looping) {
        /* drain */
      }
    })()).rejects.toThrow(/same page token/)
  })
})

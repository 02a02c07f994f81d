import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../src/main/service/http/json-depth'
import { arrangeSpace, page } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

/** JSON nested `depth` levels, built as text (building it as an object and stringifying would recurse). */
const nested = (depth: number) => `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`
const documentWithData = (data: string) => `{"object":"document","data":${data},"nodes":[]}`

/** A raw request that reports a reset instead of throwing, so a test can tell a reset from a status. */
function send(url: string, token: string, method: string, body: Buffer): Promise<{ status: number; body: string; connection?: string } | { reset: string }> {
  const target = new URL(url)
  return new Promise((resolve) => {
    const req = http.request(
      { host: target.hostname, port: target.port, method, path: target.pathname, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', 'Content-Length': body.length } },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (c: string) => (text += c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text, connection: res.headers.connection }))
        res.on('error', (error) => resolve({ reset: String(error) }))
      },
    )
    req.on('error', (error) => resolve({ reset: String(error) }))
    req.end(body)
  })
}

describe('the service at its edges (issue 10, finding 5)', () => {
  let t: TestService
  let orgId: string
  let spaceId: string
  let changeRequestId: string
  const logged: string[] = []

  beforeAll(async () => {
    t = await startTestService({ log: (line) => logged.push(line) })
    const s = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n')])
    orgId = s.orgId
    spaceId = s.spaceId
    changeRequestId = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Deep' } })).body.id
  })
  afterAll(() => t.close())

  const targets = () => [
    { name: 'agent instructions', method: 'PUT', path: `/orgs/${orgId}/agent-instructions`, body: (doc: string) => `{"instructions":${doc}}`, ok: 200 },
    { name: 'change request description', method: 'PATCH', path: `/spaces/${spaceId}/change-requests/${changeRequestId}`, body: (doc: string) => `{"description":${doc}}`, ok: 200 },
    {
      name: 'translation instructions',
      method: 'POST',
      path: `/orgs/${orgId}/translations`,
      body: (doc: string) => `{"source":{"space":"${spaceId}","language":"en"},"language":"fr","instructions":${doc}}`,
      ok: 201,
    },
  ]

  it('answers JSON nested 10,000 deep inside free-form document data with 400 and the spec error body, not a 500', async () => {
    for (const target of targets()) {
      for (const depth of [10_000, 100_000]) {
        const reply = await t.api.raw(target.method, target.path, target.body(documentWithData(nested(depth))))
        expect(reply.status, `${target.name} at depth ${depth}`).toBe(400)
        expect(reply.body).toEqual({ error: { code: 400, message: expect.stringMatching(/nested more than \d+ levels/) } })
      }
    }
    expect(logged.filter((l) => l.includes('internal error'))).toEqual([])
  })

  it('counts nesting in the text, brackets inside strings (escaped quotes too) not counting', () => {
    expect(nestsDeeperThan('{"a":[1]}', 2)).toBe(false)
    expect(nestsDeeperThan('{"a":[[1]]}', 2)).toBe(true)
    expect(nestsDeeperThan('{"a":"[[[[{{{{","b":"\\"[[[[\\\\"}', 1)).toBe(false)
    expect(nestsDeeperThan('[{}, {}, {}, [], []]', 2)).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH))).toBe(false)
    expect(nestsDeeperThan(nested(MAX_JSON_DEPTH + 1))).toBe(true)
  })

  it('still takes documents nested as deep as real ones get', async () => {
    for (const target of targets()) {
      const reply = await t.api.raw(target.method, target.path, target.body(documentWithData(nested(MAX_JSON_DEPTH - 10))))
      expect(reply.status, target.name).toBe(target.ok)
    }
  })

  it('sends a body over 32 MB its 413 (read by the client), then closes the connection', async () => {
    const big = Buffer.alloc(33 * 1024 * 1024, 0x20)
    big.write('{"subject":"', 0)
    const reply = await send(`${t.service.baseUrl}/spaces/${spaceId}/change-requests/${changeRequestId}`, t.service.token, 'PATCH', big)
    expect(reply).toMatchObject({ status: 413, connection: 'close' })
    expect(JSON.parse((reply as { body: string }).body)).toEqual({ error: { code: 413, message: expect.stringMatching(/larger than/) } })
  })
})

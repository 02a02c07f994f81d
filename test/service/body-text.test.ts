/**
 * Issue 25, item 6: a JSON body whose bytes are not UTF-8, or whose strings hold a lone surrogate
 * (`"\ud800"`), was taken, stored as U+FFFD, and echoed back as sent. Both are refused with a 400 and
 * the spec's error body, and nothing is written. A client that leaves mid-request is no internal error.
 */
import http from 'node:http'
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'
import { until } from '../support/until'

let t: TestService
let space: ArrangedSpace
const logged: string[] = []
const debugged: string[] = []

beforeAll(async () => {
  t = await startTestService({ log: (line) => logged.push(line), debug: (line) => debugged.push(line) })
  space = arrangeSpace(t.service, [page('a', '# A\n')], { title: 'Before' })
})
afterAll(() => t.close())

/** PATCHes the space's title with the body's exact bytes (no client re-encodes them). */
function patchSpace(body: Buffer): Promise<{ status: number; body: unknown }> {
  const url = new URL(`${t.service.baseUrl}/spaces/${space.spaceId}`)
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: url.hostname, port: url.port, path: url.pathname, method: 'PATCH', headers: { Authorization: `Bearer ${t.service.token}`, 'Content-Type': 'application/json', 'Content-Length': body.length } },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) as unknown }))
      },
    )
    req.on('error', reject)
    req.end(body)
  })
}

async function title(): Promise<string> {
  return ((await t.api.call('getSpaceById', { params: { spaceId: space.spaceId } })).body as { title: string }).title
}

describe('request bodies are UTF-8 text and Unicode strings', () => {
  it('refuses bytes that are not UTF-8 with a 400 and writes nothing', async () => {
    // "Caf\xe9": Latin-1, not UTF-8; then a lone continuation byte, and an overlong encoding of "/".
    for (const bad of [Buffer.from([0xe9]), Buffer.from([0x80]), Buffer.from([0xc0, 0xaf])]) {
      const body = Buffer.concat([Buffer.from('{"title":"Caf'), bad, Buffer.from('"}')])
      const answer = await patchSpace(body)
      expect(answer).toEqual({ status: 400, body: { error: { code: 400, message: 'request body is not valid UTF-8' } } })
    }
    expect(await title()).toBe('Before')
  })

  it('refuses a lone surrogate escape with a 400 and writes nothing; an escaped pair is a character', async () => {
    for (const escaped of ['\\ud800', 'x\\udc00y', '\\ud83d\\ud83d', '\\ude00\\ud83d']) {
      const answer = await patchSpace(Buffer.from(`{"title":"Bad ${escaped}"}`))
      expect(answer.status).toBe(400)
      expect(answer.body).toEqual({ error: { code: 400, message: expect.stringMatching(/lone UTF-16 surrogate .*at \.title$/) } })
    }
    // In a key, too.
    expect((await patchSpace(Buffer.from('{"title":"T","\\udbff":1}'))).status).toBe(400)
    expect(await title()).toBe('Before')

    // A pair escaped as two \u escapes is one character (what Python's json.dumps writes), and "\\ud800"
    // (an escaped backslash, then text) is no escape at all.
    const pair = await patchSpace(Buffer.from('{"title":"Smile \\ud83d\\ude00 \\\\ud800"}'))
    expect(pair.status).toBe(200)
    expect(await title()).toBe('Smile \u{1F600} \\ud800')
  })
})

describe('a client that leaves mid-request', () => {
  it('is not logged as an internal error', async () => {
    const url = new URL(t.service.baseUrl)
    const socket = net.connect(Number(url.port), url.hostname)
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    const head = [`PATCH /v1/spaces/${space.spaceId} HTTP/1.1`, `Host: ${url.host}`, `Authorization: Bearer ${t.service.token}`, 'Content-Type: application/json', 'Content-Length: 1000', '', ''].join('\r\n')
    await new Promise<void>((resolve) => socket.write(`${head}{"title":"half`, () => resolve()))
    // The service has started reading the body (it answers nothing before the end): then the client leaves.
    socket.destroy()
    await until(() => (debugged.some((l) => /closed the connection mid-request/.test(l)) || logged.some((l) => /internal error/.test(l)) ? true : undefined), 'the service to see the client leave')
    expect(logged.filter((l) => /internal error|aborted/.test(l))).toEqual([])
    expect(await title()).not.toMatch(/half/)
  })
})

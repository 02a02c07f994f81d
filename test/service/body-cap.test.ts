/**
 * The service's 32 MiB body cap (issue 14): a body over it is answered 413 with the spec's error body,
 * read by the client, never a reset. A reset is what made the client take the service for offline and
 * send the same request forever. The client is Node's fetch, as the sync engine's gateway uses it.
 */
import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { arrangeSpace, page } from '../support/content-fixtures'
import { startTestService, type TestService } from '../support/service'

const MiB = 1024 * 1024

/** The outcome of a request: the status and body the client read, or the error it got instead. */
async function post(url: string, token: string, body: Uint8Array | string): Promise<{ status: number; body: unknown } | { error: string }> {
  try {
    const response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body as BodyInit })
    const text = await response.text()
    return { status: response.status, body: JSON.parse(text) as unknown }
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string } }).cause
    return { error: `${String(error)} (${cause?.code ?? cause?.message ?? 'no cause'})` }
  }
}

/** A body of `size` bytes that opens like a batch of changes. */
function bigBody(size: number): Buffer {
  const body = Buffer.alloc(size, 0x20)
  body.write('{"changes":[', 0)
  return body
}

/**
 * A client that sends its whole body before it reads anything (as many HTTP/1.1 clients do): over a raw
 * socket, reading paused until the last byte is written. A service that closes the connection with
 * bytes still unread resets it, and the client never reads the answer.
 */
async function sendAllThenRead(url: string, token: string, size: number): Promise<{ head: string; body: string } | { error: string }> {
  const target = new URL(url)
  const socket = net.connect(Number(target.port), target.hostname)
  socket.pause()
  const received: Buffer[] = []
  let failure: string | undefined
  socket.on('data', (chunk: Buffer) => received.push(chunk))
  socket.on('error', (error: NodeJS.ErrnoException) => (failure ??= error.code ?? error.message))
  const closed = new Promise<void>((resolve) => socket.on('close', () => resolve()))
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  const head = [`POST ${target.pathname} HTTP/1.1`, `Host: ${target.host}`, `Authorization: Bearer ${token}`, 'Content-Type: application/json', `Content-Length: ${size}`, '', ''].join('\r\n')
  const body = bigBody(size)
  const write = (bytes: Buffer | string) => new Promise<boolean>((resolve) => socket.write(bytes, (error) => resolve(!error)))
  let ok = await write(head)
  for (let at = 0; ok && at < size; at += MiB) ok = await write(body.subarray(at, at + MiB))
  socket.resume()
  await closed
  const text = Buffer.concat(received).toString('utf8')
  const split = text.indexOf('\r\n\r\n')
  if (split === -1) return { error: failure ?? 'closed without an answer' }
  return { head: text.slice(0, split), body: text.slice(split + 4) }
}

describe('the body cap answers 413 before closing', () => {
  let t: TestService
  let contentUrl: string

  beforeAll(async () => {
    t = await startTestService()
    const { spaceId } = arrangeSpace(t.service, [page('home', '# Home\n\nWelcome.\n')])
    const changeRequestId = ((await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Big' } })).body as { id: string }).id
    contentUrl = `${t.service.baseUrl}/spaces/${spaceId}/change-requests/${changeRequestId}/content`
  })
  afterAll(() => t.close())

  const refusal = { status: 413, body: { error: { code: 413, message: expect.stringMatching(/larger than 33554432 bytes/) } } }

  it('answers a 33 MiB body with 413 and the spec error body', async () => {
    expect(await post(contentUrl, t.service.token, bigBody(33 * MiB))).toEqual(refusal)
  })

  it('answers 413, not a reset, to a client that sends its whole body (64 MiB) before reading; then closes the connection', async () => {
    // Twice the cap: the client is still sending long after the answer, more than socket buffers hold.
    const reply = await sendAllThenRead(contentUrl, t.service.token, 64 * MiB)
    expect(reply).toMatchObject({ head: expect.stringMatching(/^HTTP\/1\.1 413 /) })
    const { head, body } = reply as { head: string; body: string }
    expect(head).toMatch(/\r\nconnection: close\r\n/i)
    expect(JSON.parse(body)).toEqual(refusal.body)
  })

  it('answers 413 to every one of many bodies far over the cap, and still serves the next request', async () => {
    for (let round = 0; round < 4; round++) expect(await post(contentUrl, t.service.token, bigBody(120 * MiB)), `round ${round}`).toEqual(refusal)
    const fine = await post(contentUrl, t.service.token, JSON.stringify({ changes: [{ operation: 'insert_page', title: 'Small', document: { markdown: '# Small\n' } }] }))
    expect(fine).toMatchObject({ status: 200 })
  })
})

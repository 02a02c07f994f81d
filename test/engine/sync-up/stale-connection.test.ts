import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { openChangeRequestMarkdown, openChangeRequests, pageIdAt, remoteOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * Issue 26, item 2: a request written on a keep-alive connection the service had just closed fails
 * before any answer byte (EPIPE, ECONNRESET). A content batch that met one stopped the whole push as
 * "the service cannot be reached" (a real 800-page import stopped on the next batch, four times). Now
 * the op is reconciled at once and, not found on the service, sent again on a new connection.
 *
 * The service is reached through a TCP proxy that plays the stale socket: the first content POST's
 * connection is reset as soon as its request line arrives, before the service sees any of it.
 */

const t = serviceForFile()

/**
 * A loopback HTTP proxy to the service (keep-alive on both sides) that resets the connection of the
 * first `resets` requests whose request line matches `line`, as soon as their head arrives.
 */
async function resettingProxy(target: URL, line: RegExp, resets: number) {
  let left = resets
  const seen: string[] = []
  const server = http.createServer((req, res) => {
    const request = `${req.method} ${req.url}`
    seen.push(request)
    if (left > 0 && line.test(request)) {
      left--
      req.socket.resetAndDestroy()
      return
    }
    const upstream = http.request({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.on('error', () => res.destroy())
    req.pipe(upstream)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    origin: `http://127.0.0.1:${port}`,
    seen,
    close: () => {
      server.closeAllConnections()
      return new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}

let ws: Workstation | undefined
let proxy: Awaited<ReturnType<typeof resettingProxy>> | undefined
beforeEach(() => {
  ws = undefined
  proxy = undefined
})
afterEach(async () => {
  if (ws) removeWorkstation(ws)
  await proxy?.close()
})

describe('a connection that breaks before any answer', () => {
  it('a content batch whose connection is reset before the service read it is sent again at once, once, and the push goes on', async () => {
    const seeded = await seedSpace(t)
    proxy = await resettingProxy(new URL(t.service.origin), /^POST \S+\/change-requests\/[^/\s]+\/content/, 1)
    ws = new Workstation({ ...remoteOf(t), origin: proxy.origin }, seeded, tempDir())
    await ws.pull()
    ws.write('faq.md', `${ws.read('faq.md').trimEnd()}\n\nAnswered after a stale socket.\n`)
    const pushed = await ws.push()
    expect(pushed.stopped).toBeUndefined()
    expect(pushed.failures).toEqual([])
    // The reset request and the one sent again, and no other content request.
    expect(proxy.seen.filter((line) => /^POST \S+\/content/.test(line))).toHaveLength(2)
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    expect(cr).toBeDefined()
    const faq = await pageIdAt(t.api, seeded.spaceId, 'faq.md')
    expect(await openChangeRequestMarkdown(t.api, seeded.spaceId, faq)).toContain('Answered after a stale socket.')
    expect(ws.outbox.unfinished(seeded.spaceId)).toEqual([])
    expect(fs.existsSync(ws.file('faq.md'))).toBe(true)
  })

  it('a connection that keeps breaking stops the push as offline after the one try again, the op kept for later', async () => {
    const seeded = await seedSpace(t)
    proxy = await resettingProxy(new URL(t.service.origin), /^POST \S+\/change-requests\/[^/\s]+\/content/, 2)
    ws = new Workstation({ ...remoteOf(t), origin: proxy.origin }, seeded, tempDir())
    await ws.pull()
    ws.write('faq.md', `${ws.read('faq.md').trimEnd()}\n\nKept for later.\n`)
    const pushed = await ws.push()
    expect(pushed.stopped?.reason).toBe('offline')
    expect(ws.outbox.unfinished(seeded.spaceId).map((op) => op.kind)).toContain('content')
    // The next push finds it did not arrive and sends it.
    const again = await ws.push()
    expect(again.stopped).toBeUndefined()
    const faq = await pageIdAt(t.api, seeded.spaceId, 'faq.md')
    expect(await openChangeRequestMarkdown(t.api, seeded.spaceId, faq)).toContain('Kept for later.')
  })
})

/**
 * Issue 26, item 1, end to end: a hosted service serves file bytes from hosts of its own (a CDN, a
 * bucket), so a download URL on another origin than the API's is fetched, without the token, compressed
 * or redirected as such hosts do; and only a service on this machine or a private network may name a
 * file host there. The service is the real local service; the file hosts are real servers on other
 * loopback ports that serve its bytes; the answers naming them are rewritten as a hosted service's would
 * read.
 */
import fs from 'node:fs'
import http from 'node:http'
import type { AddressInfo } from 'node:net'
import zlib from 'node:zlib'
import type { ChangeRequest, Revision } from '@gitbook/api'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './sync-up/support/hooks'
import { PNG, seedSpace, tempDir, Workstation } from './sync-up/support/workspace'

const t = serviceForFile()

interface Hit {
  url: string
  authorization?: string
  acceptEncoding?: string
}

/**
 * A file host on its own loopback port: `/moved/<path>` answers a redirect to `redirectTo` + `<path>`;
 * any other path is the service's bytes at that path, gzip-compressed when asked (its Content-Length the
 * compressed size, as a CDN's).
 */
async function fileHost(redirectTo?: () => string) {
  const hits: Hit[] = []
  const server = http.createServer(async (req, res) => {
    hits.push({ url: req.url ?? '', authorization: req.headers.authorization, acceptEncoding: req.headers['accept-encoding'] })
    if (redirectTo && req.url?.startsWith('/moved/')) {
      res.writeHead(302, { Location: `${redirectTo()}${req.url.slice('/moved'.length)}` })
      return res.end()
    }
    const upstream = await fetch(`${t.service.origin}${req.url}`)
    const bytes = Buffer.from(await upstream.arrayBuffer())
    const gzip = /\bgzip\b/.test(req.headers['accept-encoding'] ?? '')
    const body = gzip ? zlib.gzipSync(bytes) : bytes
    res.writeHead(upstream.status, { 'Content-Type': upstream.headers.get('content-type') ?? 'application/octet-stream', 'Content-Length': String(body.length), ...(gzip ? { 'Content-Encoding': 'gzip' } : {}) })
    res.end(body)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { server, origin, hits }
}

let cdn: Awaited<ReturnType<typeof fileHost>>
let bucket: Awaited<ReturnType<typeof fileHost>>
beforeAll(async () => {
  bucket = await fileHost()
  cdn = await fileHost(() => bucket.origin)
})
afterAll(async () => {
  for (const { server } of [cdn, bucket]) await new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve())))
})

let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
  cdn.hits.length = 0
  bucket.hits.length = 0
})

/** A fetch whose answers name the file hosts as the downloads' origins, as a hosted service's do. */
function namingFileHosts(): typeof fetch {
  return async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const response = await fetch(input, init)
    if (!/^\/v1\/spaces\/[^/]+\/content$/.test(url.pathname) || !response.ok) return response
    const revision = (await response.json()) as Revision
    for (const file of revision.files) {
      const served = new URL(file.downloadURL)
      const where = file.name === 'logo.png' ? cdn.origin : `${cdn.origin}/moved`
      file.downloadURL = `${where}${served.pathname}${served.search}`
    }
    return new Response(JSON.stringify(revision), { status: response.status, headers: { 'Content-Type': 'application/json' } })
  }
}

async function withSecondFile() {
  const seeded = await seedSpace(t)
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Setup' } })).body as ChangeRequest
  const changes = [{ operation: 'insert_files', files: [{ ref: 'b', name: 'second.png', base64: PNG.toString('base64') }] }]
  expect((await t.api.call('updateChangeRequestContent', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id }, body: { changes } })).status).toBeLessThan(300)
  expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })).body.result).toBe('merge')
  return seeded
}

describe('file hosts', () => {
  it('a service on this machine may name file hosts on other ports: the bytes come from there, compressed or redirected, never with the token', async () => {
    const seeded = await withSecondFile()
    ws = new Workstation(t, seeded, tempDir(), { gateway: { fetch: namingFileHosts() } })
    const pulled = await ws.pull()
    expect(pulled.issues).toEqual([])
    expect(fs.readFileSync(ws.file('.gitbook/assets/logo.png'))).toEqual(PNG)
    expect(fs.readFileSync(ws.file('.gitbook/assets/second.png'))).toEqual(PNG)
    // logo.png from the CDN, gzip-compressed (its Content-Length the compressed size); second.png redirected to the bucket.
    expect(cdn.hits.map((h) => h.url.split('?')[0])).toEqual(expect.arrayContaining([expect.stringMatching(/^\/files\/.*\/logo\.png$/), expect.stringMatching(/^\/moved\/files\/.*\/second\.png$/)]))
    expect(cdn.hits.find((h) => h.url.includes('logo.png'))?.acceptEncoding).toMatch(/\bgzip\b/)
    expect(bucket.hits.map((h) => h.url.split('?')[0])).toEqual([expect.stringMatching(/^\/files\/.*\/second\.png$/)])
    expect([...cdn.hits, ...bucket.hits].map((h) => h.authorization)).toEqual([...cdn.hits, ...bucket.hits].map(() => undefined))
  })

  it('a service on the public internet may not: a file host on this machine is refused, naming the host and why, and nothing reaches it', async () => {
    const seeded = await withSecondFile()
    ws = new Workstation(t, seeded, tempDir(), { gateway: { fetch: namingFileHosts(), apiNetwork: 'public' } })
    const pulled = await ws.pull()
    expect(cdn.hits).toEqual([])
    expect(bucket.hits).toEqual([])
    const reasons = pulled.issues.map((i) => JSON.stringify(i)).join('\n')
    expect(reasons).toContain(`refusing to download file`)
    expect(reasons).toContain(`from ${new URL(cdn.origin).host}: it is on this machine or a private network, and the service (${t.service.origin}) is not`)
    expect(fs.existsSync(ws.file('.gitbook/assets/logo.png'))).toBe(false)
    expect(fs.existsSync(ws.file('.gitbook/assets/second.png'))).toBe(false)
    // The pages arrived all the same.
    expect(ws.read('faq.md')).toBe('# FAQ\n\nQuestions.\n')
  })
})

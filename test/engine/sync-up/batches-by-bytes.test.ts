import crypto from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Revision } from '@gitbook/api'
import { afterEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { MAX_BATCH_BYTES } from '../../../src/main/engine/push/batches'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { changeRequestRevision, openChangeRequests, pagesOf, PNG, seedSpace, SEED_PAGES, tempDir, Workstation } from './support/workspace'

/**
 * The push path bounded by bytes (issue 14): batches of at most MAX_BATCH_BYTES of request body, uploads
 * kept in the outbox by reference (never their bytes), read and checked when sent, a 413 that halves
 * the batch. Every request is counted by a fetch given to the workstation's gateway.
 */
const t = serviceForFile()

interface Sent {
  url: string
  method: string
  bytes: number
  status: number
  body: string
}

/** A fetch that records every request's body size, and can answer 413 or refuse the connection for content requests. */
class CountingFetch {
  readonly sent: Sent[] = []
  /** Content requests with a larger body are answered 413 (as a service with that cap would). */
  tooLargeOver = Infinity
  /** Content requests fail as a refused connection (nothing reaches the service). */
  offline = false

  readonly fetch: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init?.method ?? 'GET').toUpperCase()
    // Content batches go as bytes (the sender writes their base64 straight into the body).
    const body = typeof init?.body === 'string' ? init.body : init?.body instanceof Uint8Array ? Buffer.from(init.body).toString('utf8') : ''
    const bytes = Buffer.byteLength(body)
    const content = /\/change-requests\/[^/]+\/content$/.test(new URL(url).pathname)
    if (content && this.offline) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })
    if (content && bytes > this.tooLargeOver) {
      this.sent.push({ url, method, bytes, status: 413, body })
      const error = { error: { code: 413, message: `request body is larger than ${this.tooLargeOver} bytes` } }
      return new Response(JSON.stringify(error), { status: 413, headers: { 'content-type': 'application/json' } })
    }
    const response = await fetch(input, init)
    this.sent.push({ url, method, bytes, status: response.status, body })
    return response
  }

  contentRequests(): Sent[] {
    return this.sent.filter((s) => /\/change-requests\/[^/]+\/content$/.test(new URL(s.url).pathname) && s.method !== 'GET')
  }
}

let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

async function workstation(counting: CountingFetch): Promise<Workstation> {
  ws = new Workstation(t, await seedSpace(t), tempDir('quire-bytes-'), { gateway: { fetch: counting.fetch } })
  await ws.pull()
  return ws
}

/** A PNG-headed file of `size` random bytes (random: nothing compresses it on the way). */
function image(size: number): Buffer {
  return Buffer.concat([PNG.subarray(0, 24), crypto.randomBytes(size - 24)])
}

/** Writes `count` images under .gitbook/assets and pages linking them, ten per page. */
function writeImages(w: Workstation, count: number, size: number): Map<string, Buffer> {
  const images = new Map<string, Buffer>()
  for (let i = 0; i < count; i++) {
    const name = `shot-${String(i).padStart(2, '0')}.png`
    const bytes = image(size)
    images.set(name, bytes)
    w.write(`.gitbook/assets/${name}`, bytes)
  }
  const names = [...images.keys()]
  for (let p = 0; p * 10 < names.length; p++) {
    const links = names.slice(p * 10, p * 10 + 10).map((n) => `![${n}](.gitbook/assets/${n})`)
    w.write(`gallery-${p}.md`, `# Gallery ${p}\n\n${links.join('\n\n')}\n`)
  }
  return images
}

async function crRevision(w: Workstation): Promise<Revision> {
  const [cr] = await openChangeRequests(t.api, w.seeded.spaceId)
  return changeRequestRevision(t.api, w.seeded.spaceId, cr.id)
}

/** Each image is in the change request exactly once, with the bytes written. */
async function expectUploadedOnce(w: Workstation, images: ReadonlyMap<string, Buffer>) {
  const revision = await crRevision(w)
  for (const [name, bytes] of images) {
    const files = revision.files.filter((f) => f.name === name)
    expect(files, name).toHaveLength(1)
    const served = Buffer.from(await (await fetch(files[0].downloadURL)).arrayBuffer())
    expect(gitBlobOid(served), name).toBe(gitBlobOid(bytes))
  }
}

const outboxPayloadBytes = (w: Workstation) => (w['db'].prepare('SELECT COALESCE(SUM(LENGTH(payload)), 0) AS n FROM outbox').get() as { n: number }).n
const cacheBytes = (w: Workstation) => ['cache.db', 'cache.db-wal'].reduce((n, f) => n + (fs.existsSync(path.join(w.dir, f)) ? fs.statSync(path.join(w.dir, f)).size : 0), 0)

describe('the push path bounded by bytes', () => {
  it('30 images of 900 KB go out in several batches, none over the byte bound, and the outbox holds references, not bytes', async () => {
    const counting = new CountingFetch()
    const w = await workstation(counting)
    const images = writeImages(w, 30, 900 * 1024)
    const imageBytes = [...images.values()].reduce((n, b) => n + b.byteLength, 0)
    const cacheBefore = cacheBytes(w)

    const result = await w.push()
    expect(result.failures).toEqual([])
    expect(result.stopped).toBeUndefined()

    const content = counting.contentRequests()
    const sizes = content.map((s) => s.bytes)
    console.log(`30 x 900 KB images (${imageBytes} bytes): ${content.length} content requests, bodies ${sizes.join(', ')} bytes (bound ${MAX_BATCH_BYTES})`)
    expect(content.length).toBeGreaterThanOrEqual(4)
    for (const size of sizes) expect(size).toBeLessThanOrEqual(MAX_BATCH_BYTES)
    expect(content.every((s) => s.status === 200)).toBe(true)
    await expectUploadedOnce(w, images)

    const payload = outboxPayloadBytes(w)
    const growth = cacheBytes(w) - cacheBefore
    console.log(`outbox payloads ${payload} bytes; cache.db grew ${growth} bytes`)
    expect(payload).toBeLessThan(200 * 1024)
    expect(growth).toBeLessThan(imageBytes / 10)
    const [cr] = await openChangeRequests(t.api, w.seeded.spaceId)
    const gallery = [...pagesOf(await crRevision(w))].find(([, p]) => p.path === 'gallery-0.md')![0]
    const page = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: w.seeded.spaceId, changeRequestId: cr.id, pageId: gallery }, query: { format: 'markdown' } })).body
    expect(page.markdown).toContain('![shot-00.png](.gitbook/assets/shot-00.png)')
  })

  it('an image changed between plan and send is refused here, naming it; the next push uploads the new version', async () => {
    const counting = new CountingFetch()
    const w = await workstation(counting)
    const images = writeImages(w, 3, 200 * 1024)
    // A page that links only an image planned in the same upload as the one that changes.
    w.write('faq.md', `${SEED_PAGES.faq}\n![First](.gitbook/assets/shot-00.png)\n`)
    counting.offline = true
    const first = await w.push()
    expect(first.stopped?.reason).toBe('offline')
    expect(counting.contentRequests()).toHaveLength(0)

    const planned = images.get('shot-01.png')!.toString('base64').slice(4000, 4400)
    const changed = image(150 * 1024)
    w.write('.gitbook/assets/shot-01.png', changed)
    images.set('shot-01.png', changed)
    counting.offline = false
    const second = await w.push()
    const message = second.failures.find((f) => f.includes('.gitbook/assets/shot-01.png changed after this push was planned'))
    expect(message, second.failures.join('\n')).toBeDefined()
    // The old bytes never left: no request carried them.
    expect(counting.sent.some((s) => s.body.includes(planned))).toBe(false)

    // Nothing of that plan is held back: the same push planned again, with the file as it is now.
    expect(second.failures).toHaveLength(1)
    expect(second.reports.filter((r) => r.kind === 'refused')).toEqual([])
    await expectUploadedOnce(w, images)
    const third = await w.push()
    expect(third.failures).toEqual([])
    expect(third.planned).toBe(0)
    const [cr] = await openChangeRequests(t.api, w.seeded.spaceId)
    const faq = [...pagesOf(await crRevision(w))].find(([, p]) => p.path === 'faq.md')![0]
    const page = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: w.seeded.spaceId, changeRequestId: cr.id, pageId: faq }, query: { format: 'markdown' } })).body
    expect(page.markdown).toContain('![First](.gitbook/assets/shot-00.png)')
  })

  it('a 413 halves the batch until it passes; everything arrives exactly once', async () => {
    const counting = new CountingFetch()
    counting.tooLargeOver = 2 * 1024 * 1024
    const w = await workstation(counting)
    const images = writeImages(w, 12, 700 * 1024)
    const result = await w.push()
    expect(result.failures).toEqual([])
    const content = counting.contentRequests()
    const refused = content.filter((s) => s.status === 413)
    console.log(`413 over ${counting.tooLargeOver} bytes: ${refused.length} answered 413, ${content.length - refused.length} applied (${content.map((s) => `${s.bytes}:${s.status}`).join(', ')})`)
    expect(refused.length).toBeGreaterThan(0)
    expect(content.filter((s) => s.status === 200).every((s) => s.bytes <= counting.tooLargeOver)).toBe(true)
    await expectUploadedOnce(w, images)
    const revision = await crRevision(w)
    expect([...pagesOf(revision).values()].filter((p) => p.path.startsWith('gallery-'))).toHaveLength(2)
  })

  it('a single change still too large is refused with a message naming the file and the limit', async () => {
    const counting = new CountingFetch()
    counting.tooLargeOver = 300 * 1024
    const w = await workstation(counting)
    w.write('.gitbook/assets/big.png', image(400 * 1024))
    w.write('faq.md', `${SEED_PAGES.faq}\n![Big](.gitbook/assets/big.png)\n`)
    const result = await w.push()
    const message = result.failures.find((f) => f.includes('.gitbook/assets/big.png') && f.includes('HTTP 413'))
    expect(message, result.failures.join('\n')).toMatch(/request body is larger than 307200 bytes/)
    // The batch (upload and page) was halved first; the upload alone was still too large.
    const refused = counting.contentRequests().filter((s) => s.status === 413)
    expect(refused).toHaveLength(2)
    expect(message).toContain(`refused a request of ${refused[1].bytes} bytes as too large`)
    expect((await crRevision(w)).files.some((f) => f.name === 'big.png')).toBe(false)
  })

  it('an op queued before references, with its bytes inline, still sends', async () => {
    const counting = new CountingFetch()
    const w = await workstation(counting)
    w.write('faq.md', `${SEED_PAGES.faq}\nMore.\n`)
    expect((await w.push()).failures).toEqual([])
    const session = w.outbox.session(w.seeded.spaceId)!
    const bytes = Buffer.concat([PNG, Buffer.from('inline')])
    const entry = { op: 'set' as const, path: '.gitbook/assets/inline.png', kind: 'file' as const, ref: 'quire-finline', hash: gitBlobOid(bytes), state: 'pushed' as const }
    w.outbox.enqueue({
      spaceId: w.seeded.spaceId,
      generation: session.generation,
      kind: 'content',
      key: 'content:old-format',
      payload: {
        changes: [{ operation: 'insert_files', files: [{ ref: 'quire-finline', name: 'inline.png', base64: bytes.toString('base64') }] }],
        entries: [entry],
        perChange: [[entry]],
        keys: ['old'],
        defines: ['quire-finline'],
      },
    })
    const drained = await w.pusher.flush()
    expect(drained.failed).toEqual([])
    expect(w.outbox.byKey('content:old-format')?.state).toBe('done')
    const file = (await crRevision(w)).files.find((f) => f.name === 'inline.png')!
    expect(gitBlobOid(Buffer.from(await (await fetch(file.downloadURL)).arrayBuffer()))).toBe(gitBlobOid(bytes))
  })
})

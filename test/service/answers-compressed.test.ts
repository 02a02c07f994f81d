/**
 * Service answers (issue 26, item 5), in both profiles: a page's answer carries its own content, its
 * subpages as references (the spec's "Empty" document form, read one by one), and every JSON answer over
 * 1 KB is compressed as the request's Accept-Encoding asks (gzip or br), answers in pieces too.
 */
import http from 'node:http'
import zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { arrangeSpace, page, type ArrangedSpace } from '../support/content-fixtures'
import { markdownOfSize } from '../support/large-markdown'
import { startTestService, type TestService } from '../support/service'

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  /** The body decoded from its Content-Encoding. */
  text: string
  /** Bytes on the wire. */
  wireBytes: number
}

/** A GET over plain node:http (fetch would decode silently), asking for `encoding`. */
function get(t: TestService, path: string, encoding?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${t.api.token}` }
    if (encoding !== undefined) headers['Accept-Encoding'] = encoding
    http
      .get(`${t.api.baseUrl}${path}`, { headers }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => {
          const wire = Buffer.concat(chunks)
          const coding = res.headers['content-encoding']
          const body = coding === 'gzip' ? zlib.gunzipSync(wire) : coding === 'br' ? zlib.brotliDecompressSync(wire) : wire
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text: body.toString('utf8'), wireBytes: wire.length })
        })
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

for (const profile of ['friendly', 'hosted'] as const) {
  describe(`answers of the ${profile} profile`, () => {
    let t: TestService
    let s: ArrangedSpace

    beforeAll(async () => {
      t = await startTestService({ profile })
      const topics = Array.from({ length: 30 }, (_, i) => page(`topic-${i}`, `# Topic ${i}\n\n${'Words of the topic, repeated. '.repeat(40)}\n`, { into: 'guide' }))
      s = arrangeSpace(t.service, [page('guide', '# Guide\n\nThe section.\n'), ...topics])
    })
    afterAll(() => t.close())

    it("a page's answer carries its own markdown, its subpages as references that validate", async () => {
      for (const format of ['markdown', 'document'] as const) {
        const read = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: s.pages.guide }, query: { format } })
        expect(read.status).toBe(200)
        expect(format === 'markdown' ? read.body.markdown : read.body.document).toBeDefined()
        expect(read.body.pages).toHaveLength(30)
        for (const child of read.body.pages) {
          expect(child.markdown, `${format}: a subpage's markdown`).toBeUndefined()
          expect(child.document, `${format}: a subpage's document`).toBeUndefined()
          expect(child.git.path).toMatch(/^guide\/topic-\d+\.md$/)
        }
        // The spec's "Empty" form admits the references (applySpecErrata), not content of a wrong shape.
        const spec = specRegistry()
        const op = spec.operation('getPageById')
        for (const wrong of [{ markdown: 42 }, { document: 'abc' }]) expect(spec.validateResponse(op, 200, { ...read.body, pages: [{ ...read.body.pages[0], ...wrong }] })).not.toBeNull()
        // The reference is enough to read the subpage on its own.
        const child = await t.api.call('getPageById', { params: { spaceId: s.spaceId, pageId: read.body.pages[3].id }, query: { format: 'markdown' } })
        expect(child.body.markdown).toContain('# Topic 3')
      }
    })

    it('compresses JSON answers over 1 KB with gzip or br as asked, and nothing else', async () => {
      const tree = `/spaces/${s.spaceId}/content`
      const plain = await get(t, tree)
      expect(plain.headers['content-encoding']).toBeUndefined()
      expect(plain.wireBytes).toBeGreaterThan(1024)
      for (const [asked, coding] of [
        ['gzip', 'gzip'],
        ['br', 'br'],
        ['gzip, deflate, br', 'br'],
        ['br;q=0, gzip', 'gzip'],
      ] as const) {
        const answer = await get(t, tree, asked)
        expect(answer.headers['content-encoding'], asked).toBe(coding)
        expect(answer.headers.vary).toBe('Accept-Encoding')
        expect(Number(answer.headers['content-length'])).toBe(answer.wireBytes)
        expect(JSON.parse(answer.text)).toEqual(JSON.parse(plain.text))
        expect(answer.wireBytes * 2, `${asked}: ${answer.wireBytes} bytes for ${plain.wireBytes}`).toBeLessThan(plain.wireBytes)
      }
      expect((await get(t, tree, 'identity')).headers['content-encoding']).toBeUndefined()
      // A small answer (a 404's error) goes as it is.
      const small = await get(t, `/spaces/${s.spaceId}/content/page/nope`, 'gzip')
      expect(small.status).toBe(404)
      expect(small.headers['content-encoding']).toBeUndefined()
    })

    // The same path in both profiles: run once.
    it.runIf(profile === 'friendly')('compresses an answer made in pieces (a large page converted in a worker)', async () => {
      const big = arrangeSpace(t.service, [page('big', markdownOfSize(140 * 1024, (i) => `Paragraph ${i} of a large page, with **bold** words.\n\n`))])
      const answer = await get(t, `/spaces/${big.spaceId}/content/page/${big.pages.big}?format=document`, 'gzip')
      expect(answer.status).toBe(200)
      expect(answer.headers['content-encoding']).toBe('gzip')
      const body = JSON.parse(answer.text)
      expect(body.document.object).toBe('document')
      expect(answer.wireBytes * 4).toBeLessThan(answer.text.length)
    }, 60_000)
  })
}

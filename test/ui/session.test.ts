import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildRenderer } from '../../src/main/headless/renderer-build'
import { hasChromium, launchBrowser, startServe, type ServeProcess } from './support'

/**
 * Issue 10, finding 1: browsers do not scope cookies by port, so whatever proves the session must not
 * be ambient. Two local origins in Chromium: the real `quire serve` on one port, a hostile page served
 * from another port of 127.0.0.1 on the other. The hostile side records every header the browser sends
 * it, tries the API from the page, then replays what it got with a raw client.
 */
/** A raw POST of `[]` with exactly these headers. */
function rawStatus(origin: string, pathname: string, headers: http.OutgoingHttpHeaders): Promise<number> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    const req = http.request({ host: hostname, port, method: 'POST', path: pathname, headers }, (res) => {
      res.resume()
      resolve(res.statusCode ?? 0)
    })
    req.on('error', reject)
    req.end('[]')
  })
}

describe.skipIf(!hasChromium)('quire serve: the session belongs to one tab, not to 127.0.0.1', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-session-'))
  let serve: ServeProcess
  let browser: Awaited<ReturnType<typeof launchBrowser>>
  let hostile: http.Server
  let hostileOrigin = ''
  const seen: http.IncomingHttpHeaders[] = []
  let reports: Array<Record<string, string | null>> = []

  /** The hostile page: it knows Quire's origin and tries everything a page on another port can. */
  const hostilePage = (quire: string) => `<!doctype html><title>other</title><script type="module">
const quire = ${JSON.stringify(quire)}
const results = {}
try {
  const r = await fetch(quire + '/api/getSession', { method: 'POST', credentials: 'include', headers: { 'Content-Type': 'application/json' }, body: '[]' })
  results.cors = 'status ' + r.status + ' ' + (await r.text())
} catch (e) { results.cors = 'blocked' }
try {
  const r = await fetch(quire + '/api/setPaused', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'Content-Type': 'text/plain' }, body: '[true]' })
  results.noCors = 'sent ' + r.type
} catch (e) { results.noCors = 'blocked' }
results.events = await new Promise((resolve) => {
  const es = new EventSource(quire + '/api/events', { withCredentials: true })
  es.onmessage = (m) => { es.close(); resolve('message ' + m.data.slice(0, 40)) }
  es.onerror = () => { es.close(); resolve('error') }
})
results.storage = sessionStorage.getItem('quire-session')
results.cookie = document.cookie
await fetch('/report', { method: 'POST', body: JSON.stringify(results) })
</script>`

  beforeAll(async () => {
    const rendererDir = path.join(tmp, 'renderer')
    await buildRenderer(rendererDir)
    serve = await startServe(['--port', '0', '--data', path.join(tmp, 'data'), '--renderer', rendererDir], { QUIRE_TOKEN_STORE: 'file' })
    hostile = http.createServer((req, res) => {
      seen.push(req.headers)
      if (req.url === '/report') {
        let body = ''
        req.on('data', (c: Buffer) => (body += c.toString()))
        req.on('end', () => {
          reports.push(JSON.parse(body) as Record<string, string | null>)
          res.end('ok')
        })
        return
      }
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' })
      res.end(hostilePage(serve.origin))
    })
    await new Promise<void>((resolve) => hostile.listen(0, '127.0.0.1', resolve))
    hostileOrigin = `http://127.0.0.1:${(hostile.address() as { port: number }).port}`
    browser = await launchBrowser()
  }, 120_000)

  afterAll(async () => {
    await browser?.close()
    await serve?.stop()
    await new Promise((resolve) => hostile?.close(resolve))
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  /** What the hostile page learnt once it has reported. */
  const visitHostile = async () => {
    reports = []
    const page = await browser.context.newPage()
    await page.goto(`${hostileOrigin}/`)
    await expect.poll(() => reports.length, { timeout: 30_000 }).toBe(1)
    await page.close()
    return reports[0]
  }

  it('another port of 127.0.0.1 gets nothing it can use, from the page or with a raw client', async () => {
    // The user opens the link: the tab trades the secret and works.
    const quire = browser.page
    await quire.goto(serve.url)
    await quire.getByRole('heading', { name: 'Sign in to Quire' }).waitFor()
    expect(new URL(quire.url()).hash).toBe('')
    expect(await quire.evaluate(() => window.quire!.getSettings().then((s) => s.paused))).toBe(false)
    expect(await browser.context.cookies()).toEqual([])

    // Then visits a page on another local port.
    const learnt = await visitHostile()
    expect(learnt.cors).toBe('blocked') // no CORS: the page cannot read an answer
    expect(learnt.events).toBe('error')
    expect(learnt.storage).toBeNull()
    expect(learnt.cookie).toBe('')
    // The browser sent the other port no cookie and nothing of Quire's.
    const tabToken = (await quire.evaluate(() => sessionStorage.getItem('quire-session')))!
    expect(tabToken).toMatch(/^[A-Za-z0-9_-]{43}$/)
    for (const headers of seen) {
      expect(headers.cookie).toBeUndefined()
      expect(JSON.stringify(headers)).not.toContain(tabToken)
    }
    // Its no-cors write did not happen.
    expect(await quire.evaluate(() => window.quire!.getSettings().then((s) => s.paused))).toBe(false)

    // A local process replaying every header the browser sent it is refused.
    for (const headers of seen) {
      const replay: http.OutgoingHttpHeaders = { ...headers, host: new URL(serve.origin).host, 'content-type': 'application/json', 'content-length': '2' }
      // A process sends what it likes: none of the browser's Origin or Sec-Fetch-* marks.
      for (const name of Object.keys(replay)) if (name === 'origin' || name.startsWith('sec-fetch-')) delete replay[name]
      expect(await rawStatus(serve.origin, '/api/getSession', replay)).toBe(401)
    }
    // The tab itself still works.
    expect(await quire.evaluate(() => window.quire!.getSession().then((s) => s.signedIn))).toBe(false)
  })

  it('the secret works once: a second tab with the same link gets no session', async () => {
    const second = await browser.context.newPage()
    try {
      await second.goto(serve.url)
      await second.getByText(/used already/).waitFor()
      expect(await second.evaluate(() => sessionStorage.getItem('quire-session'))).toBeNull()
      const secret = new URL(serve.url).hash.replace(/^#secret=/, '')
      const raw = await fetch(`${serve.origin}/api/session`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify({ secret }) })
      expect(raw.status).toBe(403)
      // A tab opened on the origin without a link has no session either: sessions are per tab.
      await second.goto(`${serve.origin}/`)
      await second.getByText(/open the link that quire serve printed/).waitFor()
    } finally {
      await second.close()
    }
    // The first tab keeps its session across a reload (sessionStorage outlives a reload of the tab).
    await browser.page.reload()
    await browser.page.getByRole('heading', { name: 'Sign in to Quire' }).waitFor()
  })
})

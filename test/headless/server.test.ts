import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { startHeadlessServer, type HeadlessServer } from '../../src/main/headless/server'

interface Reply {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/** Raw HTTP, so the test controls every header (Host included). */
function request(port: number, options: { method?: string; path: string; headers?: Record<string, string>; body?: string }): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, method: options.method ?? 'GET', path: options.path, headers: { Host: `127.0.0.1:${port}`, ...options.headers } }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => (body += chunk))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body }))
    })
    req.on('error', reject)
    if (options.body !== undefined) req.write(options.body)
    req.end()
  })
}

const noDesktop: DesktopActions = {
  openFile: async () => undefined,
  openUrl: async () => undefined,
  openFolder: async () => undefined,
}

describe('quire serve: the HTTP bridge and who may use it', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-headless-'))
  let backend: QuireBackend
  let server: HeadlessServer
  let token: string
  const logged: string[] = []

  /** POST /api/session as the page does. */
  const exchange = (secret: string, headers: Record<string, string> = {}) =>
    request(server.port, { method: 'POST', path: '/api/session', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify({ secret }) })
  const secretOf = (link: string) => new URL(link).hash.replace(/^#secret=/, '')

  beforeAll(async () => {
    const renderer = path.join(tmp, 'renderer')
    fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true })
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Quire</title><script type="module" src="./assets/app.js"></script>')
    fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log("quire")')
    fs.writeFileSync(path.join(tmp, 'secret.txt'), 'not served')
    backend = await QuireBackend.open({ dataDir: path.join(tmp, 'data'), desktop: noDesktop, autoSync: false })
    server = await startHeadlessServer({ backend, rendererDir: renderer, secret: 'the-test-secret', log: (line) => logged.push(line) })
    const traded = await exchange('the-test-secret')
    token = JSON.parse(traded.body).result.token
  })

  afterAll(async () => {
    await server.close()
    await backend.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  const api = (channel: string, body: string, headers: Record<string, string> = {}) =>
    request(server.port, { method: 'POST', path: `/api/${channel}`, headers: { 'X-Quire-Session': token, 'Content-Type': 'application/json', ...headers }, body })

  it('prints a link on 127.0.0.1 with the secret in the fragment (never sent in a request line)', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/#secret=the-test-secret`)
    expect(server.newLink()).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${server.port}/#secret=[A-Za-z0-9_-]{43}$`))
  })

  it('trades a secret once for a tab token, and sets no cookie', async () => {
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/)
    expect(token).not.toContain('the-test-secret')
    const again = await exchange('the-test-secret')
    expect(again.status).toBe(403)
    expect(JSON.parse(again.body).error.message).toMatch(/used already/)

    const link = server.newLink()
    const first = await exchange(secretOf(link))
    expect(first.status).toBe(200)
    expect(first.headers['set-cookie']).toBeUndefined()
    const second = await exchange(secretOf(link))
    expect(second.status).toBe(403)
    expect(second.body).not.toContain('token')
    // Each tab has its own token, and both work.
    const other = JSON.parse(first.body).result.token as string
    expect(other).not.toBe(token)
    expect((await api('getSession', '[]', { 'X-Quire-Session': other })).status).toBe(200)

    expect((await exchange('guess')).status).toBe(403)
    expect((await exchange('')).status).toBe(400)
    expect((await request(server.port, { method: 'POST', path: '/api/session', headers: { 'Content-Type': 'text/plain' }, body: '{"secret":"x"}' })).status).toBe(415)
    expect((await request(server.port, { path: '/api/session' })).status).toBe(405)
  })

  it('lets a link expire unused', async () => {
    const renderer = path.join(tmp, 'renderer')
    const shortLived = await startHeadlessServer({ backend, rendererDir: renderer, secretTtlMs: 0 })
    try {
      const reply = await request(shortLived.port, {
        method: 'POST',
        path: '/api/session',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ secret: secretOf(shortLived.url) }),
      })
      expect(reply.status).toBe(403)
      expect(JSON.parse(reply.body).error.message).toMatch(/expired/)
    } finally {
      await shortLived.close()
    }
  })

  it('refuses the API without the tab token, whatever cookies come along: 401', async () => {
    const bare = await request(server.port, { method: 'POST', path: '/api/getSession', headers: { 'Content-Type': 'application/json' }, body: '[]' })
    expect(bare.status).toBe(401)
    expect(JSON.parse(bare.body)).toEqual({ error: { code: 401, message: expect.any(String) } })
    expect((await request(server.port, { path: '/api/events' })).status).toBe(401)
    expect((await api('getSession', '[]', { 'X-Quire-Session': 'forged' })).status).toBe(401)
    expect((await api('getSession', '[]', { 'X-Quire-Session': '' })).status).toBe(401)
    // A cookie is never the session, not even one holding a real token.
    const cookies = { Cookie: `quire-session-${server.port}=${token}; quire-session=${token}` }
    const withCookie = await request(server.port, { method: 'POST', path: '/api/getSession', headers: { 'Content-Type': 'application/json', ...cookies }, body: '[]' })
    expect(withCookie.status).toBe(401)
    expect((await request(server.port, { path: '/api/events', headers: cookies })).status).toBe(401)
    // Channels take the token as a header only, not in the URL.
    expect((await request(server.port, { method: 'POST', path: `/api/getSession?session=${token}`, headers: { 'Content-Type': 'application/json' }, body: '[]' })).status).toBe(401)
  })

  it('serves the renderer files to anyone on this Host (they are the app, with no data)', async () => {
    expect((await request(server.port, { path: '/' })).status).toBe(200)
    expect((await request(server.port, { path: '/assets/app.js' })).status).toBe(200)
  })

  it('refuses API calls that a browser marks as coming from another page: 403 even with the token', async () => {
    for (const site of ['same-site', 'cross-site', 'none']) {
      expect((await api('getSession', '[]', { 'Sec-Fetch-Site': site })).status, site).toBe(403)
    }
    expect((await api('getSession', '[]', { 'Sec-Fetch-Site': 'same-origin' })).status).toBe(200)
  })

  it('answers bad percent-encoding with 400 and logs nothing', async () => {
    const before = logged.length
    for (const p of ['/%zz', '/%c0%ae', '/assets/%E0%A4%A', '/api/%zz']) {
      const reply = await request(server.port, { path: p, headers: { 'X-Quire-Session': token } })
      expect(reply.status, p).toBe(400)
      expect(reply.body).not.toMatch(/at .*\.ts:\d+/)
    }
    expect(logged.slice(before)).toEqual([])
  })

  it('answers channels with the token', async () => {
    const reply = await api('getSession', '[]')
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.body)).toEqual({ result: { signedIn: false, demo: false } })
    expect(reply.headers['content-type']).toMatch(/^application\/json/)
    expect(reply.headers['cache-control']).toBe('no-store')
  })

  it('serves the renderer with a strict CSP', async () => {
    const page = await request(server.port, { path: '/', headers: {} })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe/)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['x-frame-options']).toBe('DENY')
    const script = await request(server.port, { path: '/assets/app.js', headers: {} })
    expect(script.status).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
  })

  it('serves nothing outside the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/missing.js']) {
      const reply = await request(server.port, { path: p, headers: {} })
      expect(reply.status, p).toBe(404)
      expect(reply.body).not.toContain('not served')
    }
  })

  it('refuses a Host that is not this server (DNS rebinding): 403 even with the token', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, '127.0.0.1', `127.0.0.1.nip.io:${server.port}`]) {
      const reply = await request(server.port, { method: 'POST', path: '/api/getSession', headers: { Host: host, 'X-Quire-Session': token, 'Content-Type': 'application/json' }, body: '[]' })
      expect(reply.status, host).toBe(403)
      const page = await request(server.port, { path: '/', headers: { Host: host } })
      expect(page.status, host).toBe(403)
      const traded = await exchange(secretOf(server.newLink()), { Host: host })
      expect(traded.status, host).toBe(403)
      expect(traded.body).not.toMatch(/token/)
    }
    // localhost:PORT is this server too.
    expect((await api('getSession', '[]', { Host: `localhost:${server.port}` })).status).toBe(200)
  })

  it('sends no CORS headers, answers no preflight, and refuses other origins', async () => {
    const preflight = await request(server.port, {
      method: 'OPTIONS',
      path: '/api/getSession',
      headers: { 'X-Quire-Session': token, Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBeGreaterThanOrEqual(400)
    const replies = [
      preflight,
      await api('getSession', '[]'),
      await api('getSession', '[]', { Origin: 'http://evil.example' }),
      await request(server.port, { path: '/', headers: { 'X-Quire-Session': token, Origin: 'http://evil.example' } }),
    ]
    for (const reply of replies) {
      expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
    expect(replies[2].status).toBe(403)
    expect((await api('getSession', '[]', { Origin: `http://127.0.0.1:${server.port}` })).status).toBe(200)
    expect((await api('getSession', '[]', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403)
  })

  it('takes channel calls only as JSON POSTs', async () => {
    expect((await request(server.port, { path: '/api/getSession', headers: { 'X-Quire-Session': token } })).status).toBe(405)
    // What an HTML form on another site could send without a preflight.
    expect((await api('setPaused', '[true]', { 'Content-Type': 'text/plain' })).status).toBe(415)
    expect((await api('setPaused', 'paused=true', { 'Content-Type': 'application/x-www-form-urlencoded' })).status).toBe(415)
    expect((await backend.getSettings()).paused).toBe(false)
  })

  it('answers bad channel arguments with 400 and does nothing', async () => {
    const cases: Array<[string, string]> = [
      ['setPaused', '["yes"]'],
      ['setPaused', '[]'],
      ['setPaused', '[true, false]'],
      ['setPaused', '{"paused":true}'],
      ['setPaused', '{not json'],
      ['signIn', '[{"endpoint":"ftp://example.com","token":"t"}]'],
      ['signIn', '[{"endpoint":"https://example.com"}]'],
      ['signIn', '[{"endpoint":"https://example.com","token":"t","extra":1}]'],
      ['signIn', `[{"endpoint":"https://example.com","token":"${'x'.repeat(5000)}"}]`],
      ['setSelection', '[{"kind":"planet","id":"x","selected":true}]'],
      ['setSelection', '[{"kind":"space","id":"../../etc","selected":true}]'],
      ['listComments', '[{"spaceId":""}]'],
      ['postComment', '[{"spaceId":"s","pageId":"p","markdown":"   "}]'],
      ['openLocalFile', '[{"file":"relative/path.md"}]'],
      ['openLocalFile', '[{"file":"/tmp/x.md","line":0}]'],
      ['openExternal', '[{"url":"file:///etc/passwd"}]'],
      ['openExternal', '[{"url":"javascript:alert(1)"}]'],
      ['updateSettings', '[{"intervalSeconds":1}]'],
      ['updateSettings', '[{"workspace":"not/absolute"}]'],
      ['updateSettings', '[{"theme":"dark"}]'],
    ]
    for (const [channel, body] of cases) {
      const reply = await api(channel, body)
      expect(reply.status, `${channel} ${body.slice(0, 80)}`).toBe(400)
      expect(JSON.parse(reply.body).error.code).toBe(400)
    }
    expect(await backend.getSettings()).toMatchObject({ paused: false, intervalSeconds: 60 })
    expect((await api('noSuchChannel', '[]')).status).toBe(404)
    expect((await api('constructor', '[]')).status).toBe(404)
    expect((await api('__proto__', '[]')).status).toBe(404)
  })

  it('refuses bodies over 1 MB', async () => {
    const reply = await api('setPaused', `[${' '.repeat(1024 * 1024 + 10)}true]`)
    expect(reply.status).toBe(413)
  })

  it('reports the backend refusing a call as an error the renderer can show', async () => {
    const reply = await api('listSpaces', '[]')
    expect(reply.status).toBe(409)
    expect(JSON.parse(reply.body).error).toMatchObject({ kind: 'signed-out', message: 'Sign in first.' })
  })

  it('streams events as server-sent events, the token in the URL (EventSource sends no headers)', async () => {
    const events: string[] = []
    let opened!: () => void
    const open = new Promise<void>((resolve) => (opened = resolve))
    const received = new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: `/api/events?session=${token}`, headers: { Host: `127.0.0.1:${server.port}` } }, (res) => {
        expect(res.statusCode).toBe(200)
        expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
          opened()
          events.push(chunk)
          if (events.join('').includes('"paused":true')) {
            req.destroy()
            resolve()
          }
        })
      })
      req.on('error', (error) => (events.join('').includes('"paused":true') ? resolve() : reject(error)))
      req.end()
    })
    // Once the stream is open, change something that emits a status event.
    await open
    expect((await api('setPaused', '[true]')).status).toBe(200)
    await received
    const data = events
      .join('')
      .split('\n')
      .filter((l) => l.startsWith('data: '))
      .map((l) => JSON.parse(l.slice(6)))
    expect(data.some((e) => e.type === 'status' && e.status.paused === true)).toBe(true)
    expect(data.some((e) => e.type === 'activity' && e.entry.message === 'Syncing paused')).toBe(true)
    await api('setPaused', '[false]')
  })
})

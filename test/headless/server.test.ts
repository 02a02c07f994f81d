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
  let cookie: string

  beforeAll(async () => {
    const renderer = path.join(tmp, 'renderer')
    fs.mkdirSync(path.join(renderer, 'assets'), { recursive: true })
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Quire</title><script type="module" src="./assets/app.js"></script>')
    fs.writeFileSync(path.join(renderer, 'assets', 'app.js'), 'console.log("quire")')
    fs.writeFileSync(path.join(tmp, 'secret.txt'), 'not served')
    backend = await QuireBackend.open({ dataDir: path.join(tmp, 'data'), desktop: noDesktop, autoSync: false })
    server = await startHeadlessServer({ backend, rendererDir: renderer, secret: 'the-test-secret' })
    const traded = await request(server.port, { path: '/?secret=the-test-secret' })
    cookie = String(traded.headers['set-cookie']?.[0]).split(';')[0]
  })

  afterAll(async () => {
    await server.close()
    await backend.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  const api = (channel: string, body: string, headers: Record<string, string> = {}) =>
    request(server.port, { method: 'POST', path: `/api/${channel}`, headers: { Cookie: cookie, 'Content-Type': 'application/json', ...headers }, body })

  it('prints a URL on 127.0.0.1 with the secret', () => {
    expect(server.url).toBe(`http://127.0.0.1:${server.port}/?secret=the-test-secret`)
  })

  it('trades the secret for an HttpOnly, SameSite=Strict cookie and drops it from the address bar', async () => {
    const traded = await request(server.port, { path: '/?secret=the-test-secret' })
    expect(traded.status).toBe(303)
    expect(traded.headers.location).toBe('/')
    const setCookie = String(traded.headers['set-cookie']?.[0])
    expect(setCookie).toMatch(new RegExp(`^quire-session-${server.port}=[A-Za-z0-9_-]{40,};`))
    expect(setCookie).toContain('HttpOnly')
    expect(setCookie).toContain('SameSite=Strict')
    expect(setCookie).toContain('Path=/')
    // The cookie is not the secret itself.
    expect(setCookie).not.toContain('the-test-secret')
  })

  it('refuses everything without the cookie: 401, and a wrong secret: 403', async () => {
    expect((await request(server.port, { path: '/' })).status).toBe(401)
    expect((await request(server.port, { path: '/assets/app.js' })).status).toBe(401)
    const bare = await request(server.port, { method: 'POST', path: '/api/getSession', headers: { 'Content-Type': 'application/json' }, body: '[]' })
    expect(bare.status).toBe(401)
    expect(JSON.parse(bare.body)).toEqual({ error: { code: 401, message: expect.any(String) } })
    expect((await request(server.port, { path: '/api/events' })).status).toBe(401)
    expect((await api('getSession', '[]', { Cookie: `${server.cookieName}=forged` })).status).toBe(401)
    expect((await request(server.port, { path: '/?secret=guess' })).status).toBe(403)
    expect((await request(server.port, { path: '/?secret=' })).status).toBe(403)
  })

  it('answers channels with the cookie', async () => {
    const reply = await api('getSession', '[]')
    expect(reply.status).toBe(200)
    expect(JSON.parse(reply.body)).toEqual({ result: { signedIn: false, demo: false } })
    expect(reply.headers['content-type']).toMatch(/^application\/json/)
    expect(reply.headers['cache-control']).toBe('no-store')
  })

  it('serves the renderer with a strict CSP', async () => {
    const page = await request(server.port, { path: '/', headers: { Cookie: cookie } })
    expect(page.status).toBe(200)
    expect(page.headers['content-type']).toBe('text/html; charset=utf-8')
    const csp = String(page.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self'")
    expect(csp).toContain("frame-ancestors 'none'")
    expect(csp).not.toMatch(/script-src[^;]*unsafe/)
    expect(page.headers['x-content-type-options']).toBe('nosniff')
    expect(page.headers['x-frame-options']).toBe('DENY')
    const script = await request(server.port, { path: '/assets/app.js', headers: { Cookie: cookie } })
    expect(script.status).toBe(200)
    expect(script.headers['content-type']).toBe('text/javascript; charset=utf-8')
  })

  it('serves nothing outside the renderer folder', async () => {
    for (const p of ['/../secret.txt', '/%2e%2e/secret.txt', '/assets/..%2f..%2fsecret.txt', '/missing.js']) {
      const reply = await request(server.port, { path: p, headers: { Cookie: cookie } })
      expect(reply.status, p).toBe(404)
      expect(reply.body).not.toContain('not served')
    }
  })

  it('refuses a Host that is not this server (DNS rebinding): 403 even with the cookie', async () => {
    for (const host of ['evil.example', `evil.example:${server.port}`, `127.0.0.1:${server.port + 1}`, '127.0.0.1', `127.0.0.1.nip.io:${server.port}`]) {
      const reply = await request(server.port, { method: 'POST', path: '/api/getSession', headers: { Host: host, Cookie: cookie, 'Content-Type': 'application/json' }, body: '[]' })
      expect(reply.status, host).toBe(403)
      const page = await request(server.port, { path: '/?secret=the-test-secret', headers: { Host: host } })
      expect(page.status, host).toBe(403)
      expect(page.headers['set-cookie']).toBeUndefined()
    }
    // localhost:PORT is this server too.
    expect((await api('getSession', '[]', { Host: `localhost:${server.port}` })).status).toBe(200)
  })

  it('sends no CORS headers, answers no preflight, and refuses other origins', async () => {
    const preflight = await request(server.port, {
      method: 'OPTIONS',
      path: '/api/getSession',
      headers: { Cookie: cookie, Origin: 'http://evil.example', 'Access-Control-Request-Method': 'POST' },
    })
    expect(preflight.status).toBeGreaterThanOrEqual(400)
    const replies = [
      preflight,
      await api('getSession', '[]'),
      await api('getSession', '[]', { Origin: 'http://evil.example' }),
      await request(server.port, { path: '/', headers: { Cookie: cookie, Origin: 'http://evil.example' } }),
    ]
    for (const reply of replies) {
      expect(Object.keys(reply.headers).filter((h) => h.startsWith('access-control-'))).toEqual([])
    }
    expect(replies[2].status).toBe(403)
    expect((await api('getSession', '[]', { Origin: `http://127.0.0.1:${server.port}` })).status).toBe(200)
    expect((await api('getSession', '[]', { 'Sec-Fetch-Site': 'cross-site' })).status).toBe(403)
  })

  it('takes channel calls only as JSON POSTs', async () => {
    expect((await request(server.port, { path: '/api/getSession', headers: { Cookie: cookie } })).status).toBe(405)
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

  it('streams events as server-sent events', async () => {
    const events: string[] = []
    const received = new Promise<void>((resolve, reject) => {
      const req = http.request({ host: '127.0.0.1', port: server.port, path: '/api/events', headers: { Host: `127.0.0.1:${server.port}`, Cookie: cookie } }, (res) => {
        expect(res.statusCode).toBe(200)
        expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8')
        res.setEncoding('utf8')
        res.on('data', (chunk: string) => {
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
    // Let the stream open, then change something that emits a status event.
    await new Promise((r) => setTimeout(r, 100))
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

import { randomBytes, timingSafeEqual } from 'node:crypto'
import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { QuireBridge, QuireEvent } from '../../shared/contract'
import { ChannelArgsError, isQuireChannel, parseChannelArgs } from '../app/channel-args'
import { AppError } from '../app/errors'

/**
 * `quire serve`: the renderer and the bridge over HTTP on 127.0.0.1.
 *
 * Who may talk to it: only a browser that opened the secret URL printed at start. The secret is traded
 * for an HttpOnly, SameSite=Strict session cookie, and every other request needs that cookie. The Host
 * header must name this server (127.0.0.1:PORT or localhost:PORT), which defeats DNS rebinding: a page
 * on evil.example resolved to 127.0.0.1 still sends `Host: evil.example`. No CORS headers are ever sent,
 * so other origins cannot read answers; requests that change state must be JSON POSTs from this origin.
 */

export interface HeadlessServerOptions {
  backend: QuireBridge
  /** A built renderer: a folder with index.html and its assets. */
  rendererDir: string
  /** 0 picks a free port. */
  port?: number
  /** Given by tests; random (32 bytes) otherwise. */
  secret?: string
  log?: (line: string) => void
}

export interface HeadlessServer {
  port: number
  /** `http://127.0.0.1:PORT` */
  origin: string
  /** The URL to open first: it carries the secret. */
  url: string
  /** Name of the session cookie (one per port, so two servers do not clobber each other's). */
  cookieName: string
  close(): Promise<void>
}

const MAX_BODY = 1024 * 1024
const HEARTBEAT_MS = 20_000

export const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self' 'unsafe-inline'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ')

const MIME: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.map': 'application/json; charset=utf-8',
}

const BASE_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Content-Security-Policy': CONTENT_SECURITY_POLICY,
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function readCookie(header: string | undefined, name: string): string | undefined {
  for (const part of (header ?? '').split(';')) {
    const eq = part.indexOf('=')
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim()
  }
  return undefined
}

function statusOfAppError(error: AppError): number {
  switch (error.kind) {
    case 'invalid':
      return 400
    case 'forbidden':
      return 403
    case 'not-found':
      return 404
    case 'offline':
      return 503
    default:
      // signed-out, auth (the remote service refused a token), conflict: the request was fine, the state was not.
      return 409
  }
}

export async function startHeadlessServer(options: HeadlessServerOptions): Promise<HeadlessServer> {
  const { backend } = options
  const log = options.log ?? (() => undefined)
  const secret = options.secret ?? randomBytes(32).toString('base64url')
  const sessionToken = randomBytes(32).toString('base64url')
  const rendererDir = path.resolve(options.rendererDir)
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) throw new Error(`no renderer build in ${rendererDir} (index.html is missing)`)

  let port = 0
  let cookieName = ''
  let allowedHosts = new Set<string>()
  let allowedOrigins = new Set<string>()
  const streams = new Set<http.ServerResponse>()

  const send = (res: http.ServerResponse, status: number, body: string | Buffer, headers: Record<string, string> = {}) => {
    res.writeHead(status, { ...BASE_HEADERS, 'Cache-Control': 'no-store', ...headers })
    res.end(body)
  }
  const sendJson = (res: http.ServerResponse, status: number, value: unknown) =>
    send(res, status, JSON.stringify(value), { 'Content-Type': 'application/json; charset=utf-8' })
  const sendError = (res: http.ServerResponse, status: number, message: string, kind?: string) =>
    sendJson(res, status, { error: { code: status, message, ...(kind ? { kind } : {}) } })

  /** The body, or undefined when it is over MAX_BODY (the rest is read and dropped, so the answer arrives). */
  const readBody = (req: http.IncomingMessage): Promise<string | undefined> =>
    new Promise((resolve, reject) => {
      const chunks: Buffer[] = []
      let size = 0
      req.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size <= MAX_BODY) chunks.push(chunk)
      })
      req.on('end', () => resolve(size > MAX_BODY ? undefined : Buffer.concat(chunks).toString('utf8')))
      req.on('error', reject)
    })

  const handleApi = async (req: http.IncomingMessage, res: http.ServerResponse, name: string) => {
    if (name === 'events') {
      if (req.method !== 'GET') return sendError(res, 405, 'events are read with GET')
      res.writeHead(200, { ...BASE_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', 'Cache-Control': 'no-store', Connection: 'keep-alive' })
      res.write('retry: 2000\n\n')
      const push = (event: QuireEvent) => res.write(`data: ${JSON.stringify(event)}\n\n`)
      const off = backend.onEvent(push)
      const beat = setInterval(() => res.write(': keep-alive\n\n'), HEARTBEAT_MS)
      streams.add(res)
      req.on('close', () => {
        clearInterval(beat)
        off()
        streams.delete(res)
      })
      return
    }
    if (!isQuireChannel(name)) return sendError(res, 404, `no such channel "${name}"`)
    if (req.method !== 'POST') return sendError(res, 405, 'channels are called with POST', undefined)
    // A form or a no-cors fetch from another page cannot send application/json without a preflight,
    // and preflights are never answered, so this closes the classic CSRF door even without the cookie.
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'application/json') return sendError(res, 415, 'send the arguments as application/json')
    const tooBig = () => sendError(res, 413, `the request body is larger than ${MAX_BODY} bytes`)
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
      res.setHeader('Connection', 'close')
      req.resume()
      return tooBig()
    }
    const raw = await readBody(req)
    if (raw === undefined) return tooBig()
    let parsed: unknown
    try {
      parsed = raw.trim() === '' ? [] : JSON.parse(raw)
    } catch {
      return sendError(res, 400, 'the body is not valid JSON')
    }
    let args: unknown[]
    try {
      args = parseChannelArgs(name, parsed)
    } catch (error) {
      if (error instanceof ChannelArgsError) return sendError(res, 400, error.message, 'invalid')
      throw error
    }
    try {
      const call = backend[name] as (...a: unknown[]) => Promise<unknown>
      const result = await call.apply(backend, args)
      sendJson(res, 200, { result: result ?? null })
    } catch (error) {
      if (error instanceof AppError) return sendError(res, statusOfAppError(error), error.message, error.kind)
      log(`quire serve: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      sendError(res, 500, `${name} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const serveStatic = (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed', { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' })
    const relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    const file = path.resolve(rendererDir, relative)
    if (!file.startsWith(rendererDir + path.sep) || relative.includes('\0')) return send(res, 404, 'Not found', { 'Content-Type': 'text/plain; charset=utf-8' })
    let body: Buffer
    try {
      body = fs.readFileSync(file)
    } catch {
      return send(res, 404, 'Not found', { 'Content-Type': 'text/plain; charset=utf-8' })
    }
    const type = MIME[path.extname(file).toLowerCase()] ?? 'application/octet-stream'
    if (req.method === 'HEAD') {
      res.writeHead(200, { ...BASE_HEADERS, 'Cache-Control': 'no-cache', 'Content-Type': type, 'Content-Length': String(body.length) })
      return res.end()
    }
    send(res, 200, body, { 'Content-Type': type, 'Cache-Control': 'no-cache' })
  }

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    const host = (req.headers.host ?? '').toLowerCase()
    if (!allowedHosts.has(host)) return send(res, 403, 'Forbidden: unknown Host', { 'Content-Type': 'text/plain; charset=utf-8' })
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) return send(res, 403, 'Forbidden: cross-origin request', { 'Content-Type': 'text/plain; charset=utf-8' })
    if (req.headers['sec-fetch-site'] === 'cross-site') return send(res, 403, 'Forbidden: cross-site request', { 'Content-Type': 'text/plain; charset=utf-8' })

    const url = new URL(req.url ?? '/', `http://${host}`)
    const offered = url.searchParams.get('secret')
    if (offered !== null) {
      if (!sameSecret(offered, secret) || url.pathname !== '/') return send(res, 403, 'Forbidden: wrong secret', { 'Content-Type': 'text/plain; charset=utf-8' })
      // Trade the secret for the cookie, and drop it from the address bar.
      return send(res, 303, '', { 'Set-Cookie': `${cookieName}=${sessionToken}; HttpOnly; SameSite=Strict; Path=/`, Location: '/' })
    }

    const cookie = readCookie(req.headers.cookie, cookieName)
    if (cookie === undefined || !sameSecret(cookie, sessionToken)) {
      if (url.pathname.startsWith('/api/')) return sendError(res, 401, 'not signed in to this quire serve: open the URL it printed')
      return send(res, 401, 'Open the URL that `quire serve` printed (it carries a one-time secret).', { 'Content-Type': 'text/plain; charset=utf-8' })
    }
    if (url.pathname.startsWith('/api/')) return handleApi(req, res, url.pathname.slice('/api/'.length))
    serveStatic(req, res, url.pathname)
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(`quire serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
      if (!res.headersSent) sendError(res, 500, 'internal error')
      else res.end()
    })
  })

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port ?? 0, '127.0.0.1', () => {
      server.off('error', reject)
      resolve()
    })
  })
  const address = server.address()
  if (address === null || typeof address === 'string') throw new Error('the server has no TCP address')
  port = address.port
  cookieName = `quire-session-${port}`
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`])
  const origin = `http://127.0.0.1:${port}`

  return {
    port,
    origin,
    url: `${origin}/?secret=${secret}`,
    cookieName,
    async close() {
      for (const res of streams) res.end()
      streams.clear()
      await new Promise<void>((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      })
    },
  }
}

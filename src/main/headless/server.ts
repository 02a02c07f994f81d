import fs from 'node:fs'
import http from 'node:http'
import path from 'node:path'
import type { QuireBridge, QuireEvent } from '../../shared/contract'
import { HEADLESS_SECRET_PARAM, HEADLESS_SESSION_PATH, HEADLESS_TOKEN_HEADER, HEADLESS_TOKEN_QUERY } from '../../shared/headless-transport'
import { ChannelArgsError, isQuireChannel, parseChannelArgs } from '../app/channel-args'
import { AppError } from '../app/errors'
import { redactSecrets } from '../engine'
import { HeadlessSessions, type TabStore } from './sessions'

/**
 * `quire serve`: the renderer and the bridge over HTTP on 127.0.0.1.
 *
 * Who may talk to it: only the browser tab that opened the secret link printed at start. The page reads
 * the secret from the address bar's fragment (never sent in a request line), trades it once for a tab
 * token and sends that token itself on every call: a header for channels, the query of the event stream.
 * There is no cookie: browsers send cookies to every port of 127.0.0.1, so a cookie would hand the
 * session to any local process the browser visits. The Host header must name this server
 * (127.0.0.1:PORT or localhost:PORT), which defeats DNS rebinding; the API refuses other origins and
 * other sites' fetches (Sec-Fetch-Site), and no CORS headers are ever sent. The renderer's files are
 * public (the same code as the app): they carry no data.
 */

export interface HeadlessServerOptions {
  backend: QuireBridge
  /** A built renderer: a folder with index.html and its assets. */
  rendererDir: string
  /** 0 picks a free port. */
  port?: number
  /** The first one-time secret; given by tests, random (32 bytes) otherwise. */
  secret?: string
  /** How long a secret link works (default 5 minutes). */
  secretTtlMs?: number
  /** Keeps the tabs' token digests between runs (quire serve: in its data folder), so open tabs reconnect after a restart. */
  tabStore?: TabStore
  log?: (line: string) => void
}

export interface HeadlessServer {
  port: number
  /** `http://127.0.0.1:PORT` */
  origin: string
  /** The URL to open first: its fragment carries a one-time secret. */
  url: string
  /** Another one-time link (for a second tab, or when the first expired unused). */
  newLink(): string
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

const REFUSED_LINK: Record<'unknown' | 'used' | 'expired', string> = {
  unknown: 'this link is not one quire serve printed',
  used: 'this link was used already: each link works once',
  expired: 'this link has expired: links work for a few minutes',
}

/** `new URL` of the request line, or undefined when it cannot be parsed or its path cannot be decoded. */
function requestUrl(raw: string, host: string): URL | undefined {
  try {
    const url = new URL(raw, `http://${host}`)
    decodeURIComponent(url.pathname)
    return url
  } catch {
    return undefined
  }
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
  const sessions = new HeadlessSessions(options.secretTtlMs, Date.now, options.tabStore)
  const firstSecret = sessions.issueSecret(options.secret)
  const rendererDir = path.resolve(options.rendererDir)
  if (!fs.existsSync(path.join(rendererDir, 'index.html'))) throw new Error(`no renderer build in ${rendererDir} (index.html is missing)`)

  let port = 0
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
    sendJson(res, status, { error: { code: status, message: redactSecrets(message), ...(kind ? { kind } : {}) } })
  const sendText = (res: http.ServerResponse, status: number, text: string) => send(res, status, text, { 'Content-Type': 'text/plain; charset=utf-8' })

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

  /** The JSON body of a POST, or undefined once an error has been sent. */
  const readJson = async (req: http.IncomingMessage, res: http.ServerResponse, emptyAs: unknown): Promise<{ value: unknown } | undefined> => {
    // A form or a no-cors fetch from another page cannot send application/json without a preflight,
    // and preflights are never answered, so this closes the classic CSRF door on its own too.
    const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase()
    if (type !== 'application/json') return void sendError(res, 415, 'send the arguments as application/json')
    const tooBig = () => sendError(res, 413, `the request body is larger than ${MAX_BODY} bytes`)
    if (Number(req.headers['content-length'] ?? 0) > MAX_BODY) {
      res.setHeader('Connection', 'close')
      req.resume()
      return void tooBig()
    }
    const raw = await readBody(req)
    if (raw === undefined) return void tooBig()
    try {
      return { value: raw.trim() === '' ? emptyAs : JSON.parse(raw) }
    } catch {
      return void sendError(res, 400, 'the body is not valid JSON')
    }
  }

  const handleSession = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    if (req.method !== 'POST') return sendError(res, 405, 'trade the secret with POST')
    const body = await readJson(req, res, undefined)
    if (!body) return
    const secret = (body.value as { secret?: unknown } | null)?.secret
    if (typeof secret !== 'string' || secret === '' || secret.length > 256) return sendError(res, 400, 'send { "secret": "..." } from the link quire serve printed')
    const outcome = sessions.exchange(secret)
    if ('refused' in outcome) return sendError(res, 403, `${REFUSED_LINK[outcome.refused]}; press Enter in the terminal running quire serve for a new one`)
    sendJson(res, 200, { result: { token: outcome.token } })
  }

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
    const body = await readJson(req, res, [])
    if (!body) return
    let args: unknown[]
    try {
      args = parseChannelArgs(name, body.value)
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
      log(redactSecrets(`quire serve: ${name} failed: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`))
      sendError(res, 500, `${name} failed: ${error instanceof Error ? error.message : String(error)}`)
    }
  }

  const serveStatic = (req: http.IncomingMessage, res: http.ServerResponse, pathname: string) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return send(res, 405, 'Method not allowed', { 'Content-Type': 'text/plain; charset=utf-8', Allow: 'GET, HEAD' })
    // requestUrl() checked that the path decodes.
    const relative = pathname === '/' ? 'index.html' : decodeURIComponent(pathname).replace(/^\/+/, '')
    const file = path.resolve(rendererDir, relative)
    if (!file.startsWith(rendererDir + path.sep) || relative.includes('\0')) return sendText(res, 404, 'Not found')
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
    if (!allowedHosts.has(host)) return sendText(res, 403, 'Forbidden: unknown Host')
    const origin = req.headers.origin
    if (origin !== undefined && !allowedOrigins.has(origin.toLowerCase())) return sendText(res, 403, 'Forbidden: cross-origin request')
    const site = req.headers['sec-fetch-site']
    if (site === 'cross-site') return sendText(res, 403, 'Forbidden: cross-site request')

    const url = requestUrl(req.url ?? '/', host)
    if (!url) return sendText(res, 400, 'Bad request: the path is not valid percent-encoding')
    if (!url.pathname.startsWith('/api/')) return serveStatic(req, res, url.pathname)

    // Only this page's own scripts call the API: another port of 127.0.0.1 is "same-site" to a browser,
    // a typed address is "none". Clients that are not browsers send no Sec-Fetch-Site at all.
    if (site !== undefined && site !== 'same-origin') return sendError(res, 403, 'the API answers this page only')
    if (url.pathname === HEADLESS_SESSION_PATH) return handleSession(req, res)
    const name = url.pathname.slice('/api/'.length)
    const header = req.headers[HEADLESS_TOKEN_HEADER.toLowerCase()]
    const token = typeof header === 'string' ? header : name === 'events' ? (url.searchParams.get(HEADLESS_TOKEN_QUERY) ?? undefined) : undefined
    if (!sessions.isTab(token)) return sendError(res, 401, 'not signed in to this quire serve: open the link it printed')
    return handleApi(req, res, name)
  }

  const server = http.createServer((req, res) => {
    handle(req, res).catch((error: unknown) => {
      log(redactSecrets(`quire serve: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`))
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
  allowedHosts = new Set([`127.0.0.1:${port}`, `localhost:${port}`])
  allowedOrigins = new Set([`http://127.0.0.1:${port}`, `http://localhost:${port}`])
  const origin = `http://127.0.0.1:${port}`

  const link = (secret: string) => `${origin}/#${HEADLESS_SECRET_PARAM}=${secret}`
  return {
    port,
    origin,
    url: link(firstSecret),
    newLink: () => link(sessions.issueSecret()),
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

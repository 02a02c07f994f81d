import http from 'node:http'
import { setImmediate as nextTurn, setTimeout as delay } from 'node:timers/promises'
import { APP_PREFIX, serveAppPage } from '../api/app-pages'
import { DOWNLOAD_PREFIX, serveDownload } from '../api/downloads'
import { validateRequestBody } from '../spec/body-validation'
import { SpecRegistry } from '../spec/openapi-spec'
import { warmRequestValidators, type ValidatorWarmup, type WarmupResult } from '../spec/validator-warmup'
import type { ServiceStore } from '../store/service-store'
import { UsersRepository } from '../store/users'
import { chosenCoding, COMPRESS_ABOVE_BYTES, compressed, writeCompressedPieces } from './compression'
import { FRIENDLY_CONTENT, type ContentProfile, type Route } from './context'
import { ApiError, errorBody } from './errors'
import { JsonPieces, writePieces } from './json-pieces'
import { keepConnectionsAMinute, listenAt } from './listen'
import { decodeJsonBody, refuseLoneSurrogates } from './json-text'
import { MAX_JSON_DEPTH, nestsDeeperThan } from './json-depth'
import { RateLimiter } from './rate-limit'
import { Router } from './router'

const MAX_BODY_BYTES = 32 * 1024 * 1024
/**
 * A body larger than this is decoded, depth-checked, parsed and validated each on its own turn of the
 * event loop: over a 5 MB body each takes 5-20 ms, which together held every other request (issue 16).
 */
const STEP_ABOVE_BYTES = 256 * 1024
/** How long the rest of a refused body is still read (and dropped) so its sender can read the 413. */
const LINGER_MS = 15_000

export interface HttpServiceOptions {
  store: ServiceStore
  routes: Route[]
  spec: SpecRegistry
  rateLimitPerMinute?: number
  /** The rate limit's window (default a minute): tests of the hosted profile meet a 429 in a second. */
  rateLimitWindowMs?: number
  /** How revision content is answered: the friendly profile's trees with markdown, or the hosted one's. */
  content?: ContentProfile
  /**
   * Whether the API's own origin serves file downloads (`/files/...`). The hosted profile's come from a
   * file host of their own (file-host.ts), as the hosted service's do: its API origin has none.
   */
  servesDownloads?: boolean
  /** Milliseconds every request waits before it is handled, standing for a network's round trip. */
  latencyMs?: number
  /** Checks every response against the spec and turns a mismatch into a 500 (tests run with this on). */
  validateResponses?: boolean
  /**
   * Compiles every routed operation's request validators after `listen`, in a worker thread (default: on
   * unless `validateResponses`, the test mode, where each short-lived service would pay for all of them).
   */
  warmValidators?: boolean
  log?: (line: string) => void
  /** Lines about what is no fault of the service's (a client that left mid-request); off unless given. */
  debug?: (line: string) => void
}

interface Reply {
  status: number
  /** A value to serialize as JSON, bytes as they are (downloads), or JSON made ahead in pieces. */
  body?: unknown
  headers: Record<string, string>
}

/**
 * The body, or a 413 once it passes MAX_BODY_BYTES (at once when its Content-Length says it will). From
 * then on nothing is kept: the rest is read and dropped, so that the sender, still sending, can read
 * the answer (see `serve`).
 */
function readBody(req: http.IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    const tooLarge = () => {
      size = Infinity
      chunks.length = 0
      reject(new ApiError(413, `request body is larger than ${MAX_BODY_BYTES} bytes`))
    }
    req.on('data', (chunk: Buffer) => {
      if (size > MAX_BODY_BYTES) return
      size += chunk.length
      if (size > MAX_BODY_BYTES) tooLarge()
      else chunks.push(chunk)
    })
    req.on('end', () => resolve(Buffer.concat(chunks)))
    // Reading a request fails only when its connection does: the client left mid-request (Node says
    // "aborted"). Nothing is wrong with the service and no one reads an answer.
    req.on('error', (error) => reject(new ClientGoneError(error)))
    req.on('close', () => {
      if (!req.complete) reject(new ClientGoneError())
    })
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) tooLarge()
  })
}

/** The client closed its connection before its request was read to the end. */
class ClientGoneError extends Error {
  constructor(cause?: Error) {
    super(`the client closed the connection mid-request${cause ? ` (${cause.message})` : ''}`)
  }
}

/** Resolves once the request has been read to its end (or its connection is gone), or after `ms`. */
function untilRead(req: http.IncomingMessage, ms: number): Promise<boolean> {
  if (req.complete) return Promise.resolve(true)
  return new Promise((resolve) => {
    const done = (read: boolean) => {
      clearTimeout(timer)
      req.off('end', onEnd)
      req.off('close', onClose)
      resolve(read)
    }
    const onEnd = () => done(true)
    const onClose = () => done(req.complete)
    const timer = setTimeout(() => done(false), ms)
    req.on('end', onEnd)
    req.on('close', onClose)
  })
}

function parseQuery(url: URL, arrayNames: Set<string>): Record<string, unknown> {
  const query: Record<string, unknown> = {}
  for (const key of new Set(url.searchParams.keys())) {
    const values = url.searchParams.getAll(key)
    query[key] = arrayNames.has(key) ? values.flatMap((v) => v.split(',')).filter((v) => v !== '') : values[values.length - 1]
  }
  return query
}

function bearerToken(header: string | undefined): string | undefined {
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')
  return m?.[1]
}

/** The HTTP face of the service: auth, rate limit, routing, spec validation, JSON in and out. */
export class HttpService {
  private readonly router: Router
  private readonly limiter?: RateLimiter
  private readonly server: http.Server
  private readonly pending = new Set<Promise<void>>()
  private warmup: ValidatorWarmup | undefined
  private warmed: (result: WarmupResult | undefined) => void = () => undefined
  /**
   * Settles once every routed operation's request validators are compiled (or the warm-up is off or
   * stopped: undefined), saying how.
   */
  readonly validatorsWarm = new Promise<WarmupResult | undefined>((resolve) => (this.warmed = resolve))
  origin = ''
  /** Requests answered 429 for the rate limit so far (tests read it: a 429 met and waited out). */
  rateLimited = 0

  constructor(private readonly options: HttpServiceOptions) {
    this.router = new Router(options.routes, (id) => options.spec.operation(id))
    if (options.rateLimitPerMinute) this.limiter = new RateLimiter(options.rateLimitPerMinute, undefined, options.rateLimitWindowMs)
    this.server = http.createServer((req, res) => void this.serve(req, res))
    keepConnectionsAMinute(this.server)
  }

  async listen(port: number, host: string): Promise<string> {
    this.origin = await listenAt(this.server, port, host)
    if (this.options.warmValidators ?? !this.options.validateResponses) this.warmValidators()
    else this.warmed(undefined)
    return this.origin
  }

  /**
   * ajv compiles a validator on its first use: 0.1-0.9 s for the first request of a kind (a content
   * batch's body schema is the largest), during which every other request waited (issue 16). Compiled at
   * start-up instead, in a worker thread (spec/validator-warmup.ts), the event loop only loading the
   * code it sends, a few ms a turn; validation stays exactly as strict, only its compilation moves. A
   * request that comes first compiles its own in place, as before.
   */
  private warmValidators() {
    this.warmup = warmRequestValidators(this.options.spec, this.router.operationIds())
    void this.warmup.done.then((result) => {
      if (result.problem) this.options.log?.(`request validators: ${result.problem} (${result.inPlace} compiled on the event loop)`)
      this.warmed(result)
    })
  }

  async close(): Promise<void> {
    this.warmup?.stop()
    this.warmed(undefined)
    await new Promise<void>((resolve) => {
      this.server.close(() => resolve())
      this.server.closeAllConnections()
    })
    await Promise.allSettled([...this.pending])
  }

  private async serve(req: http.IncomingMessage, res: http.ServerResponse) {
    if (this.options.latencyMs) await delay(this.options.latencyMs)
    let reply: Reply
    try {
      reply = await this.handle(req)
    } catch (error) {
      reply = this.errorReply(error, {})
    }
    const headers: Record<string, string> = { ...reply.headers }
    if (reply.status === 413) headers.Connection = 'close'
    let payload: string | Buffer | undefined
    // JSON answers over COMPRESS_ABOVE_BYTES are compressed as the request asks (never a 413's: see below).
    const coding = reply.status === 413 ? undefined : chosenCoding(req.headers['accept-encoding'])
    if (reply.body instanceof JsonPieces) {
      // JSON made ahead (a large page's document, from a worker): written piece by piece, never joined.
      headers['Content-Type'] = 'application/json; charset=utf-8'
      if (coding && reply.body.byteLength > COMPRESS_ABOVE_BYTES) {
        headers['Content-Encoding'] = coding
        headers.Vary = 'Accept-Encoding'
        res.writeHead(reply.status, headers)
        await writeCompressedPieces(res, reply.body.pieces, coding, reply.body.byteLength)
        return
      }
      headers['Content-Length'] = String(reply.body.byteLength)
      res.writeHead(reply.status, headers)
      await writePieces(res, reply.body.pieces)
      return
    }
    if (Buffer.isBuffer(reply.body)) {
      payload = reply.body
      headers['Content-Length'] = String(payload.length)
    } else if (reply.body !== undefined && reply.status !== 204) {
      const json = Buffer.from(JSON.stringify(reply.body))
      headers['Content-Type'] = 'application/json; charset=utf-8'
      if (coding && json.length > COMPRESS_ABOVE_BYTES) {
        payload = await compressed(json, coding)
        headers['Content-Encoding'] = coding
        headers.Vary = 'Accept-Encoding'
      } else payload = json
      headers['Content-Length'] = String(payload.length)
    }
    res.writeHead(reply.status, headers)
    if (reply.status !== 413 || req.complete) {
      res.end(payload)
      return
    }
    // Refused while the client is still sending. A connection closed with bytes unread answers them with a
    // reset, which can wipe the 413 from the client before it reads it (it then sees the service as down and
    // sends again). So the whole answer goes out now (its length is known), the rest of the body is read
    // and dropped, and the connection closes once the body has ended: after LINGER_MS, it closes anyway.
    if (payload !== undefined) res.write(payload)
    const read = await untilRead(req, LINGER_MS)
    res.end()
    if (!read) req.socket.destroy()
  }

  private errorReply(error: unknown, headers: Record<string, string>): Reply {
    if (error instanceof ClientGoneError) {
      // Not an internal error: the client went away. The answer goes nowhere (its socket is gone).
      this.options.debug?.(error.message)
      return { status: 400, body: errorBody(400, error.message), headers }
    }
    if (error instanceof ApiError) {
      return { status: error.status, body: errorBody(error.status, error.message), headers: { ...headers, ...error.headers } }
    }
    this.options.log?.(`internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}`)
    return { status: 500, body: errorBody(500, 'Internal error'), headers }
  }

  private async handle(req: http.IncomingMessage): Promise<Reply> {
    const url = new URL(req.url ?? '/', 'http://service.invalid')
    const token = bearerToken(req.headers.authorization)
    const headers: Record<string, string> = {}
    if (this.limiter) {
      const verdict = this.limiter.take(token ?? `ip:${req.socket.remoteAddress}`)
      Object.assign(headers, verdict.headers)
      if (!verdict.allowed) this.rateLimited++
      if (!verdict.allowed) return { status: 429, body: errorBody(429, 'Rate limit exceeded; retry after the time in Retry-After'), headers }
    }
    // Signed blob downloads (file `downloadURL`s, PDFs) are links for browsers: no bearer token.
    if (url.pathname.startsWith(DOWNLOAD_PREFIX) && this.options.servesDownloads !== false) {
      const download = serveDownload(this.options.store, req.method ?? 'GET', url)
      return { ...download, headers: { ...headers, ...download.headers } }
    }
    // The web pages behind `urls.app` (signed links, like downloads: a browser has no token).
    if (url.pathname.startsWith(APP_PREFIX)) {
      const page = serveAppPage(this.options.store, req.method ?? 'GET', url, this.origin)
      return { ...page, headers: { ...headers, ...page.headers } }
    }
    if (!url.pathname.startsWith('/v1/')) return { status: 404, body: errorBody(404, 'Not found: every path begins with /v1'), headers }
    const path = url.pathname.slice(3)
    const { store, spec } = this.options

    const user = token ? store.repo(UsersRepository).byToken(token) : undefined
    if (!user) {
      const message = token ? 'The access token is not valid' : 'Authorization: Bearer <token> is required'
      return { status: 401, body: errorBody(401, message), headers: { ...headers, 'WWW-Authenticate': 'Bearer' } }
    }

    let match: ReturnType<Router['match']>
    try {
      match = this.router.match(req.method ?? 'GET', path)
    } catch (error) {
      // A path the router cannot decode (bad percent-encoding) is still answered with the rate headers.
      return this.errorReply(error, headers)
    }
    if (!('op' in match)) {
      return match.methodMismatch
        ? { status: 405, body: errorBody(405, `${req.method} is not allowed on ${path}`), headers }
        : { status: 404, body: errorBody(404, `No operation at ${path}`), headers }
    }
    const { op, route, params } = match

    try {
      const arrayNames = new Set(op.parameters.filter((p) => p.in === 'query' && p.schema?.type === 'array').map((p) => p.name))
      const query = parseQuery(url, arrayNames)
      const paramError = spec.validateParameters(op, 'path', params) ?? spec.validateParameters(op, 'query', query)
      if (paramError) throw new ApiError(400, paramError)

      const raw = await readBody(req)
      const step = raw.length > STEP_ABOVE_BYTES ? () => nextTurn() : () => undefined
      let body: unknown
      if (raw.length > 0) {
        const type = req.headers['content-type'] ?? ''
        if (!/^application\/(.+\+)?json\b/i.test(type)) throw new ApiError(415, 'request bodies must be application/json')
        const text = decodeJsonBody(raw)
        await step()
        if (nestsDeeperThan(text)) throw new ApiError(400, `request body is nested more than ${MAX_JSON_DEPTH} levels deep`)
        await step()
        try {
          body = JSON.parse(text)
        } catch {
          throw new ApiError(400, 'request body is not valid JSON')
        }
        await step()
        refuseLoneSurrogates(text, body)
      }
      if (op.requestBody?.schema) {
        if (body === undefined && op.requestBody.required) throw new ApiError(400, 'body is required')
        if (body !== undefined) {
          const bodyError = await validateRequestBody(spec, op, body, raw)
          if (bodyError) throw new ApiError(400, bodyError)
          await step()
        }
      }

      const result = await route.handler({
        op,
        params,
        query,
        body,
        user,
        store,
        origin: this.origin,
        content: this.options.content ?? FRIENDLY_CONTENT,
        defer: (task) => {
          const running = task()
            .catch((error: unknown) => this.options.log?.(`background task failed: ${String(error)}`))
            .finally(() => this.pending.delete(running))
          this.pending.add(running)
        },
      })
      const reply: Reply = { status: result.status, body: result.body, headers: { ...headers, ...result.headers } }
      return this.checked(op.operationId, reply)
    } catch (error) {
      return this.checked(op.operationId, this.errorReply(error, headers))
    }
  }

  private checked(operationId: string, reply: Reply): Reply {
    if (!this.options.validateResponses || reply.status === 500) return reply
    // JSON made ahead in pieces (a large page's document, converted in a worker) is checked whole.
    const body = reply.body instanceof JsonPieces ? reply.body.parse() : reply.body
    const problem = this.options.spec.validateResponse(this.options.spec.operation(operationId), reply.status, body)
    if (!problem) return reply
    this.options.log?.(`response does not match the spec: ${problem}`)
    return { status: 500, body: errorBody(500, `response does not match the published spec: ${problem}`), headers: reply.headers }
  }
}

import { GitBookAPI, GitBookAPIError } from '@gitbook/api'
import PQueue from 'p-queue'
import { Agent, type Dispatcher } from 'undici'
import { DownloadPolicy, DownloadRefusedError, type Network, type Resolve } from './download-policy'
import { Pace } from './pace'
import { Reachability } from './reachability'
import { backoffDelay, isBrokenBeforeAnswer, isRetryable, parseRetryAfter, type RateLimitState } from './retry-policy'
import { checkTokenShape, redactSecrets, registerSecret } from './secrets'
import { bodyUnderDeadline, requestBodyBytes, SLOWEST_BYTES_PER_SECOND, TransferDeadline } from './transfer-deadline'
import { readWhole } from './whole-response'

export interface GatewayOptions {
  /** API origin without `/v1`, e.g. `https://api.gitbook.com` or the local service's origin. */
  endpoint: string
  token: string
  /** Requests in flight at the start; the pace raises or lowers it as the service answers (see pace.ts). */
  concurrency?: number
  /** Never more requests in flight than this. */
  maxConcurrency?: number
  /** At most `intervalCap` requests per `intervalMs`: no cap unless given (the service's headers set the pace). */
  intervalCap?: number
  intervalMs?: number
  /** A request's time before its bytes: it has this plus its bytes (both ways) at `slowestBytesPerSecond`. */
  timeoutMs?: number
  slowestBytesPerSecond?: number
  /** The longest a `Retry-After` or a spent rate-limit window is waited out; a longer one is answered at once. */
  maxWaitMs?: number
  maxAttempts?: number
  backoff?: { baseMs: number; capMs: number }
  /**
   * Whether the API is on the public internet or on this machine or a private network, which decides the
   * file hosts downloads may use (download-policy.ts). Found from the API's address when not given.
   */
  apiNetwork?: Network
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch
  /** Injected for tests (DNS answers); defaults to the system resolver. */
  resolve?: Resolve
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  onEvent?: (event: GatewayEvent) => void
}

/** What a caller knows about one request. */
export interface RequestOptions {
  /**
   * Sending it twice does what sending it once does (a POST that sets things to given values): sent
   * again at once when its connection broke before any answer, as GET, PUT and DELETE are.
   */
  resendable?: boolean
}

export type GatewayEvent =
  | { type: 'rate-limited'; waitMs: number; url: string }
  | { type: 'retry'; attempt: number; waitMs: number; url: string; reason: string }
  | { type: 'paused'; untilMs: number }

/** Thrown when the service cannot be reached at all (after retries): callers report `offline`. */
export class ServiceUnreachableError extends Error {
  constructor(
    readonly url: string,
    cause: unknown,
    /**
     * True only when no attempt can have reached the service (every one was refused before connecting):
     * a write may then be sent as new. Otherwise the outcome is unknown (a reset, a timeout, an answer
     * cut mid-read after the service acted) and the caller must find out before sending it again.
     */
    readonly notSent = false,
    /**
     * True when the connection failed before any answer byte (EPIPE, ECONNRESET, "other side closed"):
     * most often a keep-alive socket the service had just closed, which the request never got through.
     * The outcome is still unknown to the letter, so the caller reconciles before sending it again, but
     * at once: it is no sign the service is away.
     */
    readonly beforeAnswer = false,
  ) {
    // The cause may quote a header value (undici's "invalid header value"), token and all.
    super(redactSecrets(`the service at ${new URL(url).origin} cannot be reached: ${cause instanceof Error ? cause.message : String(cause)}`))
  }
}

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))


/** Compressed answers, decoded by fetch; Node's fetch asks for gzip and deflate only, without br. */
const ACCEPT_ENCODING = 'gzip, br'

function classifyNetworkError(error: unknown): 'refused' | 'reset' | 'timeout' {
  const e = error as { name?: string; cause?: { code?: string } }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout'
  const code = e?.cause?.code
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'refused'
  return 'reset'
}

/**
 * The one door every HTTP call goes through: the official typed client over a fetch that queues
 * (p-queue, at the concurrency the pace sets), follows the service's rate-limit headers and waits out a
 * 429 as `Retry-After` says (pace.ts), retries 5xx and network errors with full-jitter backoff, sends a
 * request whose connection broke before any answer again at once on a new connection, times out by the
 * request's size (transfer-deadline.ts), sends the token to the API's origin only and downloads files
 * only from where the download policy allows (download-policy.ts).
 */
export class ApiGateway {
  readonly client: GitBookAPI
  private readonly downloads: DownloadPolicy
  private readonly queue: PQueue
  private readonly pace: Pace
  private readonly fetchImpl: typeof fetch
  private readonly sleep: (ms: number) => Promise<void>
  private readonly apiOrigin: string
  /** Connections to the API (and, for an API on a private network, to its file hosts). */
  private pool = new Agent()
  /** Connections to file hosts of a public API: names resolved and judged again as each connects. */
  private filePool: Agent | undefined
  /** Whether the API answers (file hosts are not the service): set by every attempt's outcome. */
  readonly reachability = new Reachability()

  constructor(private readonly options: GatewayOptions) {
    checkTokenShape(options.token)
    registerSecret(options.token)
    this.pace = new Pace({
      concurrency: options.concurrency ?? 4,
      maxConcurrency: Math.max(options.maxConcurrency ?? 16, options.concurrency ?? 1),
      maxWaitMs: this.maxWaitMs,
      onPause: (untilMs) => options.onEvent?.({ type: 'paused', untilMs }),
    })
    this.queue = new PQueue({ concurrency: this.pace.concurrency, intervalCap: options.intervalCap ?? Infinity, interval: options.intervalCap === undefined ? 0 : (options.intervalMs ?? 1000) })
    this.fetchImpl = options.fetch ?? fetch
    this.sleep = options.sleep ?? defaultSleep
    this.apiOrigin = new URL(options.endpoint).origin
    this.downloads = new DownloadPolicy(this.apiOrigin, options.apiNetwork, options.resolve)
    this.client = new GitBookAPI({
      endpoint: options.endpoint,
      authToken: options.token,
      userAgent: 'quire',
      serviceBinding: { fetch: (input: RequestInfo | URL, init?: RequestInit) => this.fetch(input, init) },
    })
  }

  get pending(): number {
    return this.queue.size + this.queue.pending
  }

  /** The service's last word on its rate limit. */
  get rateLimit(): RateLimitState {
    return this.pace.rateLimit
  }

  private get maxWaitMs() {
    return this.options.maxWaitMs ?? 120_000
  }

  /** Raw fetch through the queue, the body read in full within the attempt. */
  fetch(input: RequestInfo | URL, init?: RequestInit, options: RequestOptions = {}): Promise<Response> {
    return this.queue.add(() => this.attempt(input, init ?? {}, true, options))
  }

  /**
   * A fetch through the queue whose body is left to the caller to stream (file downloads written to
   * disk as they arrive, never held whole). Statuses are handled as `fetch` handles them (429 waited
   * out, 5xx and refused connections retried); a body cut mid-read is the caller's to retry.
   */
  fetchStream(input: RequestInfo | URL, init?: RequestInit, options: RequestOptions = {}): Promise<Response> {
    return this.queue.add(() => this.attempt(input, init ?? {}, false, options))
  }

  /**
   * One hop of a file download: refused (DownloadRefusedError) unless the download policy allows the
   * URL; never with the token; a redirect is answered as it is, for the caller to check and follow.
   */
  async fetchFile(url: URL, options: { stream: boolean }): Promise<Response> {
    await this.downloads.check(url)
    const init: RequestInit = { redirect: 'manual' }
    return options.stream ? this.fetchStream(url.href, init) : this.fetch(url.href, init)
  }

  /**
   * A JSON request whose body is already encoded (a content batch written straight into bytes, so its
   * files' base64 is not also held as strings); answered as the typed client answers: the parsed JSON,
   * or a GitBookAPIError carrying the service's message for any other status than 2xx.
   */
  async sendJson<T>(method: string, path: string, body: Uint8Array<ArrayBuffer>, options: RequestOptions = {}): Promise<T> {
    const response = await this.fetch(
      `${this.client.endpoint}/v1${path}`,
      { method, headers: { Authorization: `Bearer ${this.options.token}`, 'User-Agent': 'quire', 'Content-Type': 'application/json' }, body },
      options,
    )
    if (!response.ok) {
      const answer = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined
      throw new GitBookAPIError(answer?.error?.message || response.statusText, response)
    }
    return (await response.json()) as T
  }

  private async attempt(input: RequestInfo | URL, init: RequestInit, whole: boolean, options: RequestOptions): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const headers = this.headersFor(url, init.headers ?? (input instanceof Request ? input.headers : undefined))
    const maxAttempts = this.options.maxAttempts ?? 5
    const backoff = this.options.backoff ?? { baseMs: 250, capMs: 30_000 }
    // Whether some attempt may have reached the service (anything but a refused connection).
    let reached = false
    let triedFresh = false
    let rateLimited = false
    for (let attempt = 0; ; attempt++) {
      if (rateLimited) await this.pace.slot()
      const wait = this.pace.delay()
      if (wait > 0) await this.sleep(wait)
      const dispatcher = await this.dispatcherFor(url)
      const ticket = this.pace.start(new URL(url).origin === this.apiOrigin)
      const deadline = new TransferDeadline(this.options.timeoutMs ?? 30_000, this.options.slowestBytesPerSecond ?? SLOWEST_BYTES_PER_SECOND, requestBodyBytes(init.body))
      let response: Response | undefined
      let failure: unknown
      try {
        response = await this.fetchImpl(input, { ...init, headers, signal: deadline.signal, dispatcher } as RequestInit)
      } catch (error) {
        failure = error
        deadline.clear()
      }
      this.pace.end(ticket, response, this.queue.size > 0)
      this.queue.concurrency = this.pace.concurrency
      const refused = (failure as { cause?: unknown } | undefined)?.cause
      if (refused instanceof DownloadRefusedError) throw refused
      const toApi = new URL(url).origin === this.apiOrigin
      if (response && toApi) this.reachability.answered()
      if (response) {
        if (response.status === 429) {
          const waitMs = parseRetryAfter(response.headers.get('retry-after'), serverNow(response)) ?? backoffDelay(attempt, backoff, this.options.random)
          this.options.onEvent?.({ type: 'rate-limited', waitMs, url })
          // A wait past the bound (or past the attempts) is not made: the 429 is the caller's answer.
          if (attempt + 1 < maxAttempts && waitMs <= this.maxWaitMs) {
            rateLimited = true
            this.pace.pause(Date.now() + waitMs)
            deadline.clear()
            await response.body?.cancel()
            continue
          }
        } else if (response.status >= 500 && attempt + 1 < maxAttempts && isRetryable(method, { status: response.status }, options.resendable)) {
          reached = true
          deadline.clear()
          await response.body?.cancel()
          const hinted = parseRetryAfter(response.headers.get('retry-after'), serverNow(response))
          await this.backoff(attempt, backoff, url, `HTTP ${response.status}`, hinted === undefined ? undefined : Math.min(hinted, this.maxWaitMs))
          continue
        }
        const timed = bodyUnderDeadline(response, deadline)
        if (!whole) return timed
        try {
          return await readWhole(timed)
        } catch (error) {
          failure = error
        } finally {
          deadline.clear()
        }
      }
      const kind = response ? (classifyNetworkError(failure) === 'timeout' ? 'timeout' : 'reset') : classifyNetworkError(failure)
      if (kind !== 'refused') reached = true
      const broken = !response && isBrokenBeforeAnswer(failure)
      // The other idle connections of the pool were most likely closed with this one (a service's
      // keep-alive timeout, a restart): the next request, this one's or the caller's, opens a new one.
      if (broken) this.renew(dispatcher)
      if (broken && !triedFresh && isRetryable(method, { networkError: 'reset' }, options.resendable)) {
        triedFresh = true
        this.options.onEvent?.({ type: 'retry', attempt: attempt + 1, waitMs: 0, url, reason: 'the connection closed before any answer' })
        attempt--
        continue
      }
      // No answer at all, even on a fresh connection: the service is away until some request gets one.
      // Node's fetch says only "fetch failed" (the reason is in its cause): the state says what it means.
      if (!response && toApi) this.reachability.failed(new ServiceUnreachableError(url, failure).message.replace(/: fetch failed$/, ''))
      if (attempt + 1 >= maxAttempts || !isRetryable(method, { networkError: kind }, options.resendable)) {
        throw new ServiceUnreachableError(url, failure, !reached, broken)
      }
      await this.backoff(attempt, backoff, url, kind)
    }
  }

  /** The request's headers: the token only to the API's origin; compressed answers asked for. */
  private headersFor(url: string, given: HeadersInit | undefined): Headers {
    const headers = new Headers(given)
    if (new URL(url).origin !== this.apiOrigin) headers.delete('authorization')
    if (!headers.has('accept-encoding')) headers.set('accept-encoding', ACCEPT_ENCODING)
    return headers
  }

  /** The API's pool, or for a file host of a public API, the pool whose connections are judged by address. */
  private async dispatcherFor(url: string): Promise<Dispatcher> {
    if (new URL(url).origin === this.apiOrigin || (await this.downloads.apiNetwork()) === 'private') return this.pool
    this.filePool ??= new Agent({ connect: { lookup: this.downloads.guardedLookup } })
    return this.filePool
  }

  /** A new pool in place of `used` (when it is still current); requests in flight on the old one end there. */
  private renew(used: Dispatcher) {
    if (used === this.pool) {
      void this.pool.close().catch(() => undefined)
      this.pool = new Agent()
    } else if (used === this.filePool) {
      void this.filePool.close().catch(() => undefined)
      this.filePool = undefined
    }
  }

  private async backoff(attempt: number, backoff: { baseMs: number; capMs: number }, url: string, reason: string, hintedMs?: number) {
    const waitMs = Math.max(hintedMs ?? 0, backoffDelay(attempt, backoff, this.options.random))
    this.options.onEvent?.({ type: 'retry', attempt: attempt + 1, waitMs, url, reason })
    await this.sleep(waitMs)
  }

  /** Waits for queued requests to finish (used on shutdown). */
  async idle(): Promise<void> {
    await this.queue.onIdle()
  }

  clear() {
    this.queue.clear()
  }
}

/** The answer's time on the service's clock (its Date header), for a Retry-After given as a date. */
function serverNow(response: Response): number {
  const served = Date.parse(response.headers.get('date') ?? '')
  return Number.isNaN(served) ? Date.now() : served
}

/** Follows `next.page` until the last page, yielding every item. */
export async function* paginate<T>(fetchPage: (page: string | undefined) => Promise<{ items: T[]; next?: { page: string } }>): AsyncGenerator<T> {
  let page: string | undefined
  const seen = new Set<string>()
  do {
    const result = await fetchPage(page)
    yield* result.items
    page = result.next?.page
    if (page !== undefined) {
      // A service that hands back a token twice would loop forever; stop with a clear error instead.
      if (seen.has(page)) throw new Error('the service returned the same page token twice')
      seen.add(page)
    }
  } while (page !== undefined)
}

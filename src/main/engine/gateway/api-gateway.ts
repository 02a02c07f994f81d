import { GitBookAPI, GitBookAPIError } from '@gitbook/api'
import PQueue from 'p-queue'
import { backoffDelay, isRetryable, parseRetryAfter, readRateLimit, type RateLimitState } from './retry-policy'
import { checkTokenShape, redactSecrets, registerSecret } from './secrets'
import { readWhole } from './whole-response'

export interface GatewayOptions {
  /** API origin without `/v1`, e.g. `https://api.gitbook.com` or the local service's origin. */
  endpoint: string
  token: string
  concurrency?: number
  /** At most `intervalCap` requests per `intervalMs`. */
  intervalCap?: number
  intervalMs?: number
  timeoutMs?: number
  maxAttempts?: number
  backoff?: { baseMs: number; capMs: number }
  /** Injected for tests; defaults to the global fetch. */
  fetch?: typeof fetch
  sleep?: (ms: number) => Promise<void>
  random?: () => number
  onEvent?: (event: GatewayEvent) => void
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

/** Codes of a connection that broke under a request before any answer came: a stale keep-alive socket, typically. */
const BROKEN_BEFORE_ANSWER = new Set(['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'])

function classifyNetworkError(error: unknown): 'refused' | 'reset' | 'timeout' {
  const e = error as { name?: string; cause?: { code?: string } }
  if (e?.name === 'TimeoutError' || e?.name === 'AbortError') return 'timeout'
  const code = e?.cause?.code
  if (code === 'ECONNREFUSED' || code === 'ENOTFOUND' || code === 'EAI_AGAIN' || code === 'EHOSTUNREACH' || code === 'ENETUNREACH') return 'refused'
  return 'reset'
}

/**
 * The one door every HTTP call goes through: the official typed client over a fetch that queues
 * (p-queue: concurrency and interval cap), reads `X-RateLimit-*` on every response, waits out a 429 as
 * `Retry-After` says, retries 5xx and network errors with full-jitter backoff, and times out.
 */
export class ApiGateway {
  readonly client: GitBookAPI
  readonly rateLimit: RateLimitState = {}
  private readonly queue: PQueue
  private readonly fetchImpl: typeof fetch
  private readonly sleep: (ms: number) => Promise<void>
  private pausedUntil = 0

  constructor(private readonly options: GatewayOptions) {
    checkTokenShape(options.token)
    registerSecret(options.token)
    this.queue = new PQueue({
      concurrency: options.concurrency ?? 4,
      intervalCap: options.intervalCap ?? 50,
      interval: options.intervalMs ?? 1000,
    })
    this.fetchImpl = options.fetch ?? fetch
    this.sleep = options.sleep ?? defaultSleep
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

  /** Raw fetch through the queue, the body read in full within the attempt. */
  fetch(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    return this.queue.add(() => this.attempt(input, init ?? {}, true))
  }

  /**
   * A fetch through the queue whose body is left to the caller to stream (file downloads written to
   * disk as they arrive, never held whole). Statuses are handled as `fetch` handles them (429 waited
   * out, 5xx and refused connections retried); a body cut mid-read is the caller's to retry.
   */
  fetchStream(input: RequestInfo | URL, init?: RequestInit): Promise<Response> {
    return this.queue.add(() => this.attempt(input, init ?? {}, false))
  }

  /**
   * A JSON request whose body is already encoded (a content batch written straight into bytes, so its
   * files' base64 is not also held as strings); answered as the typed client answers: the parsed JSON,
   * or a GitBookAPIError carrying the service's message for any other status than 2xx.
   */
  async sendJson<T>(method: string, path: string, body: Uint8Array<ArrayBuffer>): Promise<T> {
    const response = await this.fetch(`${this.client.endpoint}/v1${path}`, {
      method,
      headers: { Authorization: `Bearer ${this.options.token}`, 'User-Agent': 'quire', 'Content-Type': 'application/json' },
      body,
    })
    if (!response.ok) {
      const answer = (await response.json().catch(() => undefined)) as { error?: { message?: string } } | undefined
      throw new GitBookAPIError(answer?.error?.message || response.statusText, response)
    }
    return (await response.json()) as T
  }

  private async attempt(input: RequestInfo | URL, init: RequestInit, whole: boolean): Promise<Response> {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    const method = (init.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const maxAttempts = this.options.maxAttempts ?? 5
    const backoff = this.options.backoff ?? { baseMs: 250, capMs: 30_000 }
    // Whether some attempt may have reached the service (anything but a refused connection).
    let reached = false
    for (let attempt = 0; ; attempt++) {
      const wait = this.pausedUntil - Date.now()
      if (wait > 0) await this.sleep(wait)
      let response: Response | undefined
      let failure: unknown
      try {
        response = await this.fetchImpl(input, { ...init, signal: AbortSignal.timeout(this.options.timeoutMs ?? 30_000) })
      } catch (error) {
        failure = error
      }
      if (response) {
        const state = readRateLimit(response.headers)
        Object.assign(this.rateLimit, state)
        if (state.remaining === 0 && state.resetAt) this.pause(state.resetAt)
        if (response.status === 429) {
          const waitMs = parseRetryAfter(response.headers.get('retry-after')) ?? backoffDelay(attempt, backoff, this.options.random)
          this.options.onEvent?.({ type: 'rate-limited', waitMs, url })
          this.pause(Date.now() + waitMs)
          if (attempt + 1 < maxAttempts) {
            await response.body?.cancel()
            continue
          }
          return response
        }
        if (response.status >= 500 && attempt + 1 < maxAttempts && isRetryable(method, { status: response.status })) {
          reached = true
          await response.body?.cancel()
          await this.backoff(attempt, backoff, url, `HTTP ${response.status}`)
          continue
        }
        if (!whole) return response
        try {
          return await readWhole(response)
        } catch (error) {
          failure = error
        }
      }
      const kind = response ? (classifyNetworkError(failure) === 'timeout' ? 'timeout' : 'reset') : classifyNetworkError(failure)
      if (kind !== 'refused') reached = true
      if (attempt + 1 >= maxAttempts || !isRetryable(method, { networkError: kind })) {
        const code = (failure as { cause?: { code?: string } } | undefined)?.cause?.code
        throw new ServiceUnreachableError(url, failure, !reached, !response && code !== undefined && BROKEN_BEFORE_ANSWER.has(code))
      }
      await this.backoff(attempt, backoff, url, kind)
    }
  }

  private async backoff(attempt: number, backoff: { baseMs: number; capMs: number }, url: string, reason: string) {
    const waitMs = backoffDelay(attempt, backoff, this.options.random)
    this.options.onEvent?.({ type: 'retry', attempt: attempt + 1, waitMs, url, reason })
    await this.sleep(waitMs)
  }

  private pause(untilMs: number) {
    if (untilMs <= this.pausedUntil) return
    this.pausedUntil = untilMs
    this.options.onEvent?.({ type: 'paused', untilMs })
  }

  /** Waits for queued requests to finish (used on shutdown). */
  async idle(): Promise<void> {
    await this.queue.onIdle()
  }

  clear() {
    this.queue.clear()
  }
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

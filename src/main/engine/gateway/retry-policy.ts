/** Exponential backoff with full jitter: sleep = random(0, min(cap, base * 2^attempt)). */
export function backoffDelay(attempt: number, options: { baseMs: number; capMs: number }, random: () => number = Math.random): number {
  return Math.floor(random() * Math.min(options.capMs, options.baseMs * 2 ** attempt))
}

/** `Retry-After` is either delta-seconds or an HTTP date; answers milliseconds from `now`, or undefined. */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

export interface RateLimitState {
  limit?: number
  remaining?: number
  /** Epoch milliseconds when the window resets. */
  resetAt?: number
}

/** Reads GitBook's `X-RateLimit-*` headers; absent headers leave fields undefined. */
export function readRateLimit(headers: Headers): RateLimitState {
  const num = (name: string) => {
    const raw = headers.get(name)
    if (raw === null || raw.trim() === '') return undefined
    const n = Number(raw)
    return Number.isFinite(n) ? n : undefined
  }
  const reset = num('x-ratelimit-reset')
  return { limit: num('x-ratelimit-limit'), remaining: num('x-ratelimit-remaining'), resetAt: reset === undefined ? undefined : reset * 1000 }
}

/**
 * Whether a failed attempt may be sent again without risking a duplicate write: any request nothing
 * reached the service with, and any other when it is idempotent (or `resendable`: a POST its caller
 * knows does the same sent twice).
 */
export function isRetryable(method: string, outcome: { status?: number; networkError?: 'refused' | 'reset' | 'timeout' }, resendable = false): boolean {
  const idempotent = resendable || ['GET', 'HEAD', 'OPTIONS', 'PUT', 'DELETE'].includes(method.toUpperCase())
  if (outcome.status === 429) return true
  if (outcome.networkError === 'refused') return true // nothing reached the server
  if (!idempotent) return false
  if (outcome.networkError) return true
  return outcome.status !== undefined && outcome.status >= 500
}

/** Codes of a connection that broke under a request before any answer came: a stale keep-alive socket, typically. */
const BROKEN_BEFORE_ANSWER = new Set(['EPIPE', 'ECONNRESET', 'UND_ERR_SOCKET'])

/** Whether a fetch failed because its connection broke before any answer byte (not a refusal, not a timeout). */
export function isBrokenBeforeAnswer(error: unknown): boolean {
  const code = (error as { cause?: { code?: string } } | undefined)?.cause?.code
  return code !== undefined && BROKEN_BEFORE_ANSWER.has(code)
}

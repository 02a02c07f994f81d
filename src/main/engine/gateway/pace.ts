import { readRateLimit, type RateLimitState } from './retry-policy'

/**
 * How fast the gateway sends: the service's own word sets the pace, not a fixed rate. `X-RateLimit-*`
 * tells how many requests the window has left; the requests still in flight are taken from that, and
 * once none are left new ones wait for the window's reset, so a client that knows the limit does not
 * meet its 429. A 429 (whose `Retry-After` the gateway waits out) halves the concurrency, at most once
 * per round of requests; answers that keep coming fine while work waits raise it by one per round, up to
 * the highest concurrency that met no 429 (forgotten after a long calm), within `maxConcurrency`.
 */

export interface PaceOptions {
  /** Requests in flight at the start. */
  concurrency: number
  /** Never more in flight than this. */
  maxConcurrency: number
  /** The longest the service's word (a `Retry-After`, a spent window) is waited out at once. */
  maxWaitMs: number
  onPause?: (untilMs: number) => void
}

/** When an attempt began, by rounds of concurrency change: a 429 lowers it once per round. */
export interface Ticket {
  round: number
}

/** Sent after a window's reset time, not on it: the service's clock and ours differ by some milliseconds. */
const RESET_MARGIN_MS = 50
/** Answers without a 429 after which a concurrency that once met one may be tried again. */
const CALM_ANSWERS = 200

export class Pace {
  concurrency: number
  /** The service's last word on its rate limit, as it said it (epoch milliseconds on our clock). */
  readonly rateLimit: RateLimitState = {}
  private ceiling: number
  private streak = 0
  private calm = 0
  private round = 0
  private inFlight = 0
  /** When the current window ends (our clock), and how many requests may still start before. */
  private windowEnd: number | undefined
  private budget: number | undefined
  private pausedUntil = 0
  /** Retries after a 429 waiting for a free place under the lowered concurrency. */
  private waiters: Array<() => void> = []

  constructor(private readonly options: PaceOptions) {
    this.concurrency = Math.max(1, Math.min(options.concurrency, options.maxConcurrency))
    this.ceiling = options.maxConcurrency
  }

  /** How long the next request waits before it starts (0: at once), within `maxWaitMs`. */
  delay(now = Date.now()): number {
    this.rollOver(now)
    let until = this.pausedUntil
    if (this.budget !== undefined && this.budget <= 0 && this.windowEnd !== undefined) until = Math.max(until, this.windowEnd + RESET_MARGIN_MS)
    return Math.min(this.options.maxWaitMs, Math.max(0, until - now))
  }

  /**
   * Resolves once fewer attempts are in flight than the concurrency allows. A request that met a 429
   * waits here before it is sent again: its queue slot stays taken while it retries, so without this the
   * requests already running would go on at the concurrency that met the 429 (and, with a `Retry-After:
   * 0`, spend their attempts within one answer's time).
   */
  async slot(): Promise<void> {
    while (this.inFlight >= this.concurrency) await new Promise<void>((resolve) => this.waiters.push(resolve))
  }

  /**
   * `counted`: the request is the service's to count (one to the API). A download from a file host
   * (a CDN) is not in the API's window, so it spends none of what the window has left.
   */
  start(counted = true): Ticket {
    this.inFlight++
    if (counted && this.budget !== undefined) this.budget--
    return { round: this.round }
  }

  /**
   * An attempt ended, with the service's answer (status and headers) or without one. `waiting`: whether
   * work is queued behind the requests in flight (only then is more concurrency worth trying).
   */
  end(ticket: Ticket, answer: { status: number; headers: Headers } | undefined, waiting: boolean): void {
    this.inFlight--
    if (answer) {
      this.observe(answer.headers)
      if (answer.status === 429) this.slowDown(ticket)
      else if (answer.status < 500) this.speedUp(waiting)
    }
    // Each woken retry checks again; those that still find no place wait for the next end.
    for (const wake of this.waiters.splice(0)) wake()
  }

  /** Every request waits until `untilMs` (a 429's `Retry-After`), within `maxWaitMs`. */
  pause(untilMs: number) {
    const bounded = Math.min(untilMs, Date.now() + this.options.maxWaitMs)
    if (bounded <= this.pausedUntil) return
    this.pausedUntil = bounded
    this.options.onPause?.(bounded)
  }

  private observe(headers: Headers) {
    const state = readRateLimit(headers)
    if (state.limit !== undefined) this.rateLimit.limit = state.limit
    if (state.remaining === undefined || state.resetAt === undefined) return
    // The reset is the service's clock: moved onto ours by the answer's Date when the two differ by seconds.
    const served = Date.parse(headers.get('date') ?? '')
    const skew = Number.isNaN(served) ? 0 : served - Date.now()
    const resetAt = Math.abs(skew) > 2000 ? state.resetAt - skew : state.resetAt
    const sameWindow = this.windowEnd !== undefined && Math.abs(resetAt - this.windowEnd) < 1000
    // Answers of one window can arrive out of order: the lowest count left is the latest.
    const remaining = sameWindow && this.rateLimit.remaining !== undefined ? Math.min(this.rateLimit.remaining, state.remaining) : state.remaining
    Object.assign(this.rateLimit, { remaining, resetAt: state.resetAt })
    this.windowEnd = resetAt
    // Requests still in flight may not be counted in it yet: taken as not counted, the safe side.
    this.budget = remaining - this.inFlight
    if (this.budget <= 0 && resetAt > Date.now()) this.options.onPause?.(resetAt)
  }

  /** Past the window's end its whole limit is there again, less what is in flight. */
  private rollOver(now: number) {
    if (this.windowEnd === undefined || now < this.windowEnd) return
    this.windowEnd = undefined
    this.rateLimit.remaining = undefined
    this.budget = this.rateLimit.limit === undefined ? undefined : this.rateLimit.limit - this.inFlight
  }

  private slowDown(ticket: Ticket) {
    this.streak = 0
    this.calm = 0
    // The other 429s of the same round are answers to the same excess.
    if (ticket.round !== this.round) return
    this.round++
    this.ceiling = Math.max(1, this.concurrency - 1)
    this.concurrency = Math.max(1, Math.floor(this.concurrency / 2))
  }

  private speedUp(waiting: boolean) {
    if (++this.calm >= CALM_ANSWERS) this.ceiling = this.options.maxConcurrency
    if (!waiting || this.concurrency >= this.ceiling) return
    if (++this.streak < this.concurrency) return
    this.streak = 0
    this.round++
    this.concurrency++
  }
}

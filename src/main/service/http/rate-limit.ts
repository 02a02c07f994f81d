/**
 * A fixed window per token (a minute unless given), reported with GitBook's X-RateLimit-* headers.
 * A window begins on the whole second of its first request, so it ends on a whole second too: the
 * reset the headers give (epoch seconds) is the window's very end. (A window begun mid-second ended up
 * to a second before the reset it gave, and a client that waits for that reset, as it should, lost up
 * to a second a window: with one-second windows, half the rate.)
 */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>()

  constructor(
    readonly perWindow: number,
    private readonly now: () => number = Date.now,
    private readonly windowMs = 60_000,
  ) {}

  take(key: string): { allowed: boolean; headers: Record<string, string> } {
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || now - window.start >= this.windowMs) {
      window = { start: now - (now % 1000), used: 0 }
      this.windows.set(key, window)
    }
    const allowed = window.used < this.perWindow
    if (allowed) window.used++
    const resetAt = window.start + this.windowMs
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(this.perWindow),
      'X-RateLimit-Remaining': String(Math.max(0, this.perWindow - window.used)),
      'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
    }
    if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((resetAt - now) / 1000)))
    return { allowed, headers }
  }
}

/** `--rate-limit N/MIN` or `N/SEC`: requests per window, and the window's length. */
export interface RateLimit {
  requests: number
  windowMs: number
}

export function parseRateLimit(text: string): RateLimit {
  const match = /^(\d+)(?:\/(min|minute|m|s|sec|second))?$/i.exec(text.trim())
  if (!match || Number(match[1]) < 1) throw new Error(`--rate-limit expects N/MIN or N/SEC with N >= 1, got "${text}"`)
  const perSecond = match[2] !== undefined && /^s/i.test(match[2])
  return { requests: Number(match[1]), windowMs: perSecond ? 1000 : 60_000 }
}

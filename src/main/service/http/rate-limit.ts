/** A fixed one-minute window per token, reported with GitBook's X-RateLimit-* headers. */
export class RateLimiter {
  private readonly windows = new Map<string, { start: number; used: number }>()

  constructor(
    readonly perMinute: number,
    private readonly now: () => number = Date.now,
  ) {}

  take(key: string): { allowed: boolean; headers: Record<string, string> } {
    const now = this.now()
    let window = this.windows.get(key)
    if (!window || now - window.start >= 60_000) {
      window = { start: now, used: 0 }
      this.windows.set(key, window)
    }
    const allowed = window.used < this.perMinute
    if (allowed) window.used++
    const resetAt = window.start + 60_000
    const headers: Record<string, string> = {
      'X-RateLimit-Limit': String(this.perMinute),
      'X-RateLimit-Remaining': String(Math.max(0, this.perMinute - window.used)),
      'X-RateLimit-Reset': String(Math.ceil(resetAt / 1000)),
    }
    if (!allowed) headers['Retry-After'] = String(Math.max(1, Math.ceil((resetAt - now) / 1000)))
    return { allowed, headers }
  }
}

export function parseRateLimit(text: string): number {
  const match = /^(\d+)(?:\/(?:min|minute|m))?$/i.exec(text.trim())
  if (!match || Number(match[1]) < 1) throw new Error(`--rate-limit expects N/MIN with N >= 1, got "${text}"`)
  return Number(match[1])
}

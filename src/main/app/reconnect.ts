/**
 * Leaves "offline" by itself: while a selected space is offline, the service is probed (one cheap
 * authenticated read) with a growing delay, and the first answer starts a cycle, so the window shows
 * the truth again without the writer pressing Sync now. The timed interval alone would take minutes.
 */
export interface ReconnectOptions {
  /** Whether some selected space is offline now. */
  offline: () => boolean
  /** True when the service answered (any HTTP answer: a refused token is not "offline"). */
  probe: () => Promise<boolean>
  /** The service answers again: run a cycle. */
  reconnected: () => void
  /** First wait after going offline; doubled after each failed probe up to maxDelayMs. */
  firstDelayMs?: number
  maxDelayMs?: number
}

export const RECONNECT_FIRST_MS = 2_000
export const RECONNECT_MAX_MS = 30_000

export class Reconnect {
  private timer: NodeJS.Timeout | undefined
  private delay: number
  private probing = false
  private stopped = false

  constructor(private readonly o: ReconnectOptions) {
    this.delay = o.firstDelayMs ?? RECONNECT_FIRST_MS
  }

  /** Called on every state change: arms the probe when offline, disarms it otherwise. */
  check() {
    if (this.stopped || this.probing) return
    if (!this.o.offline()) {
      this.disarm()
      this.delay = this.o.firstDelayMs ?? RECONNECT_FIRST_MS
      return
    }
    if (this.timer) return
    this.timer = setTimeout(() => void this.tryOnce(), this.delay)
    this.timer.unref?.()
  }

  stop() {
    this.stopped = true
    this.disarm()
  }

  private disarm() {
    clearTimeout(this.timer)
    this.timer = undefined
  }

  private async tryOnce() {
    this.timer = undefined
    if (this.stopped || !this.o.offline()) return
    this.probing = true
    let answered = false
    try {
      answered = await this.o.probe()
    } catch {
      answered = false
    } finally {
      this.probing = false
    }
    if (this.stopped) return
    if (answered) {
      this.delay = this.o.firstDelayMs ?? RECONNECT_FIRST_MS
      this.o.reconnected()
      return
    }
    this.delay = Math.min(this.delay * 2, this.o.maxDelayMs ?? RECONNECT_MAX_MS)
    this.check()
  }
}

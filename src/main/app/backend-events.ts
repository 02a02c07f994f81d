import type { ActivityEntry, QuireEvent, StatusSnapshot } from '../../shared/contract'
import { ActivityLog } from './activity-log'

const STATUS_THROTTLE_MS = 100

/**
 * What the backend tells its front ends: activity entries (logged, kept) and status snapshots. What the
 * user did (signing in or out, pausing, settings) sends the status at once; the engine's events (states,
 * progress ticks) send it at most once per STATUS_THROTTLE_MS, so a pass over thousands of pages does not
 * flood the renderer, and a pass shorter than that shows no progress bar at all.
 */
export class BackendEvents {
  private readonly listeners = new Set<(event: QuireEvent) => void>()
  private readonly activity: ActivityLog
  private statusTimer: NodeJS.Timeout | undefined
  private closed = false

  constructor(
    logFile: string | undefined,
    private readonly snapshot: () => StatusSnapshot,
    now?: () => Date,
  ) {
    this.activity = new ActivityLog(logFile, now)
  }

  on(listener: (event: QuireEvent) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  emit(event: QuireEvent) {
    for (const listener of this.listeners) {
      try {
        listener(event)
      } catch {
        // One broken listener (a closed SSE stream) must not stop the others.
      }
    }
  }

  log(level: ActivityEntry['level'], message: string, spaceId?: string) {
    this.emit({ type: 'activity', entry: this.activity.add(level, message, spaceId) })
  }

  activityEntries(): ActivityEntry[] {
    return this.activity.list()
  }

  /** Status now (state changes). */
  statusNow() {
    clearTimeout(this.statusTimer)
    this.statusTimer = undefined
    if (this.closed) return
    this.emit({ type: 'status', status: this.snapshot() })
  }

  /** Status soon (progress ticks). */
  statusSoon() {
    if (this.statusTimer || this.closed) return
    this.statusTimer = setTimeout(() => this.statusNow(), STATUS_THROTTLE_MS)
  }

  close() {
    this.closed = true
    clearTimeout(this.statusTimer)
    this.listeners.clear()
  }
}

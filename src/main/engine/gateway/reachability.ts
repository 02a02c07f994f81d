/**
 * Whether the service answers, as the gateway last saw it: one fact for every request sent through it.
 * An attempt that got no answer at all (refused, timed out, the connection broken twice) marks the service
 * unreachable at once, before its retries are waited out; the next answer of any request, any status,
 * clears it. A session reads it so every space says Offline together, a push retrying included.
 */
export class Reachability {
  /** null until the first outcome: the first answer is news too (a reason kept from an earlier run is over). */
  private reason: string | undefined | null = null
  private readonly listeners = new Set<(unreachable: string | undefined) => void>()

  /** Why the service cannot be reached now; undefined while it answers (or before any request). */
  get unreachable(): string | undefined {
    return this.reason ?? undefined
  }

  /** Called on every change; returns the unsubscribe. */
  observe(listener: (unreachable: string | undefined) => void): () => void {
    this.listeners.add(listener)
    return () => this.listeners.delete(listener)
  }

  answered() {
    this.set(undefined)
  }

  failed(reason: string) {
    // The first reason stays while the service stays away: a state that says the same thing emits nothing.
    if (typeof this.reason !== 'string') this.set(reason)
  }

  private set(reason: string | undefined) {
    if (reason === this.reason) return
    this.reason = reason
    for (const listener of [...this.listeners]) {
      try {
        listener(reason)
      } catch {
        // A listener's failure is not the gateway's.
      }
    }
  }
}

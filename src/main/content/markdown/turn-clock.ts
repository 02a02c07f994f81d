/**
 * When a loop that runs on an event loop's turn has held it long enough and should give it back (issue 16:
 * no request waits long beside a large page's links). By time rather than by count of items, so a turn
 * stays a few milliseconds whatever the items cost and however fast the machine is; the time counts from
 * the first item after each pause, never the pause itself.
 */
export class TurnClock {
  private due = 0
  private fresh = true
  private count = 0

  /** `sliceMs`: time a turn may take; `every`: items between two looks at the clock (it is not free). */
  constructor(
    private readonly sliceMs = 4,
    private readonly every = 1,
  ) {}

  /** Counts one item done; true when the turn's time is up (the caller pauses, and the next slice starts after). */
  tick(): boolean {
    if (this.fresh) {
      this.due = performance.now() + this.sliceMs
      this.fresh = false
    }
    if (++this.count % this.every !== 0 || performance.now() < this.due) return false
    this.fresh = true
    return true
  }
}

/**
 * Gives the event loop back for one turn: what the caller of a `TurnClock` awaits when `tick` says the
 * turn's time is up (timers, I/O and other requests run, then the loop continues).
 */
export const giveBackTurn = (): Promise<void> => new Promise<void>((resolve) => setImmediate(resolve))

/**
 * Pushes a session plans for later, one per space: a removal waits for the quiet interval (an editor's
 * backup-save puts the file back within it), and its space is pushed again when the interval is over.
 */
export class LaterPushes {
  private readonly planned = new Map<string, { timer: NodeJS.Timeout; done: Promise<void>; finish: () => void }>()

  constructor(private readonly now: () => number) {}

  get size(): number {
    return this.planned.size
  }

  /** Runs `push` at `at` (ms since the epoch), replacing what was planned for the space; undefined: nothing. */
  schedule(spaceId: string, at: number | undefined, push: () => Promise<void>) {
    this.cancel(spaceId)
    if (at === undefined) return
    let finish!: () => void
    const done = new Promise<void>((resolve) => (finish = resolve))
    const timer = setTimeout(() => {
      this.planned.delete(spaceId)
      void push().then(finish, finish)
    }, Math.max(0, at - this.now()))
    timer.unref?.()
    this.planned.set(spaceId, { timer, done, finish })
  }

  cancel(spaceId: string) {
    const planned = this.planned.get(spaceId)
    if (!planned) return
    clearTimeout(planned.timer)
    this.planned.delete(spaceId)
    planned.finish()
  }

  cancelAll() {
    for (const spaceId of [...this.planned.keys()]) this.cancel(spaceId)
  }

  /** Resolves when the first of the planned pushes ran (or was cancelled). */
  next(): Promise<void> {
    return Promise.race([...this.planned.values()].map((p) => p.done))
  }
}

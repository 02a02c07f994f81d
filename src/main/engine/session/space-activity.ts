import type { SyncProgressEvent } from '../sync/sync-engine'

/** A running pass re-derives its space's state (for the progress shown) at most this often. */
const STEP_STATE_MS = 100

/** What runs for each space now (a push, a pass's steps), for the state the session derives. */
export class SpaceActivity {
  private readonly running = new Map<string, { done: number; total: number }>()
  /** When each space's state was last derived during a pass (steps are many; a state is a few queries). */
  private readonly stepRefreshedAt = new Map<string, number>()

  of(spaceId: string): { done: number; total: number } | undefined {
    return this.running.get(spaceId)
  }

  begin(spaceId: string) {
    this.running.set(spaceId, { done: 0, total: 0 })
  }

  end(spaceId: string) {
    this.running.delete(spaceId)
  }

  /** The pass is over, whatever it reported. */
  clear() {
    this.running.clear()
  }

  /** A pass's progress; true when the space's state is to be derived again now. */
  progress(event: SyncProgressEvent): boolean {
    if (event.type === 'space-started') this.running.set(event.spaceId, { done: 0, total: 0 })
    else if (event.type === 'space-planned') this.running.set(event.spaceId, { done: 0, total: event.total })
    else if (event.type === 'step') this.running.set(event.spaceId, { done: event.step.index, total: event.step.total })
    else this.running.delete(event.spaceId)
    if (event.type === 'step' && Date.now() - (this.stepRefreshedAt.get(event.spaceId) ?? 0) < STEP_STATE_MS) return false
    this.stepRefreshedAt.set(event.spaceId, Date.now())
    return true
  }
}

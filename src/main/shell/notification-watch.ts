import type { QuireApi, QuireEvent } from '../../shared/contract'
import { notificationsFor, type DesktopNotification, type WatchSnapshot } from './notification-rules'

export interface WatchDeps {
  api: Pick<QuireApi, 'getSession' | 'getStatus' | 'listChangeRequests' | 'listComments' | 'getSettings'>
  show(notification: DesktopNotification): void
  log(message: string): void
}

// Keys of notifications already shown, so a conflict that flickers between two looks is told once.
const MAX_REMEMBERED = 500

/**
 * Looks at the backend now and then (and soon after an event that may be news), turns the difference
 * between two looks into notifications with the pure rules, and shows those the user has not seen yet,
 * unless they turned notifications off in the settings.
 */
export class NotificationWatch {
  private previous: WatchSnapshot | undefined
  private events: QuireEvent[] = []
  private readonly shown: string[] = []
  private running: Promise<void> | undefined
  private again = false
  private soon: ReturnType<typeof setTimeout> | undefined
  private disposed = false

  constructor(private readonly deps: WatchDeps) {}

  /** Events between two looks are part of the rules' input (a conflict resolved before the next look). */
  record(event: QuireEvent) {
    this.events.push(event)
    if (this.events.length > 200) this.events.splice(0, this.events.length - 200)
    const urgent = (event.type === 'session' && event.session.authError !== undefined) || (event.type === 'status' && event.status.conflicts.length > 0) || event.type === 'review'
    if (urgent) this.lookSoon()
  }

  lookSoon(delayMs = 1000) {
    if (this.soon) return
    this.soon = setTimeout(() => {
      this.soon = undefined
      void this.look()
    }, delayMs)
    this.soon.unref?.()
  }

  /** One look; overlapping requests are folded into one more look after the current one. */
  look(): Promise<void> {
    if (this.disposed) return Promise.resolve()
    if (this.running) {
      this.again = true
      return this.running
    }
    this.running = this.lookOnce().finally(() => {
      this.running = undefined
      if (this.again) {
        this.again = false
        void this.look()
      }
    })
    return this.running
  }

  dispose() {
    this.disposed = true
    if (this.soon) clearTimeout(this.soon)
  }

  private async lookOnce() {
    const events = this.events
    this.events = []
    let next: WatchSnapshot
    let enabled: boolean
    try {
      ;[next, enabled] = await Promise.all([this.snapshot(), this.deps.api.getSettings().then((s) => s.notifications)])
    } catch (error) {
      if (this.disposed) return // the app is quitting: the backend going away is no news
      // Nothing is lost: the events are looked at again with the next look.
      this.events = [...events, ...this.events]
      this.deps.log(`notifications: could not look at the backend: ${error instanceof Error ? error.message : String(error)}`)
      return
    }
    if (this.disposed) return
    const news = notificationsFor(this.previous, next, events).filter((n) => !this.shown.includes(n.key))
    this.previous = next
    for (const notification of news) {
      this.shown.push(notification.key)
      if (enabled) this.deps.show(notification)
    }
    if (this.shown.length > MAX_REMEMBERED) this.shown.splice(0, this.shown.length - MAX_REMEMBERED)
  }

  private async snapshot(): Promise<WatchSnapshot> {
    const { api } = this.deps
    const [session, status] = await Promise.all([api.getSession(), api.getStatus()])
    if (!session.signedIn) return { session, status, changeRequests: [], threads: [] }
    const spaces = status.spaces.filter((s) => s.synced)
    const [changeRequests, ...threadLists] = await Promise.all([
      api.listChangeRequests({ mine: true }),
      // A space whose comments cannot be read this time is left out: the rules then see its threads as
      // unknown rather than as emptied, and announce nothing for it.
      ...spaces.map((space) =>
        api.listComments({ spaceId: space.id }).then(
          (threads) => threads.map((thread) => ({ spaceId: space.id, spaceTitle: space.title, thread })),
          () => [],
        ),
      ),
    ])
    return { session, status, changeRequests, threads: threadLists.flat() }
  }
}

import type { Notification, NotificationConstructorOptions } from 'electron'
import type { DesktopNotification } from './notification-rules'

export interface NotificationFactory {
  isSupported(): boolean
  create(options: NotificationConstructorOptions): Pick<Notification, 'show' | 'on'>
}

/** Shows the rules' notifications as OS notifications; a click goes where the notification says. */
export class DesktopNotifier {
  // A notification object that is garbage-collected loses its click handler: keep each until it is done.
  private readonly live = new Set<Pick<Notification, 'show' | 'on'>>()

  constructor(
    private readonly factory: NotificationFactory,
    private readonly open: (target: DesktopNotification['open']) => void,
  ) {}

  show(notification: DesktopNotification) {
    if (!this.factory.isSupported()) return
    const shown = this.factory.create({ title: notification.title, body: notification.body, silent: false })
    this.live.add(shown)
    shown.on('click', () => {
      this.live.delete(shown)
      this.open(notification.open)
    })
    shown.on('close', () => this.live.delete(shown))
    shown.show()
  }

  get pending(): number {
    return this.live.size
  }
}

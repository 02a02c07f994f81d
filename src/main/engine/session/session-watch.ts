import type { SpacePusher } from '../push/space-pusher'
import { WorkspaceWatcher, type WatchedSpace } from '../watch/watcher'

export interface SessionWatchOptions {
  debounceMs?: number
  renameWindowMs?: number
  usePolling?: boolean
  pusher: (spaceId: string) => SpacePusher | undefined
  /** The session still runs (a watcher started after a stop is not taken). */
  running: () => boolean
  /** A burst of a space's files settled (WorkspaceWatcherOptions.onChange). */
  changed: (space: WatchedSpace, paths: string[], whole: boolean) => void
  warn: (message: string) => void
}

/**
 * The session's one watcher over its space folders, and what it vouches for: while it runs without an
 * error, each space's pusher is told its folder is watched (a plan may then stand, a scan may look at the
 * reported paths alone); before it runs, after an error and once closed, nothing vouches for the folders.
 */
export class SessionWatch {
  private watcher?: WorkspaceWatcher
  private key = ''

  constructor(private readonly o: SessionWatchOptions) {}

  /** Whether a watcher runs (what it reports keeps the link pre-flight). */
  get watching(): boolean {
    return this.watcher !== undefined
  }

  /** (Re)starts the watcher when the set of space folders changed (a first pass gives new spaces folders). */
  async watch(spaces: WatchedSpace[]): Promise<void> {
    const key = spaces.map((s) => `${s.spaceId}=${s.folder}`).join('\n')
    if (key === this.key && this.watcher) return
    await this.watcher?.close()
    this.key = key
    this.watcher = undefined
    // Until the new watcher runs, nothing vouches for the folders: every push plans.
    this.vouch(spaces, false)
    if (spaces.length === 0) return
    let failed = false
    const watcher = new WorkspaceWatcher({
      spaces,
      debounceMs: this.o.debounceMs,
      renameWindowMs: this.o.renameWindowMs,
      usePolling: this.o.usePolling,
      onChange: (spaceId, paths, whole) => {
        const space = spaces.find((s) => s.spaceId === spaceId)
        if (space) this.o.changed(space, paths, whole)
      },
      onError: (error) => {
        // Changes may have gone unseen: pushes plan again from the folder itself, every time.
        failed = true
        this.vouch(spaces, false)
        this.o.warn(`watcher: ${error instanceof Error ? error.message : String(error)}`)
      },
    })
    this.watcher = watcher
    await watcher.start()
    if (this.watcher === watcher && this.o.running() && !failed) this.vouch(spaces, true)
  }

  /** Stops watching; `spaces` are no longer vouched for. The next `watch` starts a watcher whatever the folders. */
  async close(spaces: readonly WatchedSpace[] = []): Promise<void> {
    const watcher = this.watcher
    this.watcher = undefined
    this.key = ''
    await watcher?.close()
    this.vouch(spaces, false)
  }

  private vouch(spaces: readonly WatchedSpace[], watched: boolean) {
    for (const space of spaces) this.o.pusher(space.spaceId)?.setWatched(watched)
  }
}

import { watch, type ChokidarOptions, type FSWatcher } from 'chokidar'
import type { FileEventSource, FileEventSourceFactory, FileEventSourceOptions } from './event-source'

export interface ChokidarSourceSettings {
  usePolling?: boolean
  /** Overrides of the options below, for measuring them (bench:watch). */
  overrides?: Partial<ChokidarOptions>
}

/**
 * chokidar over the space folders. On Linux and Windows it holds one `fs.watch` handle per file as well
 * as per folder (about 7 KB of memory each), which is what makes it heavy on large workspaces; see
 * bench/watch.ts. `atomic` folds the delete-then-create of editors that save through a temporary file
 * and a rename into one change.
 */
export function chokidarSource(settings: ChokidarSourceSettings = {}): FileEventSourceFactory {
  return (options) => new ChokidarSource(options, settings)
}

class ChokidarSource implements FileEventSource {
  private watcher?: FSWatcher

  constructor(
    private readonly options: FileEventSourceOptions,
    private readonly settings: ChokidarSourceSettings,
  ) {}

  start(): Promise<void> {
    const { options } = this
    const watcher = watch([...options.folders], {
      ignoreInitial: true,
      persistent: true,
      usePolling: this.settings.usePolling ?? false,
      atomic: true,
      ignored: (p: string) => options.ignored(p),
      ...this.settings.overrides,
    })
    this.watcher = watcher
    watcher.on('all', (event, p) => {
      if (event === 'add' || event === 'change') options.onEvent(event, p)
      else if (event === 'unlink' || event === 'unlinkDir') options.onEvent('unlink', p)
    })
    watcher.on('error', (error) => options.onError(error))
    return new Promise((resolve) => watcher.once('ready', () => resolve()))
  }

  async close(): Promise<void> {
    await this.watcher?.close()
    this.watcher = undefined
  }
}

import { chokidarSource } from './chokidar-source'
import type { FileEventSource, FileEventSourceFactory } from './event-source'
import { parcelSource, type ParcelWatcherModule } from './parcel-source'

export interface DefaultSourceSettings {
  /** Poll instead of native events (network drives, some containers): chokidar's polling. */
  usePolling?: boolean
  /** Loads @parcel/watcher (tests pass one that fails, to see the fallback). */
  loadParcel?: () => Promise<ParcelWatcherModule>
}

/**
 * The session's file watching: @parcel/watcher (native, small at any size: see parcel-source.ts and
 * bench/watch.ts), or chokidar when polling is asked for (parcel cannot poll) or when the native module
 * cannot be loaded here (no prebuilt binary for the platform, a broken install), said once through
 * onError so that it reaches the log.
 */
export function defaultSource(settings: DefaultSourceSettings = {}): FileEventSourceFactory {
  if (settings.usePolling) return chokidarSource({ usePolling: true })
  const load = settings.loadParcel ?? loadParcel
  return (options) => {
    let inner: FileEventSource | undefined
    let closed = false
    return {
      async start() {
        let factory: FileEventSourceFactory
        try {
          factory = parcelSource(await load())
        } catch (error) {
          const reason = error instanceof Error ? error.message.split('\n')[0] : String(error)
          options.onError(new Error(`the native file watcher (@parcel/watcher) could not be loaded (${reason}); watching with chokidar, which needs far more memory on large workspaces`))
          factory = chokidarSource()
        }
        if (closed) return
        inner = factory(options)
        await inner.start()
      },
      async close() {
        closed = true
        await inner?.close()
      },
    }
  }
}

export async function loadParcel(): Promise<ParcelWatcherModule> {
  // A CommonJS module: its exports come as the namespace's default (and as named exports when Node detects them).
  const loaded = (await import('@parcel/watcher')) as unknown as Partial<ParcelWatcherModule> & { default?: ParcelWatcherModule }
  const parcel = loaded.default ?? loaded
  if (typeof parcel.subscribe !== 'function') throw new Error('@parcel/watcher has no subscribe()')
  return parcel as ParcelWatcherModule
}

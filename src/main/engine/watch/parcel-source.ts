import type { FileEventKind, FileEventSource, FileEventSourceFactory, FileEventSourceOptions } from './event-source'

/** The part of `@parcel/watcher` used here (it is not a dependency: pass the loaded module in). */
export interface ParcelWatcherModule {
  subscribe(
    dir: string,
    fn: (error: Error | null, events: { path: string; type: 'create' | 'update' | 'delete' }[]) => unknown,
    options?: { ignore?: string[] },
  ): Promise<{ unsubscribe(): Promise<void> }>
}

const KIND: Record<'create' | 'update' | 'delete', FileEventKind> = { create: 'add', update: 'change', delete: 'unlink' }

/**
 * `@parcel/watcher` (VS Code's watcher) over the space folders: native, one inotify watch per folder
 * on Linux (FSEvents on macOS, ReadDirectoryChangesW on Windows), and events batched in native code,
 * so the JavaScript heap holds nothing per file. Version control folders are not watched at all; the
 * other ignore rules are applied to events.
 *
 * Not the session's source yet: on Linux, a folder created with subfolders at once (`mkdir -p`, a copy,
 * an unzip) has only its top watched and a file written into it right away can go unreported
 * (parcel-bundler/watcher#97 and #243, both open; bench:watch's "new folder" check failed once in four
 * runs). Using it needs a walk of each new folder and a resubscription when it has subfolders.
 */
export function parcelSource(parcel: ParcelWatcherModule): FileEventSourceFactory {
  return (options) => new ParcelSource(parcel, options)
}

class ParcelSource implements FileEventSource {
  private subscriptions: { unsubscribe(): Promise<void> }[] = []

  constructor(
    private readonly parcel: ParcelWatcherModule,
    private readonly options: FileEventSourceOptions,
  ) {}

  async start(): Promise<void> {
    const { options } = this
    for (const folder of options.folders) {
      const subscription = await this.parcel.subscribe(
        folder,
        (error, events) => {
          if (error) options.onError(error)
          for (const event of events) if (!options.ignored(event.path)) options.onEvent(KIND[event.type], event.path)
        },
        { ignore: ['**/.git', '**/.git/**'] },
      )
      this.subscriptions.push(subscription)
    }
  }

  async close(): Promise<void> {
    const subscriptions = this.subscriptions
    this.subscriptions = []
    await Promise.all(subscriptions.map((s) => s.unsubscribe()))
  }
}

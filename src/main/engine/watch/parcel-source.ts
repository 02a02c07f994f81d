import fs from 'node:fs'
import path from 'node:path'
import type { FileEventKind, FileEventSource, FileEventSourceFactory, FileEventSourceOptions } from './event-source'

export interface ParcelEvent {
  path: string
  type: 'create' | 'update' | 'delete'
}

export interface ParcelSubscription {
  unsubscribe(): Promise<void>
}

/** The part of `@parcel/watcher` used here (passed in, so that tests can drive a stand-in). */
export interface ParcelWatcherModule {
  subscribe(dir: string, fn: (error: Error | null, events: ParcelEvent[]) => unknown, options?: { ignore?: string[] }): Promise<ParcelSubscription>
}

const KIND: Record<ParcelEvent['type'], FileEventKind> = { create: 'add', update: 'change', delete: 'unlink' }

/** Version control folders are not watched at all; the other ignore rules are applied to events. */
const IGNORE = ['**/.git', '**/.git/**']

/**
 * How long a creation the native watcher reported is remembered: a walk of a new folder that finds the
 * file within that time does not report it again.
 */
const REPORTED_CREATE_TTL_MS = 10_000

/**
 * `@parcel/watcher` (VS Code's watcher) over the space folders: native, one inotify watch per folder on
 * Linux (FSEvents on macOS, ReadDirectoryChangesW on Windows) and its tree held in native code, so the
 * JavaScript heap holds nothing per file (bench/watch.ts, 100,000 files: RSS +35 MB, ready in 2.5 s;
 * chokidar, with an fs.watch handle per file, +657 MB and 36 s).
 *
 * Its Linux backend has a hole this source fills (parcel-bundler/watcher#97, #243): when a folder appears
 * (`mkdir -p`, a copy, an unzip, a folder moved in), it adds a watch on that folder only, when it reads
 * the creation. Files written into it before that, and every subfolder that already exists then, are
 * never seen, nor anything later written into those subfolders. So on the creation of a folder this
 * source walks it and reports every file found; when the folder already holds subfolders, it first
 * subscribes to the folder itself (a subscription of its own, with its own full scan), so that what
 * is written there later is reported too, then walks it (what was written while subscribing). That
 * subscription ends when the folder is deleted or moved away (a folder moved back in is new again).
 * A file the native watcher already reported is not reported again by the walk; the native watcher's
 * own events are never dropped (a repeat reaches the workspace watcher's per-file debounce, which folds
 * it into the same change).
 */
export function parcelSource(parcel: ParcelWatcherModule): FileEventSourceFactory {
  return (options) => new ParcelSource(parcel, options)
}

class ParcelSource implements FileEventSource {
  /** By folder: the space folders' subscriptions and those of new folders that came with subfolders. */
  private readonly subscriptions = new Map<string, Promise<ParcelSubscription | undefined>>()
  /** Subscriptions being ended, by folder: a new one for the same folder waits for it. */
  private readonly ending = new Map<string, Promise<void>>()
  private readonly reportedCreates = new Map<string, number>()
  private readonly spaceFolders: ReadonlySet<string>
  private closed = false

  constructor(
    private readonly parcel: ParcelWatcherModule,
    private readonly options: FileEventSourceOptions,
  ) {
    this.spaceFolders = new Set(options.folders)
  }

  async start(): Promise<void> {
    for (const folder of this.options.folders) this.subscriptions.set(folder, this.subscribe(folder))
    await Promise.all(this.subscriptions.values())
  }

  async close(): Promise<void> {
    this.closed = true
    const subscriptions = [...this.subscriptions.values()]
    this.subscriptions.clear()
    await Promise.all([...subscriptions.map(async (s) => (await s)?.unsubscribe()), ...this.ending.values()])
  }

  /** Resolves with undefined when the folder cannot be watched (said through onError), as chokidar does. */
  private async subscribe(folder: string): Promise<ParcelSubscription | undefined> {
    await this.ending.get(folder)
    if (this.closed) return undefined
    try {
      const subscription = await this.parcel.subscribe(folder, (error, events) => this.received(error, events), { ignore: IGNORE })
      if (this.closed) {
        await subscription.unsubscribe()
        return undefined
      }
      return subscription
    } catch (error) {
      this.options.onError(error)
      return undefined
    }
  }

  private received(error: Error | null, events: ParcelEvent[]) {
    if (this.closed) return
    if (error) this.options.onError(error)
    for (const event of events) {
      if (this.options.ignored(event.path)) continue
      this.options.onEvent(KIND[event.type], event.path)
      if (event.type === 'create') {
        this.rememberCreate(event.path)
        void this.created(event.path)
      } else if (event.type === 'delete') {
        this.reportedCreates.delete(event.path)
        this.endSubscriptionsUnder(event.path)
      }
    }
  }

  private rememberCreate(full: string) {
    const now = Date.now()
    this.reportedCreates.delete(full)
    this.reportedCreates.set(full, now)
    // Oldest first (insertion order): drop those past their time.
    for (const [old, at] of this.reportedCreates) {
      if (now - at < REPORTED_CREATE_TTL_MS) break
      this.reportedCreates.delete(old)
    }
  }

  private wasReported(full: string) {
    const at = this.reportedCreates.get(full)
    return at !== undefined && Date.now() - at < REPORTED_CREATE_TTL_MS
  }

  /** A path appeared: when it is a folder, what it holds is reported (see the class comment). */
  private async created(full: string) {
    try {
      const stat = await fs.promises.lstat(full)
      if (!stat.isDirectory() || this.closed) return
      let tree = await walkTree(full, this.options.ignored)
      if (tree.folders.length > 0 && !this.subscriptions.has(full)) {
        const subscription = this.subscribe(full)
        this.subscriptions.set(full, subscription)
        await subscription
        tree = await walkTree(full, this.options.ignored)
      }
      if (this.closed) return
      for (const file of tree.files) if (!this.wasReported(file)) this.options.onEvent('add', file)
    } catch (error) {
      // Gone again before it could be read: its deletion is reported by the native watcher.
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT' && (error as NodeJS.ErrnoException).code !== 'ENOTDIR') this.options.onError(error)
    }
  }

  /** A folder deleted or moved away takes the new-folder subscriptions at or under it along. */
  private endSubscriptionsUnder(full: string) {
    for (const [folder, subscription] of this.subscriptions) {
      if (this.spaceFolders.has(folder)) continue
      if (folder !== full && !folder.startsWith(full + path.sep)) continue
      this.subscriptions.delete(folder)
      const ended = subscription
        .then((s) => s?.unsubscribe())
        .catch((error: unknown) => this.options.onError(error))
        .finally(() => {
          if (this.ending.get(folder) === ended) this.ending.delete(folder)
        })
      this.ending.set(folder, ended)
    }
  }
}

/** Every file and folder under `folder` (not following links), less the ignored ones and what they hold. */
export async function walkTree(folder: string, ignored: (full: string) => boolean): Promise<{ files: string[]; folders: string[] }> {
  const files: string[] = []
  const folders: string[] = []
  const visit = async (dir: string, top: boolean) => {
    let entries: fs.Dirent[]
    try {
      entries = await fs.promises.readdir(dir, { withFileTypes: true })
    } catch (error) {
      // A subfolder removed while the walk was on its way there holds nothing any more.
      if (!top && (error as NodeJS.ErrnoException).code === 'ENOENT') return
      throw error
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (ignored(full)) continue
      if (entry.isDirectory()) {
        folders.push(full)
        await visit(full, false)
      } else files.push(full)
    }
  }
  await visit(folder, true)
  return { files, folders }
}

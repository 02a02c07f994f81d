import path from 'node:path'
import { defaultSource } from './default-source'
import type { FileEventSource, FileEventSourceFactory } from './event-source'
import { isIgnoredName } from './ignore'

export interface WatchedSpace {
  spaceId: string
  /** Absolute folder. */
  folder: string
}

export interface WorkspaceWatcherOptions {
  /** The folders to watch, one per space. */
  spaces: readonly WatchedSpace[]
  /** Quiet time after a file's last event before its space is told (editors write in several steps). */
  debounceMs?: number
  /**
   * A removed file waits longer: a rename or move shows up as a removal and a creation, and both must
   * reach the same push so the push sees a move, not a deletion.
   */
  renameWindowMs?: number
  /**
   * Called once per burst: the space and the relative paths that changed. `whole`: the paths alone do
   * not say what changed (a removal, which may be half of a rename; an event under a name the watcher
   * ignores, as an editor's temp or backup file, or a hidden one): what reads the folder reads all of it.
   */
  onChange: (spaceId: string, paths: string[], whole: boolean) => void
  onError?: (error: unknown) => void
  /** Poll the folders (network drives): chokidar's polling instead of native events. */
  usePolling?: boolean
  /** The file watching library (default: @parcel/watcher, or chokidar when polling or when it cannot load). */
  source?: FileEventSourceFactory
}

export const DEFAULT_DEBOUNCE_MS = 300
export const DEFAULT_RENAME_WINDOW_MS = 1000

/**
 * A watcher over the space folders (@parcel/watcher unless another source is given: default-source.ts).
 * It only says which space changed; whether anything is an edit is decided by the push planner from
 * content hashes against the merge base, so Quire's own writes (sync down, marker removal, conflict
 * copies) cause a push that finds nothing to send. Editors' swap, backup and temp files, `.git` and Quire's temp files are ignored. The
 * events of one file are debounced; a removal waits for the rename window, so that a move's removal and
 * creation reach the same push.
 */
export class WorkspaceWatcher {
  private source?: FileEventSource
  private readonly timers = new Map<string, { spaceId: string; timer: NodeJS.Timeout }>()
  private readonly dirty = new Map<string, Set<string>>()
  /** Spaces whose next report must say `whole` (a removal or an ignored name seen since their last report). */
  private readonly whole = new Set<string>()
  /** Set once the source runs: the ignore rule asked before that is the initial listing's, not an event's. */
  private started = false
  private readonly debounceMs: number
  private readonly renameWindowMs: number

  constructor(private readonly options: WorkspaceWatcherOptions) {
    this.debounceMs = options.debounceMs ?? DEFAULT_DEBOUNCE_MS
    this.renameWindowMs = Math.max(options.renameWindowMs ?? DEFAULT_RENAME_WINDOW_MS, this.debounceMs)
  }

  /** Resolves once the initial scan is done (events from then on are edits). */
  start(): Promise<void> {
    const factory = this.options.source ?? defaultSource({ usePolling: this.options.usePolling })
    this.source = factory({
      folders: this.options.spaces.map((s) => s.folder),
      ignored: (p) => this.ignored(p),
      onEvent: (kind, p) => this.touched(p, kind === 'unlink'),
      onError: (error) => this.options.onError?.(error),
    })
    return this.source.start().then(() => {
      this.started = true
    })
  }

  async close(): Promise<void> {
    for (const { timer } of this.timers.values()) clearTimeout(timer)
    this.timers.clear()
    this.dirty.clear()
    this.whole.clear()
    this.started = false
    const source = this.source
    this.source = undefined
    await source?.close()
  }

  private ignored(full: string): boolean {
    const space = this.spaceOf(full)
    if (!space) return false // the folders themselves and their parents
    const relative = path.relative(space.folder, full)
    if (relative === '') return false
    const segments = relative.split(path.sep)
    // Hidden names other than the top .gitbook are no content, nor is what hidden folders hold: a new
    // hidden folder is not reported either (the native watcher may or may not see it come, by timing).
    const ignored = segments.some((s, i) => isIgnoredName(s) || (s.startsWith('.') && !(i === 0 && s === '.gitbook')))
    // Not reported, yet it may be a page's file on its way (an editor's backup-save, a rename to a hidden
    // name: PROMISES P9): the next report of the space asks for the whole folder to be read. The rule is
    // asked of paths that did not change too (a new folder's walk): that costs a whole read, never an edit.
    if (ignored && this.started) this.whole.add(space.spaceId)
    return ignored
  }

  private spaceOf(full: string): WatchedSpace | undefined {
    return this.options.spaces.find((s) => full === s.folder || full.startsWith(s.folder + path.sep))
  }

  private touched(full: string, removed: boolean) {
    const space = this.spaceOf(full)
    if (!space) return
    const relative = path.relative(space.folder, full).split(path.sep).join('/')
    if (removed) this.whole.add(space.spaceId)
    const pending = this.timers.get(full)
    if (pending) clearTimeout(pending.timer)
    const delay = removed ? this.renameWindowMs : this.debounceMs
    const timer = setTimeout(() => this.settled(full, space.spaceId, relative), delay)
    this.timers.set(full, { spaceId: space.spaceId, timer })
  }

  /** A file is quiet: once no file of its space is still settling, the space is told. */
  private settled(full: string, spaceId: string, relative: string) {
    this.timers.delete(full)
    const paths = this.dirty.get(spaceId) ?? new Set<string>()
    paths.add(relative)
    this.dirty.set(spaceId, paths)
    for (const pending of this.timers.values()) if (pending.spaceId === spaceId) return
    this.dirty.delete(spaceId)
    const whole = this.whole.delete(spaceId)
    this.options.onChange(spaceId, [...paths].sort(), whole)
  }
}

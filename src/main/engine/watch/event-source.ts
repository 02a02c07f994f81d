/**
 * What the workspace watcher needs from a file watching library: for each space folder, which files
 * (or folders) appeared, changed or went away, once its initial view of the folders is complete. The
 * debouncing and the rename window are the watcher's; a source only reports.
 */
export type FileEventKind = 'add' | 'change' | 'unlink'

export interface FileEventSourceOptions {
  /** Absolute folders, one per space. */
  folders: readonly string[]
  /** True for a path whose events are not wanted (and, where the library allows, not watched at all). */
  ignored: (full: string) => boolean
  onEvent: (kind: FileEventKind, full: string) => void
  onError: (error: unknown) => void
}

export interface FileEventSource {
  /** Resolves once the folders are watched: every change after it is reported. */
  start(): Promise<void>
  close(): Promise<void>
}

export type FileEventSourceFactory = (options: FileEventSourceOptions) => FileEventSource

import type { LateSave } from './replaced-files'

/**
 * The space folder's vocabulary, shared by the layers above it (sync down plans and executes against
 * it, sync up names conflicted copies by it): kept here so the workspace imports nothing from them.
 */

/** Hashes of the local files that matter to a plan (journal paths and remote paths), by path. Absent = no file. */
export type LocalState = ReadonlyMap<string, string>

/** Bytes as they arrive (a download), with the size announced for them when there is one. */
export interface ByteStream {
  size: number | undefined
  chunks: AsyncIterable<Uint8Array>
}

/** The space folder as the executor needs it; paths relative to the folder. */
export interface SpaceFiles {
  /** Git blob id of the file at `path`; undefined when there is none. */
  hash(path: string): Promise<string | undefined>
  /** Whether nothing at all is at `path`: what `hash` says by answering undefined, without reading a file. */
  isAbsent?(path: string): Promise<boolean>
  /**
   * True when `write` and `writeStream` with `expect` undefined refuse a file at `path` atomically, in the
   * step that puts theirs in place (`LocalFileChanged`, 'appeared'): a look first would only spare the
   * work of a write that is refused, which is rare, so the caller need not look.
   */
  readonly refusesOccupied?: boolean
  // The three steps below happen only if the file still is what the plan saw (`expect`: its hash;
  // undefined: nothing there), checked right before the step itself; otherwise they throw
  // `LocalFileChanged` and leave the writer's bytes alone (atomic-write.ts says what window remains).
  /**
   * Atomic: readers see the old or the new content, never a mix. Durable once `flush` has run, when there
   * is one. `asRemote`: `data` is exactly the remote oid's bytes (its journal record may wait).
   */
  write(path: string, data: Uint8Array, expect: string | undefined, asRemote?: boolean, hash?: string): Promise<void>
  /**
   * `write` from bytes as they arrive, never held whole. They must hash to `oid` (when given): checked
   * once all are on disk and before anything is replaced. Returns their hash.
   */
  writeStream?(path: string, body: ByteStream, expect: string | undefined, oid: string | undefined): Promise<string>
  /** Nothing may be at `to`. */
  rename(from: string, to: string, expect: string): Promise<void>
  remove(path: string, expect: string): Promise<void>
  /** Makes every `write` so far durable (the folders' entries synced, one sync per folder). */
  flush?(): Promise<void>
  /**
   * Saves that reached a file after `write` replaced it or `remove` removed it (a writer who opened it
   * before the step wrote after it), once the writer has had time to finish: their bytes are back at
   * the name or in a conflicted copy (replaced-files.ts).
   */
  lateSaves?(): Promise<LateSave[]>
}

/** `guide/install.md` -> `guide/install (conflicted copy 2026-01-31 093612).md`, where the writer's version is kept. */
export function conflictCopyPath(path: string, stamp: string): string {
  const dot = path.lastIndexOf('.')
  const slash = path.lastIndexOf('/')
  const [stem, ext] = dot > slash + 1 ? [path.slice(0, dot), path.slice(dot)] : [path, '']
  return `${stem} (conflicted copy ${stamp})${ext}`
}

import { lstatSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import type { SpaceFiles } from '../sync/executor'
import type { LocalState } from '../sync/plan-types'
import { syncFolder, TEMP_MARK, writeFileAtomic } from './atomic-write'
import { confinedPath, PathEscapeError } from './safe-names'

/** Stands for a folder where a file should be: it is never our content, so nothing overwrites it. */
const FOLDER_HASH = 'folder'

/**
 * One space folder on disk. Every relative path is checked to be exactly what `confinedPath` makes of
 * it (already safe, inside the folder) before any I/O, so no server-given name reaches the disk unchecked.
 */
export class SpaceFolder implements SpaceFiles {
  readonly root: string
  /** Folders that received files since the last `flush`. */
  private readonly unsynced = new Set<string>()

  constructor(root: string) {
    this.root = path.resolve(root)
  }

  resolve(relative: string): string {
    const full = confinedPath(this.root, relative)
    if (full !== path.resolve(this.root, ...relative.split('/'))) throw new PathEscapeError(relative)
    return full
  }

  async hash(relative: string): Promise<string | undefined> {
    const full = this.resolve(relative)
    try {
      return gitBlobOid(await fs.readFile(full))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
      if (code === 'EISDIR') return FOLDER_HASH
      throw error
    }
  }

  /**
   * Nothing at all at `relative` (no file, folder or link). A synchronous lstat: a few microseconds,
   * where a failed read costs a round trip through the thread pool and an exception.
   */
  async isAbsent(relative: string): Promise<boolean> {
    const full = this.resolve(relative)
    try {
      return lstatSync(full, { throwIfNoEntry: false }) === undefined
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    }
  }

  /** Atomic; durable once `flush` has run (the folder sync is shared by every file written to it). */
  async write(relative: string, data: Uint8Array): Promise<void> {
    const full = this.resolve(relative)
    await writeFileAtomic(full, data, { syncFolder: false })
    this.unsynced.add(path.dirname(full))
  }

  /** Makes every write so far durable: one sync per folder written to. */
  async flush(): Promise<void> {
    const folders = [...this.unsynced]
    this.unsynced.clear()
    await Promise.all(
      folders.map((dir) =>
        syncFolder(dir).catch((error: NodeJS.ErrnoException) => {
          // Removed meanwhile (by the user): none of its files is there to keep.
          if (error.code !== 'ENOENT') throw error
        }),
      ),
    )
  }

  async rename(from: string, to: string): Promise<void> {
    const source = this.resolve(from)
    const target = this.resolve(to)
    await fs.mkdir(path.dirname(target), { recursive: true })
    await fs.rename(source, target)
    await this.prune(path.dirname(source))
  }

  async remove(relative: string): Promise<void> {
    const full = this.resolve(relative)
    await fs.rm(full, { force: true })
    await this.prune(path.dirname(full))
  }

  /** Hashes of the files at `paths` (those that exist). */
  async scan(paths: Iterable<string>, concurrency = 16): Promise<LocalState> {
    const list = [...new Set(paths)]
    const state = new Map<string, string>()
    let next = 0
    const worker = async () => {
      while (next < list.length) {
        const relative = list[next++]
        if (await this.isAbsent(relative)) continue
        const hash = await this.hash(relative)
        if (hash !== undefined) state.set(relative, hash)
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    return state
  }

  /** Removes temp files a killed write left behind (they never replaced anything). */
  async removeStaleTempFiles(): Promise<number> {
    let removed = 0
    const walk = async (dir: string): Promise<void> => {
      let entries: import('node:fs').Dirent[]
      try {
        entries = await fs.readdir(dir, { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of entries) {
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) await walk(full)
        else if (entry.isFile() && entry.name.startsWith(TEMP_MARK)) {
          await fs.rm(full, { force: true })
          removed++
        }
      }
    }
    await walk(this.root)
    return removed
  }

  /** Removes folders a move or delete left empty, up to (not including) the space folder. */
  private async prune(dir: string): Promise<void> {
    let current = dir
    while (current.startsWith(this.root + path.sep)) {
      try {
        await fs.rmdir(current)
      } catch {
        return
      }
      current = path.dirname(current)
    }
  }
}

import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/** Temp files Quire leaves only if killed mid-write; the watcher ignores them and a pass removes them. */
export const TEMP_MARK = '.quire-tmp-'

export interface AtomicWriteOptions {
  /**
   * Sync the folder after the rename, so the new name survives a power cut (default true). A caller
   * writing many files passes false and calls `syncFolder` once per folder before relying on them.
   */
  syncFolder?: boolean
}

/**
 * Writes a file so that readers see the old or the new content, never a mix: a temp file in the same
 * folder, fsync, rename over the target, fsync of the folder. A full disk fails before the rename, so the
 * old file is untouched.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = path.dirname(target)
  const temp = path.join(dir, `${TEMP_MARK}${randomUUID().replace(/-/g, '').slice(0, 12)}-${path.basename(target).slice(0, 64)}`)
  const handle = await openTemp(temp)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await fs.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await fs.rename(temp, target)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
  if (options.syncFolder !== false) await syncFolder(dir)
}

/** The folder is created only when the temp file cannot be (most writes go to folders that exist). */
async function openTemp(temp: string): Promise<fs.FileHandle> {
  try {
    return await fs.open(temp, 'wx', 0o644)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    await fs.mkdir(path.dirname(temp), { recursive: true })
    return await fs.open(temp, 'wx', 0o644)
  }
}

/** Makes the names in `dir` (renames, new files) durable. */
export async function syncFolder(dir: string): Promise<void> {
  // Windows cannot open folders for fsync; there the rename is already durable enough.
  if (process.platform === 'win32') return
  const handle = await fs.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

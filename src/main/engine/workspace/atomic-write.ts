import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/** Temp files Quire leaves only if killed mid-write; the watcher ignores them and a pass removes them. */
export const TEMP_MARK = '.quire-tmp-'

/**
 * Writes a file so that readers see the old or the new content, never a mix: a temp file in the same
 * folder, fsync, rename over the target, fsync of the folder. A full disk fails before the rename, so the
 * old file is untouched.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array): Promise<void> {
  const dir = path.dirname(target)
  await fs.mkdir(dir, { recursive: true })
  const temp = path.join(dir, `${TEMP_MARK}${randomBytes(6).toString('hex')}-${path.basename(target).slice(0, 64)}`)
  const handle = await fs.open(temp, 'wx', 0o644)
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
  await syncFolder(dir)
}

async function syncFolder(dir: string) {
  // Windows cannot open folders for fsync; there the rename is already durable enough.
  if (process.platform === 'win32') return
  const handle = await fs.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

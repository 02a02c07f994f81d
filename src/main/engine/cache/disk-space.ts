import fs from 'node:fs'
import path from 'node:path'

/**
 * Below this much free space, the disk that holds the cache counts as full: SQLite needs room for a
 * transaction's pages and its journal, and a pass that cannot write the cache cannot record anything,
 * not even that it failed. Without this check the state last recorded (offline, say) was shown as if
 * it were the truth (issue 25).
 */
export const CACHE_DISK_FULL_BELOW = 1024 * 1024

/** "disk full: ..." naming the cache's folder, when the disk that holds it has no room left; else undefined. */
export function cacheDiskFull(cacheFile: string): string | undefined {
  const folder = path.dirname(cacheFile)
  let free: number
  try {
    const stats = fs.statfsSync(folder)
    free = stats.bavail * stats.bsize
  } catch {
    return undefined // no folder yet, or a file system that does not say: nothing known to be full
  }
  return free < CACHE_DISK_FULL_BELOW ? `disk full: no space left for the cache in ${folder}` : undefined
}

/** Whether an error is the kind a full disk gives: SQLite's full or I/O errors, or a file system's ENOSPC. */
export function isStorageError(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && (code === 'ENOSPC' || code === 'EDQUOT' || code === 'SQLITE_FULL' || code.startsWith('SQLITE_IOERR'))
}

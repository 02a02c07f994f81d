/**
 * What became of a damaged cache, and who hears of it when its opener named no one: the CLI says it on
 * stderr (main.ts registers that), the app in its activity log (it passes its own listener). This module
 * imports nothing, so the CLI's start can register its listener without loading SQLite.
 */
export interface HealedCache {
  /** The cache file that was damaged (a fresh, empty cache is there now). */
  file: string
  /** Where the damaged file was moved (its -wal and -shm beside it): nothing is deleted. */
  aside: string
  /** What SQLite said of it. */
  reason: string
}

let listener: ((healed: HealedCache) => void) | undefined

/** Who hears of a cache healed by an opener that named no one (one listener; undefined: nobody). */
export function onCacheHealed(next: ((healed: HealedCache) => void) | undefined) {
  listener = next
}

export function reportCacheHealed(healed: HealedCache) {
  listener?.(healed)
}

/** The one line that says it, naming both files. */
export function healedCacheLine(healed: HealedCache): string {
  return `the cache ${healed.file} was damaged (${healed.reason.replace(/\s*\n\s*/g, '; ')}): it is set aside as ${healed.aside} (nothing deleted) and a fresh cache is in its place; sign in again with quire login if asked, and the next sync matches your files to their pages`
}

/** Whether an error is SQLite saying its file is damaged (not busy, not locked, not a newer schema). */
export function isCacheDamage(error: unknown): boolean {
  const code = (error as { code?: unknown } | undefined)?.code
  if (typeof code === 'string' && (code.startsWith('SQLITE_CORRUPT') || code === 'SQLITE_NOTADB')) return true
  const message = error instanceof Error ? error.message : ''
  return /database disk image is malformed|file is not a database/i.test(message)
}

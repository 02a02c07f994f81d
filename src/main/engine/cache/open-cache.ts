import fs from 'node:fs'
import Database from 'better-sqlite3'
import { openDatabase, type OpenDatabaseOptions } from '../../db/open-database'
import { isCacheDamage, reportCacheHealed, type HealedCache } from './cache-health-events'
import { cacheMigrations } from './migrations'

/** Cache files this process has checked (and found sound, or made fresh), by path and stat: a file changed since is checked again. */
const checked = new Set<string>()
const checkKey = (file: string) => {
  const stat = fs.statSync(file, { throwIfNoEntry: false })
  return stat ? `${file}\0${stat.ino}\0${stat.size}\0${stat.mtimeMs}` : undefined
}

export interface OpenCacheOptions extends OpenDatabaseOptions {
  /** Told when the file was damaged and set aside (default: `onCacheHealed`'s listener). */
  onHealed?: (healed: HealedCache) => void
  /** false: a damaged file is not set aside, SQLite's error is thrown (quire doctor without --repair). */
  heal?: boolean
  /** The time in the set-aside name (tests). */
  now?: () => Date
}

/**
 * The client's SQLite cache at its latest schema, checked on open (`PRAGMA quick_check`: ~1 ms a
 * thousand journal entries, see README). A damaged file (truncated, zeroed, bytes flipped: SQLite says
 * "malformed" or "not a database", or the check finds faults) is never deleted and never left to brick
 * every command: it is renamed aside (`cache.db.damaged-<time>`, with its -wal and -shm), a fresh cache
 * is opened in its place, and `onHealed` says so. What the cache held comes back from the service and
 * the workspace: the next pass recovers the journal (sync/recovery-match.ts); the account, once the user
 * signs in again (the token itself is in the keychain or the token folder, not in the cache).
 */
export function openCacheDatabase(file: string, options: OpenCacheOptions = {}): Database.Database {
  if (file === ':memory:') return openDatabase(file, cacheMigrations, options)
  let reason: string
  try {
    // SQLite takes an empty file for a new database: a cache truncated to nothing would pass unnoticed.
    if (fs.statSync(file, { throwIfNoEntry: false })?.size === 0) throw new CacheDamagedError(file, 'the file is empty')
    const before = checkKey(file)
    const db = openDatabase(file, cacheMigrations, options)
    // Once per file and process: a command opens its cache more than once, and the check reads all of it.
    if (before !== undefined && checked.has(before)) return db
    const fault = quickCheck(db)
    if (fault === undefined) {
      const key = checkKey(file)
      if (key !== undefined) checked.add(key)
      return db
    }
    db.close()
    reason = fault
  } catch (error) {
    if (!isCacheDamage(error)) throw error
    reason = error instanceof CacheDamagedError ? error.reason : error instanceof Error ? error.message : String(error)
  }
  if (options.heal === false) throw new CacheDamagedError(file, reason)
  const aside = setAside(file, options.now?.() ?? new Date())
  const db = openDatabase(file, cacheMigrations, options)
  ;(options.onHealed ?? reportCacheHealed)({ file, aside, reason })
  return db
}

export class CacheDamagedError extends Error {
  readonly code = 'SQLITE_CORRUPT'
  constructor(
    readonly file: string,
    readonly reason: string,
  ) {
    super(`the cache ${file} is damaged (${reason})`)
  }
}

/** SQLite's quick check of an open cache: undefined when it finds nothing, else its first finding, on one line. */
export function quickCheck(db: Database.Database): string | undefined {
  const rows = db.pragma('quick_check(10)') as Array<Record<string, unknown>>
  const findings = rows
    .flatMap((row) => String(Object.values(row)[0]).split('\n'))
    .map((line) => line.trim())
    .filter((line) => line !== '' && !/^\*\*\* in database \w+ \*\*\*$/.test(line))
  if (findings.length === 1 && findings[0] === 'ok') return undefined
  if (findings.length === 0) return 'quick_check found faults'
  return `quick_check: ${findings[0]}${findings.length > 1 ? ` and ${findings.length - 1} more` : ''}`
}

/** What a cache file is, looked at without changing it: missing, healthy, or damaged and why. */
export function inspectCacheFile(file: string, options: OpenDatabaseOptions = {}): { state: 'missing' } | { state: 'ok' } | { state: 'damaged'; reason: string } {
  const size = fs.statSync(file, { throwIfNoEntry: false })?.size
  if (size === undefined) return { state: 'missing' }
  if (size === 0) return { state: 'damaged', reason: 'the file is empty' }
  let db: Database.Database | undefined
  try {
    db = new Database(file, { fileMustExist: true, ...(options.nativeBinding ? { nativeBinding: options.nativeBinding } : {}) })
    const fault = quickCheck(db)
    return fault === undefined ? { state: 'ok' } : { state: 'damaged', reason: fault }
  } catch (error) {
    if (!isCacheDamage(error)) throw error
    return { state: 'damaged', reason: error instanceof Error ? error.message : String(error) }
  } finally {
    db?.close()
  }
}

/**
 * Moves a damaged cache out of the way, never deleting it: `<file>.damaged-<time>` (a number added when
 * that name is taken), its -wal and -shm renamed alongside so the copy opens as it was. Another process
 * that set it aside first leaves nothing to move: the name it chose is not known here, so this one's is said.
 */
export function setAside(file: string, now: Date): string {
  const stamp = now.toISOString().replace(/[:.]/g, '-')
  let aside = `${file}.damaged-${stamp}`
  for (let n = 2; fs.existsSync(aside); n++) aside = `${file}.damaged-${stamp}-${n}`
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      fs.renameSync(`${file}${suffix}`, `${aside}${suffix}`)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    }
  }
  return aside
}

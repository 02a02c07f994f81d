import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrate, type Migration } from './migrate'

export interface OpenDatabaseOptions {
  /**
   * better-sqlite3's compiled addon to load instead of the one in node_modules. The desktop app passes a
   * build for Electron's ABI in development (npm run rebuild:electron); tests and the CLI pass nothing.
   */
  nativeBinding?: string
}

/**
 * Opens (creating when needed) a SQLite file in WAL mode with foreign keys on and brings it to the
 * latest of `migrations`; a file from a newer Quire is refused.
 */
export function openDatabase(file: string, migrations: readonly Migration[], options: OpenDatabaseOptions = {}): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file, options.nativeBinding ? { nativeBinding: options.nativeBinding } : {})
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = NORMAL')
    db.pragma('foreign_keys = ON')
    db.pragma('busy_timeout = 5000')
    migrate(db, migrations)
  } catch (error) {
    db.close()
    throw error
  }
  return db
}

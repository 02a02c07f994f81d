import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrate, type Migration } from './migrate'

/**
 * Opens (creating when needed) a SQLite file in WAL mode with foreign keys on and brings it to the
 * latest of `migrations`; a file from a newer Quire is refused.
 */
export function openDatabase(file: string, migrations: readonly Migration[]): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
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

import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrate } from '../../db/migrate'
import { cacheMigrations } from './migrations'

/** Opens the client's SQLite cache (WAL, foreign keys, latest schema); refuses a newer file. */
export function openCacheDatabase(file: string): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db, cacheMigrations)
  return db
}

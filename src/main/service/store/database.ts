import fs from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import { migrate } from '../../db/migrate'
import { serviceMigrations } from './migrations'

/** Opens (creating when needed) the service's SQLite file in WAL mode at the latest schema. */
export function openServiceDatabase(file: string): Database.Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(file), { recursive: true })
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db, serviceMigrations)
  return db
}

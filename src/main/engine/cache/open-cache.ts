import type Database from 'better-sqlite3'
import { openDatabase, type OpenDatabaseOptions } from '../../db/open-database'
import { cacheMigrations } from './migrations'

/** The client's SQLite cache at its latest schema. */
export function openCacheDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  return openDatabase(file, cacheMigrations, options)
}

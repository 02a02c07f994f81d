import type Database from 'better-sqlite3'
import { openDatabase, type OpenDatabaseOptions } from '../../db/open-database'
import { serviceMigrations } from './migrations'

/** The service's SQLite file at its latest schema. */
export function openServiceDatabase(file: string, options: OpenDatabaseOptions = {}): Database.Database {
  return openDatabase(file, serviceMigrations, options)
}

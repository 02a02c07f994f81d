import type Database from 'better-sqlite3'
import { StatementCache } from './statement-cache'

export type Row = Record<string, unknown>
export const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))
export const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v))

/** The client cache's database as its tables' modules share it: one statement cache, one clock. */
export class CacheDatabase {
  private readonly statements: StatementCache

  constructor(
    readonly db: Database.Database,
    readonly now: () => string = () => new Date().toISOString(),
  ) {
    this.statements = new StatementCache(db)
  }

  /** Every query of the tables' modules, compiled once (see StatementCache). */
  statement(sql: string): Database.Statement {
    return this.statements.statement(sql)
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }
}

/** A module that owns the SQL of some tables of the cache. */
export abstract class CacheTable {
  protected readonly db: Database.Database

  constructor(private readonly cache: CacheDatabase) {
    this.db = cache.db
  }

  protected now(): string {
    return this.cache.now()
  }

  protected statement(sql: string): Database.Statement {
    return this.cache.statement(sql)
  }

  protected transaction<T>(fn: () => T): T {
    return this.cache.transaction(fn)
  }
}

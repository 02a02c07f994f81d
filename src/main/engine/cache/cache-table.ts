import type Database from 'better-sqlite3'

export type Row = Record<string, unknown>
export const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))
export const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v))

/** The client cache's database as its tables' modules share it: one statement cache, one clock. */
export class CacheDatabase {
  /** Statements run once per synced file, compiled once. */
  private readonly statements = new Map<string, Database.Statement>()

  constructor(
    readonly db: Database.Database,
    readonly now: () => string = () => new Date().toISOString(),
  ) {}

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)))
    return statement
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

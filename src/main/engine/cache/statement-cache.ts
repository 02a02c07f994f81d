import type Database from 'better-sqlite3'

/**
 * A connection's statements, each compiled once by its SQL. better-sqlite3's `prepare` parses and plans the
 * SQL every call: over a pass of 100 spaces that was 160-365 ms of the client's CPU (bench:scale's profile).
 * A cached statement must not be changed (`pluck`, `raw`, `expand`) nor iterated while used again.
 */
export class StatementCache {
  private readonly statements = new Map<string, Database.Statement>()

  constructor(private readonly db: Database.Database) {}

  statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)))
    return statement
  }
}

import type Database from 'better-sqlite3'

type RepositoryClass<T> = new (db: Database.Database, store: ServiceStore) => T

/**
 * The service's persistence. Every SQL statement lives in a repository class under store/; handlers
 * reach them with `store.repo(SpacesRepository)`, created once per store.
 */
export class ServiceStore {
  private readonly repos = new Map<RepositoryClass<unknown>, unknown>()

  constructor(
    readonly db: Database.Database,
    readonly clock: () => Date = () => new Date(),
  ) {
    cachePreparedStatements(db)
  }

  repo<T>(kind: RepositoryClass<T>): T {
    let repo = this.repos.get(kind) as T | undefined
    if (!repo) {
      repo = new kind(this.db, this)
      this.repos.set(kind, repo)
    }
    return repo
  }

  now(): string {
    return this.clock().toISOString()
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  close() {
    this.db.close()
  }
}

/** Statements kept per database; beyond this the least recently used are compiled again when next used. */
const STATEMENTS_KEPT = 1000

/**
 * Repositories call `db.prepare(sql)` each time they run a statement; compiling the SQL is a tenth of a
 * page read's CPU (issue 16). The database's `prepare` hands back the same statement for the same SQL
 * instead: safe here, as no repository iterates a statement while running it again, nor toggles a
 * statement's modes (`pluck`, `raw`, `expand`).
 */
function cachePreparedStatements(db: Database.Database): void {
  const compile = db.prepare.bind(db)
  const statements = new Map<string, Database.Statement>()
  db.prepare = ((sql: string) => {
    let statement = statements.get(sql)
    if (statement) statements.delete(sql)
    else statement = compile(sql)
    statements.set(sql, statement)
    if (statements.size > STATEMENTS_KEPT) statements.delete(statements.keys().next().value as string)
    return statement
  }) as Database.Database['prepare']
}

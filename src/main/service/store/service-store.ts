import type Database from 'better-sqlite3'

type RepositoryClass<T> = new (db: Database.Database, store: ServiceStore) => T

/**
 * The service's persistence. Every SQL statement lives in a repository class under store/; handlers
 * reach them with `store.repo(SpacesRepository)`, created once per store.
 */
export class ServiceStore {
  private readonly repos = new Map<RepositoryClass<unknown>, unknown>()
  /** Per open transaction (outermost first): what to run once it commits. A level that throws drops its own. */
  private readonly onCommit: Array<Array<() => void>> = []

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
    this.onCommit.push([])
    let result: T
    try {
      result = this.db.transaction(fn)()
    } catch (error) {
      this.onCommit.pop()
      throw error
    }
    const done = this.onCommit.pop() ?? []
    // A nested transaction is a savepoint: its work counts only once the outermost one commits.
    if (this.onCommit.length > 0) this.onCommit[this.onCommit.length - 1].push(...done)
    else for (const run of done) run()
    return result
  }

  /**
   * Runs `fn` once what the current transaction wrote is committed (at once outside a transaction);
   * never if it rolls back. For in-memory state that must only ever describe committed rows (caches).
   */
  afterCommit(fn: () => void): void {
    if (this.onCommit.length === 0) fn()
    else this.onCommit[this.onCommit.length - 1].push(fn)
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

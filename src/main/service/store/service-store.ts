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
  ) {}

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

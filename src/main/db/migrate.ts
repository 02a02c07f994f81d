import type Database from 'better-sqlite3'

/** One schema version: applied once, inside the runner's transaction. */
export interface Migration {
  version: number
  name: string
  up(db: Database.Database): void
}

export class NewerDatabaseError extends Error {
  constructor(
    readonly found: number,
    readonly supported: number,
  ) {
    super(`database schema version ${found} is newer than this Quire supports (${supported}); upgrade Quire`)
  }
}

/**
 * Brings the database to the latest version. Each pending migration runs in its own transaction
 * together with the `user_version` bump, so a crash leaves the file at a whole version.
 */
export function migrate(db: Database.Database, migrations: readonly Migration[]): number {
  const ordered = [...migrations].sort((a, b) => a.version - b.version)
  ordered.forEach((m, index) => {
    if (m.version !== index + 1) throw new Error(`migration versions must be 1..n without gaps; got ${m.version} at ${index + 1}`)
  })
  const latest = ordered.length
  const current = db.pragma('user_version', { simple: true }) as number
  if (current > latest) throw new NewerDatabaseError(current, latest)
  for (const m of ordered.slice(current)) {
    db.transaction(() => {
      m.up(db)
      db.pragma(`user_version = ${m.version}`)
    })()
  }
  return latest
}

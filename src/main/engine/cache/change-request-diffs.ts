import type Database from 'better-sqlite3'

/** One change request's diff as last read: the revision it was read at, when, and the diff itself (JSON the app defines). */
export interface StoredDiff {
  revision: string
  fetchedAt: string
  data: unknown
}

/** The `change_request_diffs` table: every SQL statement about it. One row per change request, replaced by each read. */
export class ChangeRequestDiffsRepository {
  constructor(private readonly db: Database.Database) {}

  get(spaceId: string, changeRequestId: string): StoredDiff | undefined {
    const row = this.db.prepare('SELECT revision, fetched_at, data FROM change_request_diffs WHERE space_id = ? AND change_request_id = ?').get(spaceId, changeRequestId) as
      | { revision: string; fetched_at: string; data: string }
      | undefined
    return row && { revision: row.revision, fetchedAt: row.fetched_at, data: JSON.parse(row.data) as unknown }
  }

  save(spaceId: string, changeRequestId: string, diff: StoredDiff): void {
    this.db
      .prepare(
        `INSERT INTO change_request_diffs (space_id, change_request_id, revision, fetched_at, data) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(space_id, change_request_id) DO UPDATE SET revision = excluded.revision, fetched_at = excluded.fetched_at, data = excluded.data`,
      )
      .run(spaceId, changeRequestId, diff.revision, diff.fetchedAt, JSON.stringify(diff.data))
  }
}

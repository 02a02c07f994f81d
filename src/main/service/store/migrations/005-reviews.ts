import type Database from 'better-sqlite3'
import type { Migration } from '../../../db/migrate'

/**
 * Change request reviews and requested reviewers (spec `ChangeRequestReview`,
 * `ChangeRequestRequestedReviewer`), and how much each contributor edited (spec `ChangeRequestUserContributor`).
 *
 * A review keeps the revision it was made against: it is outdated once the change request's head moves on.
 * `superseded` marks a review a later review or review request for the same reviewer replaced; it is set
 * when that happens, so reading a review needs no ordering of timestamps that may tie.
 * One request per (change request, user): asking again refreshes it.
 *
 * Contributors gain an edit count and the time of the last edit. The creator is recorded with no edits
 * (they stay a `contributor` for the list filter). Rows from before this version had no count: each gets
 * one edit at its change request's last update.
 */
export const migration005Reviews: Migration = {
  version: 5,
  name: 'reviews',
  up(db) {
    db.exec(`
      CREATE TABLE change_request_reviews (
        id TEXT PRIMARY KEY,
        change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
        reviewer_id TEXT NOT NULL REFERENCES users(id),
        requested_by TEXT REFERENCES users(id),
        status TEXT NOT NULL,
        revision_id TEXT NOT NULL,
        comment_id TEXT,
        superseded INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE INDEX change_request_reviews_cr ON change_request_reviews(change_request_id, reviewer_id);
      CREATE TABLE change_request_requested_reviewers (
        change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id),
        requested_by TEXT NOT NULL REFERENCES users(id),
        revision_id TEXT NOT NULL,
        created_at TEXT NOT NULL,
        PRIMARY KEY (change_request_id, user_id)
      );
      CREATE INDEX change_request_requested_reviewers_user ON change_request_requested_reviewers(user_id);
      ALTER TABLE change_request_contributors ADD COLUMN edits INTEGER NOT NULL DEFAULT 0;
      ALTER TABLE change_request_contributors ADD COLUMN updated_at TEXT;
      UPDATE change_request_contributors
        SET edits = 1, updated_at = (SELECT cr.updated_at FROM change_requests cr WHERE cr.id = change_request_id);
    `)
    moveRequestedReviewers(db)
  },
}

/** Requested reviewers used to be a JSON list on the change request; they become rows of their own. */
function moveRequestedReviewers(db: Database.Database) {
  const rows = db.prepare("SELECT id, created_by, revision_id, updated_at, data FROM change_requests WHERE data LIKE '%requestedReviewers%'").all() as Array<{
    id: string
    created_by: string
    revision_id: string
    updated_at: string
    data: string
  }>
  const userExists = db.prepare('SELECT 1 FROM users WHERE id = ?')
  const insert = db.prepare(
    `INSERT OR IGNORE INTO change_request_requested_reviewers (change_request_id, user_id, requested_by, revision_id, created_at) VALUES (?, ?, ?, ?, ?)`,
  )
  const rewrite = db.prepare('UPDATE change_requests SET data = ? WHERE id = ?')
  for (const row of rows) {
    let data: Record<string, unknown>
    try {
      data = JSON.parse(row.data) as Record<string, unknown>
    } catch {
      continue // a corrupt row is reported where it is read; the upgrade goes on
    }
    const users = Array.isArray(data.requestedReviewers) ? data.requestedReviewers : []
    for (const user of users) {
      if (typeof user === 'string' && userExists.get(user)) insert.run(row.id, user, row.created_by, row.revision_id, row.updated_at)
    }
    delete data.requestedReviewers
    rewrite.run(JSON.stringify(data), row.id)
  }
}

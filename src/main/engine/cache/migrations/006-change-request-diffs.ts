import type { Migration } from '../../../db/migrate'

// What each change request changes, as the app last read it (pages with both texts, files with their
// previews, the order of SUMMARY.md), keyed by the change request's revision: a reviewer reads a diff
// offline, and a diff of a revision already read is not fetched again. Only change-request-diffs.ts uses it.
export const cacheMigration006: Migration = {
  version: 6,
  name: 'change-request-diffs',
  up(db) {
    db.exec(`
      CREATE TABLE change_request_diffs (
        space_id TEXT NOT NULL,
        change_request_id TEXT NOT NULL,
        revision TEXT NOT NULL,
        fetched_at TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (space_id, change_request_id)
      );
    `)
  },
}

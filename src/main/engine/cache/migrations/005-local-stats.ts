import type { Migration } from '../../../db/migrate'

// What each local file's stat was when sync down last hashed it, and the hash: a scan reads only the
// files whose stat changed since (see workspace/stat-first.ts for the rule). Only stat-journal.ts uses it.
export const cacheMigration005: Migration = {
  version: 5,
  name: 'local-stats',
  up(db) {
    db.exec(`
      CREATE TABLE local_stats (
        space_id TEXT NOT NULL,
        path TEXT NOT NULL,
        stat TEXT NOT NULL,
        hash TEXT NOT NULL,
        PRIMARY KEY (space_id, path)
      );
    `)
  },
}

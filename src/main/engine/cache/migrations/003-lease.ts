import type { Migration } from '../../../db/migrate'

// Several processes may open one cache (the app, `quire serve`, `quire watch`, `quire sync`): the lease names
// the one that syncs and sends, and each outbox op records which lease holder claimed it.
export const cacheMigration003: Migration = {
  version: 3,
  name: 'lease',
  up(db) {
    db.exec(`
      CREATE TABLE workspace_lease (
        workspace TEXT PRIMARY KEY,
        owner_id TEXT NOT NULL,
        pid INTEGER NOT NULL,
        hostname TEXT NOT NULL,
        kind TEXT NOT NULL,
        ttl_ms INTEGER NOT NULL,
        acquired_at INTEGER NOT NULL,
        heartbeat_at INTEGER NOT NULL
      );
      ALTER TABLE outbox ADD COLUMN claimed_by TEXT;
      ALTER TABLE outbox ADD COLUMN claimed_at TEXT;
    `)
  },
}

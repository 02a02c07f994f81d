import type { Migration } from '../../../db/migrate'

// Sync up: the durable outbox of operations bound for the service, the writer's open change request per
// space, what that change request carries for each local file, and the conflicts kept beside their pages.
export const cacheMigration002: Migration = {
  version: 2,
  name: 'outbox',
  up(db) {
    db.exec(`
      CREATE TABLE outbox (
        seq INTEGER PRIMARY KEY AUTOINCREMENT,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        generation INTEGER NOT NULL DEFAULT 0,
        kind TEXT NOT NULL,
        op_key TEXT NOT NULL UNIQUE,
        payload TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'pending',
        attempts INTEGER NOT NULL DEFAULT 0,
        sent_context TEXT,
        result TEXT,
        last_error TEXT,
        created_at TEXT NOT NULL,
        sent_at TEXT,
        finished_at TEXT
      );
      CREATE INDEX outbox_by_space ON outbox(space_id, state, seq);
      CREATE TABLE push_sessions (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
        generation INTEGER NOT NULL,
        user_id TEXT NOT NULL,
        change_request_id TEXT,
        number INTEGER,
        head_revision TEXT,
        subject TEXT,
        titles TEXT NOT NULL DEFAULT '[]',
        opened_at TEXT NOT NULL
      );
      CREATE TABLE pushed_entries (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        path TEXT NOT NULL,
        kind TEXT NOT NULL,
        page_id TEXT,
        ref TEXT,
        hash TEXT NOT NULL,
        state TEXT NOT NULL,
        generation INTEGER NOT NULL,
        op_seq INTEGER NOT NULL,
        PRIMARY KEY (space_id, path)
      );
      CREATE INDEX pushed_entries_by_page ON pushed_entries(space_id, page_id);
      CREATE TABLE conflicts (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        copy_path TEXT NOT NULL,
        path TEXT NOT NULL,
        page_id TEXT NOT NULL,
        local_text TEXT NOT NULL,
        remote_oid TEXT NOT NULL,
        state TEXT NOT NULL,
        detected_at TEXT NOT NULL,
        PRIMARY KEY (space_id, copy_path)
      );
    `)
  },
}

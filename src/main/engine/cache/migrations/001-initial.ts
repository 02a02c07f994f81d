import type { Migration } from '../../../db/migrate'

// The client's journal: what was last synced (the merge base of every file), what the service said, and
// where each pass stopped, so status and reports work offline and an interrupted sync resumes.
export const cacheMigration001: Migration = {
  version: 1,
  name: 'initial',
  up(db) {
    db.exec(`
      CREATE TABLE accounts (
        id TEXT PRIMARY KEY,
        endpoint TEXT NOT NULL,
        user_id TEXT NOT NULL,
        display_name TEXT NOT NULL,
        email TEXT,
        token_store TEXT NOT NULL,
        active INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE settings (
        key TEXT PRIMARY KEY,
        value TEXT NOT NULL
      );
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        account_id TEXT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        folder TEXT,
        selected INTEGER NOT NULL DEFAULT 0,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE collections (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        parent_id TEXT,
        title TEXT NOT NULL,
        selected INTEGER NOT NULL DEFAULT 0
      );
      CREATE TABLE spaces (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        collection_id TEXT,
        title TEXT NOT NULL,
        folder TEXT,
        selected INTEGER NOT NULL DEFAULT 0,
        remote_revision TEXT,
        synced_revision TEXT,
        state TEXT NOT NULL DEFAULT 'idle',
        last_sync_at TEXT,
        last_error TEXT,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE revisions (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        parents TEXT NOT NULL DEFAULT '[]',
        created_at TEXT,
        fetched_at TEXT NOT NULL
      );
      CREATE TABLE pages (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        parent_id TEXT,
        position INTEGER NOT NULL,
        kind TEXT NOT NULL,
        title TEXT NOT NULL,
        slug TEXT,
        git_path TEXT,
        git_oid TEXT,
        local_path TEXT,
        base_hash TEXT,
        synced_oid TEXT,
        removed INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (space_id, id)
      );
      CREATE UNIQUE INDEX pages_local_path ON pages(space_id, local_path) WHERE local_path IS NOT NULL;
      CREATE TABLE files (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        id TEXT NOT NULL,
        name TEXT NOT NULL,
        content_type TEXT,
        size INTEGER,
        download_url TEXT,
        git_path TEXT,
        git_oid TEXT,
        local_path TEXT,
        base_hash TEXT,
        synced_oid TEXT,
        removed INTEGER NOT NULL DEFAULT 0,
        PRIMARY KEY (space_id, id)
      );
      CREATE UNIQUE INDEX files_local_path ON files(space_id, local_path) WHERE local_path IS NOT NULL;
      CREATE TABLE change_requests (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        status TEXT NOT NULL,
        subject TEXT,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE comments (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        change_request_id TEXT,
        page_id TEXT,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE link_reports (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
        revision_id TEXT NOT NULL,
        fetched_at TEXT NOT NULL,
        data TEXT NOT NULL
      );
      CREATE TABLE sync_runs (
        space_id TEXT PRIMARY KEY REFERENCES spaces(id) ON DELETE CASCADE,
        target_revision TEXT NOT NULL,
        started_at TEXT NOT NULL,
        total INTEGER NOT NULL DEFAULT 0,
        completed INTEGER NOT NULL DEFAULT 0
      );
    `)
  },
}

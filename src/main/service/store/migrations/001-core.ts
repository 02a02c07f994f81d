import type { Migration } from '../../../db/migrate'

// Mutable objects keep the fields the service filters or joins on as columns and the rest of their
// API shape in `data` (JSON). Revisions are immutable; page bodies and files are content-addressed blobs.
export const migration001Core: Migration = {
  version: 1,
  name: 'core',
  up(db) {
    db.exec(`
      CREATE TABLE users (
        id TEXT PRIMARY KEY,
        display_name TEXT NOT NULL,
        email TEXT NOT NULL UNIQUE,
        photo_url TEXT,
        created_at TEXT NOT NULL
      );
      CREATE TABLE tokens (
        token_hash TEXT PRIMARY KEY,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        created_at TEXT NOT NULL
      );
      CREATE TABLE organizations (
        id TEXT PRIMARY KEY,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE TABLE org_members (
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT,
        joined_at TEXT NOT NULL,
        PRIMARY KEY (org_id, user_id)
      );
      CREATE TABLE collections (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        parent_id TEXT REFERENCES collections(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        description TEXT,
        default_level TEXT,
        position INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL
      );
      CREATE TABLE spaces (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id),
        collection_id TEXT REFERENCES collections(id) ON DELETE SET NULL,
        title TEXT NOT NULL,
        revision_id TEXT,
        position INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        deleted_at TEXT,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX spaces_org ON spaces(org_id);
      CREATE INDEX spaces_collection ON spaces(collection_id);
      CREATE TABLE space_users (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT,
        PRIMARY KEY (space_id, user_id)
      );
      CREATE TABLE space_teams (
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        team_id TEXT NOT NULL,
        role TEXT,
        PRIMARY KEY (space_id, team_id)
      );
      CREATE TABLE blobs (
        oid TEXT PRIMARY KEY,
        data BLOB NOT NULL
      );
      CREATE TABLE revisions (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        parents TEXT NOT NULL,
        tree TEXT NOT NULL,
        type TEXT NOT NULL,
        message TEXT,
        created_by TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX revisions_space ON revisions(space_id);
      CREATE TABLE change_requests (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        number INTEGER NOT NULL,
        status TEXT NOT NULL,
        subject TEXT,
        created_by TEXT NOT NULL REFERENCES users(id),
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        revision_id TEXT NOT NULL,
        revision_initial TEXT NOT NULL,
        revision_merged_ancestor TEXT NOT NULL,
        revision_merged TEXT,
        data TEXT NOT NULL DEFAULT '{}',
        UNIQUE (space_id, number)
      );
      CREATE TABLE change_request_contributors (
        change_request_id TEXT NOT NULL REFERENCES change_requests(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id),
        PRIMARY KEY (change_request_id, user_id)
      );
      CREATE TABLE comments (
        id TEXT PRIMARY KEY,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        change_request_id TEXT REFERENCES change_requests(id) ON DELETE CASCADE,
        page_id TEXT,
        node_id TEXT,
        body TEXT NOT NULL,
        posted_by TEXT NOT NULL REFERENCES users(id),
        posted_at TEXT NOT NULL,
        edited_at TEXT,
        resolved_at TEXT,
        resolved_by TEXT REFERENCES users(id),
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX comments_space ON comments(space_id, change_request_id);
      CREATE TABLE comment_replies (
        id TEXT PRIMARY KEY,
        comment_id TEXT NOT NULL REFERENCES comments(id) ON DELETE CASCADE,
        body TEXT NOT NULL,
        posted_by TEXT NOT NULL REFERENCES users(id),
        posted_at TEXT NOT NULL,
        edited_at TEXT,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX comment_replies_comment ON comment_replies(comment_id);
      CREATE TABLE reactions (
        target_id TEXT NOT NULL,
        emoji TEXT NOT NULL,
        user_id TEXT NOT NULL REFERENCES users(id),
        reacted_at TEXT NOT NULL,
        PRIMARY KEY (target_id, emoji, user_id)
      );
    `)
  },
}

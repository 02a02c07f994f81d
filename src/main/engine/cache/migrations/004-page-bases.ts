import type { Migration } from '../../../db/migrate'

// The text of each page as sync down last wrote it, by the service's oid: the merge base a push merges
// the writer's edits and main's with. Only texts a journal entry still names are kept (see page-bases.ts).
export const cacheMigration004: Migration = {
  version: 4,
  name: 'page-bases',
  up(db) {
    db.exec(`
      CREATE TABLE page_bases (
        space_id TEXT NOT NULL,
        oid TEXT NOT NULL,
        text TEXT NOT NULL,
        PRIMARY KEY (space_id, oid)
      );
    `)
  },
}

import type { Migration } from '../../../db/migrate'

/**
 * A revision's tree stored as content-addressed nodes (store/revision-nodes.ts): one per page (its
 * subpages by oid), chunks of the file list, and a root. A revision shares every node its parent has
 * unchanged, so a small edit of a large space stores a few hundred bytes, not the whole tree (issue 16:
 * 1.6 MB per edit of an 800-page space). Rows from before keep their whole tree in `revisions.tree` and
 * are read as they are.
 */
export const migration006RevisionNodes: Migration = {
  version: 6,
  name: 'revision-nodes',
  up(db) {
    db.exec(`
      CREATE TABLE revision_nodes (
        oid TEXT PRIMARY KEY,
        data TEXT NOT NULL
      ) WITHOUT ROWID;
    `)
  },
}

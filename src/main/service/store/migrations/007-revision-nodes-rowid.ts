import type { Migration } from '../../../db/migrate'

/**
 * `revision_nodes` as a table with rowids (and an index on the oid) instead of WITHOUT ROWID: a row of
 * a WITHOUT ROWID table is kept in its B-tree page only up to about a quarter of the page (~1,000 bytes
 * here), the rest going to an overflow page of its own, and a revision's root node lists the oids of
 * the space's root pages (~2 KB at 800 pages), a section's node those of its subpages; their rows went in
 * at random places (the oid is a hash), splitting pages. A small write of an 800-page space grew the
 * database by 2.2 pages (0.5 at 50 pages); appended by rowid, its three nodes take about one (issue 16).
 */
export const migration007RevisionNodesRowid: Migration = {
  version: 7,
  name: 'revision-nodes-rowid',
  up(db) {
    db.exec(`
      CREATE TABLE revision_nodes_by_rowid (
        oid TEXT PRIMARY KEY,
        data TEXT NOT NULL
      );
      INSERT INTO revision_nodes_by_rowid (oid, data) SELECT oid, data FROM revision_nodes;
      DROP TABLE revision_nodes;
      ALTER TABLE revision_nodes_by_rowid RENAME TO revision_nodes;
    `)
  },
}

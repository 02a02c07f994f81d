import type { Migration } from '../../../db/migrate'

// Offline full-text search: one row per page file of a space folder as it was last read (the mirrored
// pages and the writer's unsent edits alike), with the stat it had then, so a query re-reads only the
// files whose stat changed; and an FTS5 table of their title, headings and text (GitBook block markup
// stripped, code kept), whose rowid is the file row's id. The text keeps the file's line breaks, so a
// match is found at its line. The rank (bm25: ten for a title word, four for a heading's, one for the
// text's) is the table's own, so FTS5 sorts the matches itself. Only search-index.ts uses them.
export const cacheMigration007: Migration = {
  version: 7,
  name: 'search-index',
  up(db) {
    db.exec(`
      CREATE TABLE search_files (
        id INTEGER PRIMARY KEY,
        space_id TEXT NOT NULL,
        path TEXT NOT NULL,
        stat TEXT NOT NULL,
        title TEXT NOT NULL,
        UNIQUE (space_id, path)
      );
      CREATE VIRTUAL TABLE search_text USING fts5(title, headings, body, tokenize = 'unicode61 remove_diacritics 2', prefix = '2 3');
      INSERT INTO search_text (search_text, rank) VALUES ('rank', 'bm25(10.0, 4.0, 1.0)');
    `)
  },
}

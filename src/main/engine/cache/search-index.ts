import type Database from 'better-sqlite3'

/** One file's searchable parts, as `content/markdown/search-text.ts` reads them. */
export interface IndexedText {
  title: string
  headings: string
  body: string
}

/** A row of a query's answer: the file, its rank (lower is better) and its text with each match between \u0002 and \u0003. */
export interface IndexHit {
  spaceId: string
  path: string
  title: string
  rank: number
  marked: string
}

/** Mark characters around each match in `IndexHit.marked`: control characters no page text holds. */
export const MATCH_OPEN = '\u0002'
export const MATCH_CLOSE = '\u0003'

// bm25's weights of the three columns: a word in the title counts ten times one in the text, one in a
// heading four times (the title and headings are also in the text, so they count there too).
const TITLE_WEIGHT = 10
const HEADING_WEIGHT = 4
const BODY_WEIGHT = 1

/**
 * The search index of the client cache (`search_files` and the FTS5 table `search_text`): every SQL
 * statement about them. A file row holds the stat its file had when it was read; the text row shares
 * its id. Statements are prepared once per index.
 */
export class SearchIndexTable {
  private readonly statements = new Map<string, Database.Statement>()

  constructor(private readonly db: Database.Database) {}

  private sql(text: string): Database.Statement {
    let statement = this.statements.get(text)
    if (!statement) this.statements.set(text, (statement = this.db.prepare(text)))
    return statement
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  /** The stat of each indexed file of a space, by path. */
  stats(spaceId: string): Map<string, string> {
    const rows = this.sql('SELECT path, stat FROM search_files WHERE space_id = ?').all(spaceId) as Array<{ path: string; stat: string }>
    return new Map(rows.map((r) => [r.path, r.stat]))
  }

  /** Puts (or replaces) a file's text; `stat` is '' when its stat cannot vouch for it (read again next time). */
  put(spaceId: string, path: string, stat: string, text: IndexedText): void {
    const row = this.sql('SELECT id FROM search_files WHERE space_id = ? AND path = ?').get(spaceId, path) as { id: number } | undefined
    if (row) {
      this.sql('UPDATE search_files SET stat = ?, title = ? WHERE id = ?').run(stat, text.title, row.id)
      this.sql('DELETE FROM search_text WHERE rowid = ?').run(row.id)
      this.sql('INSERT INTO search_text (rowid, title, headings, body) VALUES (?, ?, ?, ?)').run(row.id, text.title, text.headings, text.body)
      return
    }
    const id = this.sql('INSERT INTO search_files (space_id, path, stat, title) VALUES (?, ?, ?, ?)').run(spaceId, path, stat, text.title).lastInsertRowid
    this.sql('INSERT INTO search_text (rowid, title, headings, body) VALUES (?, ?, ?, ?)').run(id, text.title, text.headings, text.body)
  }

  /** Only the stat changed (a touch, or a rewrite with the same bytes): the text stays. */
  restat(spaceId: string, path: string, stat: string): void {
    this.sql('UPDATE search_files SET stat = ? WHERE space_id = ? AND path = ?').run(stat, spaceId, path)
  }

  remove(spaceId: string, path: string): void {
    const row = this.sql('SELECT id FROM search_files WHERE space_id = ? AND path = ?').get(spaceId, path) as { id: number } | undefined
    if (!row) return
    this.sql('DELETE FROM search_text WHERE rowid = ?').run(row.id)
    this.sql('DELETE FROM search_files WHERE id = ?').run(row.id)
  }

  /** Every row of a space (its folder is gone, or the space is no longer synced). */
  removeSpace(spaceId: string): void {
    this.sql('DELETE FROM search_text WHERE rowid IN (SELECT id FROM search_files WHERE space_id = ?)').run(spaceId)
    this.sql('DELETE FROM search_files WHERE space_id = ?').run(spaceId)
  }

  /** Spaces that have rows. */
  spaces(): string[] {
    return (this.sql('SELECT DISTINCT space_id FROM search_files').all() as Array<{ space_id: string }>).map((r) => r.space_id)
  }

  /**
   * The best `limit` files of `spaceIds` for an FTS5 expression (already escaped: search/query-syntax.ts),
   * best first by bm25 with the title and heading weights.
   */
  query(match: string, spaceIds: readonly string[], limit: number): IndexHit[] {
    if (spaceIds.length === 0) return []
    // Ranked first, marked after: highlight() re-reads a row's text, so only the few kept pay for it.
    // CROSS JOIN keeps the full-text match the outer loop: a `rowid IN (...)` would run it once a row.
    const ranked = this.sql(
      `SELECT t.rowid AS id, bm25(search_text, ${TITLE_WEIGHT}, ${HEADING_WEIGHT}, ${BODY_WEIGHT}) AS rank
       FROM search_text t CROSS JOIN search_files f ON f.id = t.rowid
       WHERE search_text MATCH ? AND f.space_id IN (SELECT value FROM json_each(?))
       ORDER BY rank LIMIT ?`,
    ).all(match, JSON.stringify(spaceIds), limit) as Array<{ id: number; rank: number }>
    if (ranked.length === 0) return []
    const marked = this.sql(
      `SELECT t.rowid AS id, f.space_id AS spaceId, f.path AS path, f.title AS title, highlight(search_text, 2, ?, ?) AS marked
       FROM search_text t JOIN search_files f ON f.id = t.rowid
       WHERE search_text MATCH ? AND t.rowid IN (SELECT value FROM json_each(?))`,
    ).all(MATCH_OPEN, MATCH_CLOSE, match, JSON.stringify(ranked.map((r) => r.id))) as Array<Omit<IndexHit, 'rank'> & { id: number }>
    const byId = new Map(marked.map((m) => [m.id, m]))
    return ranked.flatMap((r) => {
      const m = byId.get(r.id)
      return m ? [{ spaceId: m.spaceId, path: m.path, title: m.title, rank: r.rank, marked: m.marked }] : []
    })
  }

  /** Rows in the index, all spaces. */
  size(): number {
    return (this.sql('SELECT count(*) AS n FROM search_files').get() as { n: number }).n
  }
}

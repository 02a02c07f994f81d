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


/**
 * The search index of the client cache (`search_files` and the FTS5 table `search_text`): every SQL
 * statement about them. A file row holds the stat its file had when it was read; the text row shares
 * its id. Statements are prepared once per index.
 */
export class SearchIndexTable {
  private readonly statements = new Map<string, Database.Statement>()
  /** The spaces that have rows, read once: a query of all of them needs no filter by space. */
  private indexedSpaces?: Set<string>

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

  /** The stat one file was indexed with; undefined when it is not indexed. */
  stat(spaceId: string, path: string): string | undefined {
    return (this.sql('SELECT stat FROM search_files WHERE space_id = ? AND path = ?').get(spaceId, path) as { stat: string } | undefined)?.stat
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
    this.indexedSpaces?.add(spaceId)
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
    this.indexedSpaces?.delete(spaceId)
  }

  /** Spaces that have rows. */
  spaces(): string[] {
    this.indexedSpaces ??= new Set((this.sql('SELECT DISTINCT space_id FROM search_files').all() as Array<{ space_id: string }>).map((r) => r.space_id))
    return [...this.indexedSpaces]
  }

  /**
   * The best `limit` files of `spaceIds` for an FTS5 expression (already escaped: search/query-syntax.ts),
   * best first by bm25 with the title and heading weights.
   *
   * The pages matching in their title or headings are ranked first, alone: when they are `limit` or more,
   * they are the answer. bm25 scores every match, so a word most pages hold (which bm25 itself weighs at
   * almost nothing) would cost a score a page; its title and heading matches are few, and outrank the
   * rest by their weights anyway. Otherwise every match is ranked.
   */
  query(match: string, spaceIds: readonly string[], limit: number): IndexHit[] {
    if (spaceIds.length === 0) return []
    // Ranked first, marked after: highlight() re-reads a row's text, so only the few kept pay for it.
    // `rank` is the table's bm25 with the title and heading weights (migration 007), sorted by FTS5.
    // Asked of every space there is (the usual search), no row needs its space looked up; else the file
    // rows are joined, the full-text match kept the outer loop (CROSS JOIN: a `rowid IN (...)` would
    // run the match once a row).
    const asked = new Set(spaceIds)
    const all = this.spaces().every((id) => asked.has(id))
    const rank = (expression: string) =>
      (all
        ? this.sql('SELECT rowid AS id, rank FROM search_text WHERE search_text MATCH ? ORDER BY rank LIMIT ?').all(expression, limit)
        : this.sql(
            `SELECT t.rowid AS id, t.rank AS rank FROM search_text t CROSS JOIN search_files f ON f.id = t.rowid
             WHERE search_text MATCH ? AND f.space_id IN (SELECT value FROM json_each(?)) ORDER BY t.rank LIMIT ?`,
          ).all(expression, JSON.stringify(spaceIds), limit)) as Array<{ id: number; rank: number }>
    const expression = match
    const heads = rank(`{title headings} : (${match})`)
    const ranked = heads.length >= limit ? heads : rank(expression)
    if (ranked.length === 0) return []
    const marked = this.sql(
      `SELECT t.rowid AS id, f.space_id AS spaceId, f.path AS path, f.title AS title, highlight(search_text, 2, ?, ?) AS marked
       FROM search_text t JOIN search_files f ON f.id = t.rowid
       WHERE search_text MATCH ? AND t.rowid IN (SELECT value FROM json_each(?))`,
    ).all(MATCH_OPEN, MATCH_CLOSE, expression, JSON.stringify(ranked.map((r) => r.id))) as Array<Omit<IndexHit, 'rank'> & { id: number }>
    const byId = new Map(marked.map((m) => [m.id, m]))
    return ranked.flatMap((r) => {
      const m = byId.get(r.id)
      // A space another process indexed since this one read the list is not filtered above: it is here.
      return m && asked.has(m.spaceId) ? [{ spaceId: m.spaceId, path: m.path, title: m.title, rank: r.rank, marked: m.marked }] : []
    })
  }

  /** Rows in the index, all spaces. */
  size(): number {
    return (this.sql('SELECT count(*) AS n FROM search_files').get() as { n: number }).n
  }
}

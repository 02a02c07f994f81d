import type Database from 'better-sqlite3'
import { StatementCache } from './statement-cache'

/**
 * The merge bases of pages: the text sync down wrote for a page, by the service's oid of it, so a push
 * can merge the writer's edits with main's block by block (the journal holds only hashes). The only
 * module that touches the `page_bases` table. A text stays while a journal entry names its oid.
 */
export class PageBases {
  private readonly statements: StatementCache

  constructor(db: Database.Database) {
    this.statements = new StatementCache(db)
  }

  private statement(sql: string): Database.Statement {
    return this.statements.statement(sql)
  }

  /** Keeps `text` as the page text of remote version `oid`. */
  remember(spaceId: string, oid: string, text: string) {
    if (oid === '') return
    this.statement('INSERT INTO page_bases (space_id, oid, text) VALUES (?, ?, ?) ON CONFLICT(space_id, oid) DO NOTHING').run(spaceId, oid, text)
  }

  text(spaceId: string, oid: string): string | undefined {
    const row = this.statement('SELECT text FROM page_bases WHERE space_id = ? AND oid = ?').get(spaceId, oid) as { text: string } | undefined
    return row?.text
  }

  /** Drops the texts no journal entry of the space names any more. */
  prune(spaceId: string): number {
    return this.statement(
      `DELETE FROM page_bases WHERE space_id = @spaceId
         AND oid NOT IN (SELECT synced_oid FROM pages WHERE space_id = @spaceId AND local_path IS NOT NULL AND synced_oid IS NOT NULL)`,
    ).run({ spaceId }).changes
  }
}

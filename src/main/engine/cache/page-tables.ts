import type { EntryKind, JournalEntry } from './journal-types'
import { CacheTable, num, str, type Row } from './cache-table'

export interface RemotePageRow {
  id: string
  parentId?: string
  position: number
  kind: string
  title: string
  slug?: string
  gitPath?: string
  gitOid?: string
}

export interface RemoteFileRow {
  id: string
  name: string
  contentType?: string
  size?: number
  downloadUrl?: string
  gitPath?: string
  gitOid?: string
}

export interface PageLocation {
  id: string
  title: string
  gitPath?: string
  localPath?: string
}

/** SUMMARY.md is journaled among files under an id no service hands out. */
export const SUMMARY_ENTRY_ID = 'quire:summary'

/**
 * The `revisions`, `pages` and `files` tables: the remote tree of the last revision seen, and the
 * journal (what is on disk, and the content hash it was written with: the merge base).
 */
export class PageTables extends CacheTable {
  recordRevision(spaceId: string, revision: { id: string; parents: string[]; createdAt?: string }) {
    this.statement(
      `INSERT INTO revisions (id, space_id, parents, created_at, fetched_at) VALUES (?, ?, ?, ?, ?)
       ON CONFLICT(id) DO UPDATE SET fetched_at = excluded.fetched_at`,
    ).run(revision.id, spaceId, JSON.stringify(revision.parents), revision.createdAt ?? null, this.now())
  }

  /**
   * Stores the remote tree of a revision. Rows of pages and files the revision no longer has are dropped,
   * unless a local file still stands for them (a local edit a pass kept): those are marked removed.
   */
  replaceRemoteTree(spaceId: string, pages: RemotePageRow[], files: RemoteFileRow[]) {
    this.transaction(() => {
      for (const table of ['pages', 'files'] as const) {
        this.statement(`UPDATE ${table} SET removed = 1 WHERE space_id = ? AND id != ?`).run(spaceId, SUMMARY_ENTRY_ID)
      }
      const page = this.statement(
        `INSERT INTO pages (space_id, id, parent_id, position, kind, title, slug, git_path, git_oid, removed)
         VALUES (@spaceId, @id, @parentId, @position, @kind, @title, @slug, @gitPath, @gitOid, 0)
         ON CONFLICT(space_id, id) DO UPDATE SET parent_id = excluded.parent_id, position = excluded.position, kind = excluded.kind,
           title = excluded.title, slug = excluded.slug, git_path = excluded.git_path, git_oid = excluded.git_oid, removed = 0`,
      )
      for (const p of pages) {
        page.run({ spaceId, ...p, parentId: p.parentId ?? null, slug: p.slug ?? null, gitPath: p.gitPath ?? null, gitOid: p.gitOid ?? null })
      }
      const file = this.statement(
        `INSERT INTO files (space_id, id, name, content_type, size, download_url, git_path, git_oid, removed)
         VALUES (@spaceId, @id, @name, @contentType, @size, @downloadUrl, @gitPath, @gitOid, 0)
         ON CONFLICT(space_id, id) DO UPDATE SET name = excluded.name, content_type = excluded.content_type, size = excluded.size,
           download_url = excluded.download_url, git_path = excluded.git_path, git_oid = excluded.git_oid, removed = 0`,
      )
      for (const f of files) {
        file.run({
          spaceId,
          ...f,
          contentType: f.contentType ?? null,
          size: f.size ?? null,
          downloadUrl: f.downloadUrl ?? null,
          gitPath: f.gitPath ?? null,
          gitOid: f.gitOid ?? null,
        })
      }
      for (const table of ['pages', 'files'] as const) {
        this.statement(`DELETE FROM ${table} WHERE space_id = ? AND removed = 1 AND local_path IS NULL`).run(spaceId)
      }
    })
  }

  /**
   * Sync up (push/main-difference.ts): pages main edited in place since the stored tree (a new text or
   * title; no page moved, added or removed), so main's view follows a teammate's merge without the tree.
   */
  updateRemotePages(spaceId: string, pages: ReadonlyArray<{ id: string; title: string; gitOid: string }>) {
    this.transaction(() => {
      const update = this.statement('UPDATE pages SET title = ?, git_oid = ? WHERE space_id = ? AND id = ? AND removed = 0')
      for (const p of pages) update.run(p.title, p.gitOid, spaceId, p.id)
    })
  }

  /** Document pages of the remote tree (for status). */
  pageCount(spaceId: string): number {
    const row = this.statement("SELECT COUNT(*) AS n FROM pages WHERE space_id = ? AND removed = 0 AND git_path IS NOT NULL").get(spaceId) as Row
    return Number(row.n)
  }

  pageLocation(spaceId: string, pageId: string): PageLocation | undefined {
    const row = this.statement('SELECT id, title, git_path, local_path FROM pages WHERE space_id = ? AND id = ?').get(spaceId, pageId) as Row | undefined
    return row && { id: String(row.id), title: String(row.title), gitPath: str(row.git_path), localPath: str(row.local_path) }
  }

  /** Sync up (hook): the remote tree as the last pass stored it — parents, order, slugs, git oids. */
  remoteTree(spaceId: string): { pages: RemotePageRow[]; files: RemoteFileRow[] } {
    const pages = (this.statement('SELECT * FROM pages WHERE space_id = ? AND removed = 0 AND id != ? ORDER BY parent_id, position').all(spaceId, SUMMARY_ENTRY_ID) as Row[]).map(
      (row): RemotePageRow => ({
        id: String(row.id),
        parentId: str(row.parent_id),
        position: Number(row.position),
        kind: String(row.kind),
        title: String(row.title),
        slug: str(row.slug),
        gitPath: str(row.git_path),
        gitOid: str(row.git_oid),
      }),
    )
    const files = (this.statement('SELECT * FROM files WHERE space_id = ? AND removed = 0 AND id != ?').all(spaceId, SUMMARY_ENTRY_ID) as Row[]).map(
      (row): RemoteFileRow => ({
        id: String(row.id),
        name: String(row.name),
        contentType: str(row.content_type),
        size: num(row.size),
        downloadUrl: str(row.download_url),
        gitPath: str(row.git_path),
        gitOid: str(row.git_oid),
      }),
    )
    return { pages, files }
  }

  /* The journal */

  journal(spaceId: string): JournalEntry[] {
    const select = (table: 'pages' | 'files') =>
      this.statement(`SELECT id, local_path, synced_oid, base_hash FROM ${table} WHERE space_id = ? AND local_path IS NOT NULL`).all(spaceId) as Row[]
    const of = (kind: (id: string) => EntryKind) => (row: Row): JournalEntry => ({
      id: String(row.id),
      kind: kind(String(row.id)),
      path: String(row.local_path),
      oid: String(row.synced_oid ?? ''),
      baseHash: String(row.base_hash ?? ''),
    })
    return [...select('pages').map(of(() => 'page')), ...select('files').map(of((id) => (id === SUMMARY_ENTRY_ID ? 'summary' : 'file')))]
  }

  /** How many entries the journal holds (a count, for the check that none was lost: see `journalIntact`). */
  journalSize(spaceId: string): number {
    const count = (table: 'pages' | 'files') => Number((this.statement(`SELECT COUNT(*) AS n FROM ${table} WHERE space_id = ? AND local_path IS NOT NULL`).get(spaceId) as Row).n)
    return count('pages') + count('files')
  }

  /** Records that `entry.path` now holds content `entry.baseHash` (remote version `entry.oid`). */
  recordJournal(spaceId: string, entry: JournalEntry) {
    const table = entry.kind === 'page' ? 'pages' : 'files'
    // Inside a caller's transaction (a pass journals its steps in batches) no savepoint of its own: a
    // failure here fails that whole transaction, so the statements need no undo apart; that spares two
    // statements per file of a mirror.
    const atomically = (work: () => void) => (this.db.inTransaction ? work() : this.transaction(work))
    atomically(() => {
      // Whoever was last written at a path owns it; an older claim (a file the user removed) is dropped.
      for (const t of ['pages', 'files'] as const) {
        this.statement(`UPDATE ${t} SET local_path = NULL WHERE space_id = ? AND local_path = ? AND id != ?`).run(spaceId, entry.path, entry.id)
      }
      const params = { spaceId, id: entry.id, path: entry.path, oid: entry.oid, hash: entry.baseHash }
      if (table === 'pages') {
        this.statement(
          `INSERT INTO pages (space_id, id, position, kind, title, local_path, synced_oid, base_hash)
           VALUES (@spaceId, @id, 0, 'document', '', @path, @oid, @hash)
           ON CONFLICT(space_id, id) DO UPDATE SET local_path = excluded.local_path, synced_oid = excluded.synced_oid, base_hash = excluded.base_hash`,
        ).run(params)
      } else {
        this.statement(
          `INSERT INTO files (space_id, id, name, local_path, synced_oid, base_hash)
           VALUES (@spaceId, @id, @name, @path, @oid, @hash)
           ON CONFLICT(space_id, id) DO UPDATE SET local_path = excluded.local_path, synced_oid = excluded.synced_oid, base_hash = excluded.base_hash`,
        ).run({ ...params, name: entry.path.split('/').pop() ?? entry.path })
      }
    })
  }

  /** The entry no longer has a local file. */
  forgetJournal(spaceId: string, id: string, kind: EntryKind) {
    const table = kind === 'page' ? 'pages' : 'files'
    this.transaction(() => {
      this.statement(`UPDATE ${table} SET local_path = NULL, synced_oid = NULL, base_hash = NULL WHERE space_id = ? AND id = ?`).run(spaceId, id)
      this.statement(`DELETE FROM ${table} WHERE space_id = ? AND id = ? AND (removed = 1 OR id = ?)`).run(spaceId, id, SUMMARY_ENTRY_ID)
    })
  }
}

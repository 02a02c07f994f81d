import { CacheTable, str, type Row } from './cache-table'

export interface OrganizationRow {
  id: string
  accountId: string
  title: string
  folder?: string
  selected: boolean
}

export interface CollectionRow {
  id: string
  orgId: string
  parentId?: string
  title: string
  selected: boolean
}

/** `conflict` (sync up): a conflicted copy waits for the writer. */
export type SpaceState = 'idle' | 'syncing' | 'synced' | 'offline' | 'error' | 'conflict'

/** Work a pass could not do, kept for `quire status` (held-back remote changes, blocked paths, failures). */
export interface SpaceIssue {
  kind: 'local-edit' | 'path-occupied' | 'failed' | 'mass-delete'
  path?: string
  message: string
}

export interface SpaceRow {
  id: string
  orgId: string
  collectionId?: string
  title: string
  folder?: string
  selected: boolean
  remoteRevision?: string
  syncedRevision?: string
  state: SpaceState
  lastSyncAt?: string
  lastError?: string
  issues: SpaceIssue[]
}

function parseIssues(data: unknown): SpaceIssue[] {
  try {
    const parsed = JSON.parse(String(data ?? '{}')) as { issues?: SpaceIssue[] }
    return Array.isArray(parsed.issues) ? parsed.issues : []
  } catch {
    return []
  }
}

/** The `organizations`, `collections` and `spaces` tables, and the selection across them. */
export class SpaceTables extends CacheTable {
  upsertOrganization(org: { id: string; accountId: string; title: string }) {
    this.statement(
      `INSERT INTO organizations (id, account_id, title) VALUES (@id, @accountId, @title)
       ON CONFLICT(id) DO UPDATE SET title = excluded.title, account_id = excluded.account_id`,
    ).run(org)
  }

  organization(id: string): OrganizationRow | undefined {
    const row = this.statement('SELECT * FROM organizations WHERE id = ?').get(id) as Row | undefined
    return row && this.orgOf(row)
  }

  organizations(accountId: string): OrganizationRow[] {
    return (this.statement('SELECT * FROM organizations WHERE account_id = ? ORDER BY title, id').all(accountId) as Row[]).map((r) => this.orgOf(r))
  }

  setOrganizationFolder(id: string, folder: string) {
    this.statement('UPDATE organizations SET folder = ? WHERE id = ?').run(folder, id)
  }

  private orgOf(row: Row): OrganizationRow {
    return { id: String(row.id), accountId: String(row.account_id), title: String(row.title), folder: str(row.folder), selected: row.selected === 1 }
  }

  upsertCollection(c: { id: string; orgId: string; parentId?: string; title: string }) {
    this.statement(
      `INSERT INTO collections (id, org_id, parent_id, title) VALUES (@id, @orgId, @parentId, @title)
       ON CONFLICT(id) DO UPDATE SET org_id = excluded.org_id, parent_id = excluded.parent_id, title = excluded.title`,
    ).run({ ...c, parentId: c.parentId ?? null })
  }

  collections(orgId: string): CollectionRow[] {
    return (this.statement('SELECT * FROM collections WHERE org_id = ? ORDER BY title, id').all(orgId) as Row[]).map((row) => ({
      id: String(row.id),
      orgId: String(row.org_id),
      parentId: str(row.parent_id),
      title: String(row.title),
      selected: row.selected === 1,
    }))
  }

  /** Remote facts only: the folder, selection and sync state are kept. */
  upsertSpace(s: { id: string; orgId: string; collectionId?: string; title: string; remoteRevision?: string }) {
    this.statement(
      `INSERT INTO spaces (id, org_id, collection_id, title, remote_revision) VALUES (@id, @orgId, @collectionId, @title, @remoteRevision)
       ON CONFLICT(id) DO UPDATE SET org_id = excluded.org_id, collection_id = excluded.collection_id, title = excluded.title,
         remote_revision = COALESCE(excluded.remote_revision, spaces.remote_revision)`,
    ).run({ ...s, collectionId: s.collectionId ?? null, remoteRevision: s.remoteRevision ?? null })
  }

  space(id: string): SpaceRow | undefined {
    const row = this.statement('SELECT * FROM spaces WHERE id = ?').get(id) as Row | undefined
    return row && this.spaceOf(row)
  }

  spaces(orgId?: string): SpaceRow[] {
    const rows = orgId
      ? (this.statement('SELECT * FROM spaces WHERE org_id = ? ORDER BY title, id').all(orgId) as Row[])
      : (this.statement('SELECT * FROM spaces ORDER BY title, id').all() as Row[])
    return rows.map((r) => this.spaceOf(r))
  }

  /**
   * Spaces a pass syncs: chosen one by one, or inside a chosen organization or collection (nested
   * collections included), so a space created later in a chosen place is synced too.
   */
  selectedSpaces(): SpaceRow[] {
    const rows = this.statement(
      `WITH RECURSIVE chosen(id) AS (
         SELECT id FROM collections WHERE selected = 1
         UNION SELECT c.id FROM collections c JOIN chosen ON c.parent_id = chosen.id
       )
       SELECT s.* FROM spaces s JOIN organizations o ON o.id = s.org_id
       WHERE s.selected = 1 OR o.selected = 1 OR s.collection_id IN (SELECT id FROM chosen)
       ORDER BY o.title, s.title, s.id`,
    ).all() as Row[]
    return rows.map((r) => this.spaceOf(r))
  }

  /** Replaces the selection: exactly these organizations, collections and spaces. */
  setSelection(selection: { organizations?: string[]; collections?: string[]; spaces?: string[] }) {
    this.transaction(() => {
      this.statement('UPDATE organizations SET selected = 0').run()
      this.statement('UPDATE collections SET selected = 0').run()
      this.statement('UPDATE spaces SET selected = 0').run()
      for (const id of selection.organizations ?? []) this.statement('UPDATE organizations SET selected = 1 WHERE id = ?').run(id)
      for (const id of selection.collections ?? []) this.statement('UPDATE collections SET selected = 1 WHERE id = ?').run(id)
      for (const id of selection.spaces ?? []) this.statement('UPDATE spaces SET selected = 1 WHERE id = ?').run(id)
    })
  }

  hasSelection(): boolean {
    const row = this.statement(
      `SELECT (SELECT COUNT(*) FROM organizations WHERE selected = 1) + (SELECT COUNT(*) FROM collections WHERE selected = 1)
         + (SELECT COUNT(*) FROM spaces WHERE selected = 1) AS n`,
    ).get() as Row
    return Number(row.n) > 0
  }

  /** Whether the selection names organizations or collections (whose spaces are only known by listing them). */
  selectionNeedsDiscovery(): boolean {
    const row = this.statement('SELECT (SELECT COUNT(*) FROM organizations WHERE selected = 1) + (SELECT COUNT(*) FROM collections WHERE selected = 1) AS n').get() as Row
    return Number(row.n) > 0
  }

  setSpaceFolder(id: string, folder: string) {
    this.statement('UPDATE spaces SET folder = ? WHERE id = ?').run(folder, id)
  }

  setSpaceState(id: string, state: SpaceState, extra: { lastError?: string | null; issues?: SpaceIssue[]; syncedRevision?: string; lastSyncAt?: string } = {}) {
    const current = this.space(id)
    if (!current) return
    this.statement(
      `UPDATE spaces SET state = @state, last_error = @lastError, synced_revision = @syncedRevision, last_sync_at = @lastSyncAt,
         data = json_set(data, '$.issues', json(@issues)) WHERE id = @id`,
    ).run({
        id,
        state,
        lastError: extra.lastError === undefined ? (current.lastError ?? null) : extra.lastError,
        syncedRevision: extra.syncedRevision ?? current.syncedRevision ?? null,
        lastSyncAt: extra.lastSyncAt ?? current.lastSyncAt ?? null,
        issues: JSON.stringify(extra.issues ?? current.issues),
      })
  }

  private spaceOf(row: Row): SpaceRow {
    return {
      id: String(row.id),
      orgId: String(row.org_id),
      collectionId: str(row.collection_id),
      title: String(row.title),
      folder: str(row.folder),
      selected: row.selected === 1,
      remoteRevision: str(row.remote_revision),
      syncedRevision: str(row.synced_revision),
      state: String(row.state) as SpaceState,
      lastSyncAt: str(row.last_sync_at),
      lastError: str(row.last_error),
      issues: parseIssues(row.data),
    }
  }
}

import type Database from 'better-sqlite3'
import type { EntryKind, JournalEntry } from './journal-types'
import { PageBases } from './page-bases'

/**
 * Every SQL statement of the client cache. Callers see plain objects; nothing else in the engine or the
 * CLI touches the database.
 */

export type TokenStoreKind = 'macos-keychain' | 'secret-tool' | 'file'

export interface AccountRow {
  id: string
  endpoint: string
  userId: string
  displayName: string
  email?: string
  tokenStore: TokenStoreKind
  createdAt: string
}

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

export interface SyncRunRow {
  spaceId: string
  targetRevision: string
  startedAt: string
  total: number
  completed: number
}

export interface LinkReportRow {
  spaceId: string
  revisionId: string
  fetchedAt: string
  items: unknown[]
}

/** SUMMARY.md is journaled among files under an id no service hands out. */
export const SUMMARY_ENTRY_ID = 'quire:summary'

type Row = Record<string, unknown>
const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))
const num = (v: unknown): number | undefined => (v === null || v === undefined ? undefined : Number(v))

function parseIssues(data: unknown): SpaceIssue[] {
  try {
    const parsed = JSON.parse(String(data ?? '{}')) as { issues?: SpaceIssue[] }
    return Array.isArray(parsed.issues) ? parsed.issues : []
  } catch {
    return []
  }
}

export class CacheRepository {
  /** Statements run once per synced file, compiled once. */
  private readonly statements = new Map<string, Database.Statement>()

  constructor(
    private readonly db: Database.Database,
    private readonly now: () => string = () => new Date().toISOString(),
  ) {}

  private statement(sql: string): Database.Statement {
    let statement = this.statements.get(sql)
    if (!statement) this.statements.set(sql, (statement = this.db.prepare(sql)))
    return statement
  }

  transaction<T>(fn: () => T): T {
    return this.db.transaction(fn)()
  }

  private bases?: PageBases

  /** The page texts the journal's oids stand for (merge bases of sync up). */
  get pageBases(): PageBases {
    return (this.bases ??= new PageBases(this.db))
  }

  close() {
    this.db.close()
  }

  /* Settings */

  setting(key: string): string | undefined {
    return str((this.db.prepare('SELECT value FROM settings WHERE key = ?').get(key) as Row | undefined)?.value)
  }

  setSetting(key: string, value: string) {
    this.db.prepare('INSERT INTO settings (key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value)
  }

  /* Accounts: one is active at a time. */

  saveAccount(account: Omit<AccountRow, 'createdAt'>): AccountRow {
    return this.transaction(() => {
      this.db.prepare('UPDATE accounts SET active = 0').run()
      this.db
        .prepare(
          `INSERT INTO accounts (id, endpoint, user_id, display_name, email, token_store, active, created_at)
           VALUES (@id, @endpoint, @userId, @displayName, @email, @tokenStore, 1, @createdAt)
           ON CONFLICT(id) DO UPDATE SET endpoint = excluded.endpoint, display_name = excluded.display_name,
             email = excluded.email, token_store = excluded.token_store, active = 1`,
        )
        .run({ ...account, email: account.email ?? null, createdAt: this.now() })
      return this.activeAccount()!
    })
  }

  activeAccount(): AccountRow | undefined {
    const row = this.db.prepare('SELECT * FROM accounts WHERE active = 1').get() as Row | undefined
    return row && this.accountOf(row)
  }

  /** Signs out: the journal of what was synced stays, so signing in again resumes without re-downloading. */
  deactivateAccount(id: string) {
    this.db.prepare('UPDATE accounts SET active = 0 WHERE id = ?').run(id)
  }

  private accountOf(row: Row): AccountRow {
    return {
      id: String(row.id),
      endpoint: String(row.endpoint),
      userId: String(row.user_id),
      displayName: String(row.display_name),
      email: str(row.email),
      tokenStore: String(row.token_store) as TokenStoreKind,
      createdAt: String(row.created_at),
    }
  }

  /* Organizations, collections, spaces */

  upsertOrganization(org: { id: string; accountId: string; title: string }) {
    this.db
      .prepare(
        `INSERT INTO organizations (id, account_id, title) VALUES (@id, @accountId, @title)
         ON CONFLICT(id) DO UPDATE SET title = excluded.title, account_id = excluded.account_id`,
      )
      .run(org)
  }

  organization(id: string): OrganizationRow | undefined {
    const row = this.db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as Row | undefined
    return row && this.orgOf(row)
  }

  organizations(accountId: string): OrganizationRow[] {
    return (this.db.prepare('SELECT * FROM organizations WHERE account_id = ? ORDER BY title, id').all(accountId) as Row[]).map((r) => this.orgOf(r))
  }

  setOrganizationFolder(id: string, folder: string) {
    this.db.prepare('UPDATE organizations SET folder = ? WHERE id = ?').run(folder, id)
  }

  private orgOf(row: Row): OrganizationRow {
    return { id: String(row.id), accountId: String(row.account_id), title: String(row.title), folder: str(row.folder), selected: row.selected === 1 }
  }

  upsertCollection(c: { id: string; orgId: string; parentId?: string; title: string }) {
    this.db
      .prepare(
        `INSERT INTO collections (id, org_id, parent_id, title) VALUES (@id, @orgId, @parentId, @title)
         ON CONFLICT(id) DO UPDATE SET org_id = excluded.org_id, parent_id = excluded.parent_id, title = excluded.title`,
      )
      .run({ ...c, parentId: c.parentId ?? null })
  }

  collections(orgId: string): CollectionRow[] {
    return (this.db.prepare('SELECT * FROM collections WHERE org_id = ? ORDER BY title, id').all(orgId) as Row[]).map((row) => ({
      id: String(row.id),
      orgId: String(row.org_id),
      parentId: str(row.parent_id),
      title: String(row.title),
      selected: row.selected === 1,
    }))
  }

  /** Remote facts only: the folder, selection and sync state are kept. */
  upsertSpace(s: { id: string; orgId: string; collectionId?: string; title: string; remoteRevision?: string }) {
    this.db
      .prepare(
        `INSERT INTO spaces (id, org_id, collection_id, title, remote_revision) VALUES (@id, @orgId, @collectionId, @title, @remoteRevision)
         ON CONFLICT(id) DO UPDATE SET org_id = excluded.org_id, collection_id = excluded.collection_id, title = excluded.title,
           remote_revision = COALESCE(excluded.remote_revision, spaces.remote_revision)`,
      )
      .run({ ...s, collectionId: s.collectionId ?? null, remoteRevision: s.remoteRevision ?? null })
  }

  space(id: string): SpaceRow | undefined {
    const row = this.db.prepare('SELECT * FROM spaces WHERE id = ?').get(id) as Row | undefined
    return row && this.spaceOf(row)
  }

  spaces(orgId?: string): SpaceRow[] {
    const rows = orgId
      ? (this.db.prepare('SELECT * FROM spaces WHERE org_id = ? ORDER BY title, id').all(orgId) as Row[])
      : (this.db.prepare('SELECT * FROM spaces ORDER BY title, id').all() as Row[])
    return rows.map((r) => this.spaceOf(r))
  }

  /**
   * Spaces a pass syncs: chosen one by one, or inside a chosen organization or collection (nested
   * collections included), so a space created later in a chosen place is synced too.
   */
  selectedSpaces(): SpaceRow[] {
    const rows = this.db
      .prepare(
        `WITH RECURSIVE chosen(id) AS (
           SELECT id FROM collections WHERE selected = 1
           UNION SELECT c.id FROM collections c JOIN chosen ON c.parent_id = chosen.id
         )
         SELECT s.* FROM spaces s JOIN organizations o ON o.id = s.org_id
         WHERE s.selected = 1 OR o.selected = 1 OR s.collection_id IN (SELECT id FROM chosen)
         ORDER BY o.title, s.title, s.id`,
      )
      .all() as Row[]
    return rows.map((r) => this.spaceOf(r))
  }

  /** Replaces the selection: exactly these organizations, collections and spaces. */
  setSelection(selection: { organizations?: string[]; collections?: string[]; spaces?: string[] }) {
    this.transaction(() => {
      this.db.prepare('UPDATE organizations SET selected = 0').run()
      this.db.prepare('UPDATE collections SET selected = 0').run()
      this.db.prepare('UPDATE spaces SET selected = 0').run()
      for (const id of selection.organizations ?? []) this.db.prepare('UPDATE organizations SET selected = 1 WHERE id = ?').run(id)
      for (const id of selection.collections ?? []) this.db.prepare('UPDATE collections SET selected = 1 WHERE id = ?').run(id)
      for (const id of selection.spaces ?? []) this.db.prepare('UPDATE spaces SET selected = 1 WHERE id = ?').run(id)
    })
  }

  hasSelection(): boolean {
    const row = this.db
      .prepare(
        `SELECT (SELECT COUNT(*) FROM organizations WHERE selected = 1) + (SELECT COUNT(*) FROM collections WHERE selected = 1)
           + (SELECT COUNT(*) FROM spaces WHERE selected = 1) AS n`,
      )
      .get() as Row
    return Number(row.n) > 0
  }

  /** Whether the selection names organizations or collections (whose spaces are only known by listing them). */
  selectionNeedsDiscovery(): boolean {
    const row = this.db
      .prepare('SELECT (SELECT COUNT(*) FROM organizations WHERE selected = 1) + (SELECT COUNT(*) FROM collections WHERE selected = 1) AS n')
      .get() as Row
    return Number(row.n) > 0
  }

  setSpaceFolder(id: string, folder: string) {
    this.db.prepare('UPDATE spaces SET folder = ? WHERE id = ?').run(folder, id)
  }

  setSpaceState(id: string, state: SpaceState, extra: { lastError?: string | null; issues?: SpaceIssue[]; syncedRevision?: string; lastSyncAt?: string } = {}) {
    const current = this.space(id)
    if (!current) return
    this.db
      .prepare(
        `UPDATE spaces SET state = @state, last_error = @lastError, synced_revision = @syncedRevision, last_sync_at = @lastSyncAt,
           data = json_set(data, '$.issues', json(@issues)) WHERE id = @id`,
      )
      .run({
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

  /* Revisions and the remote tree */

  recordRevision(spaceId: string, revision: { id: string; parents: string[]; createdAt?: string }) {
    this.db
      .prepare(
        `INSERT INTO revisions (id, space_id, parents, created_at, fetched_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT(id) DO UPDATE SET fetched_at = excluded.fetched_at`,
      )
      .run(revision.id, spaceId, JSON.stringify(revision.parents), revision.createdAt ?? null, this.now())
  }

  /**
   * Stores the remote tree of a revision. Rows of pages and files the revision no longer has are dropped,
   * unless a local file still stands for them (a local edit a pass kept): those are marked removed.
   */
  replaceRemoteTree(spaceId: string, pages: RemotePageRow[], files: RemoteFileRow[]) {
    this.transaction(() => {
      for (const table of ['pages', 'files'] as const) {
        this.db.prepare(`UPDATE ${table} SET removed = 1 WHERE space_id = ? AND id != ?`).run(spaceId, SUMMARY_ENTRY_ID)
      }
      const page = this.db.prepare(
        `INSERT INTO pages (space_id, id, parent_id, position, kind, title, slug, git_path, git_oid, removed)
         VALUES (@spaceId, @id, @parentId, @position, @kind, @title, @slug, @gitPath, @gitOid, 0)
         ON CONFLICT(space_id, id) DO UPDATE SET parent_id = excluded.parent_id, position = excluded.position, kind = excluded.kind,
           title = excluded.title, slug = excluded.slug, git_path = excluded.git_path, git_oid = excluded.git_oid, removed = 0`,
      )
      for (const p of pages) {
        page.run({ spaceId, ...p, parentId: p.parentId ?? null, slug: p.slug ?? null, gitPath: p.gitPath ?? null, gitOid: p.gitOid ?? null })
      }
      const file = this.db.prepare(
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
        this.db.prepare(`DELETE FROM ${table} WHERE space_id = ? AND removed = 1 AND local_path IS NULL`).run(spaceId)
      }
    })
  }

  /** Document pages of the remote tree (for status). */
  pageCount(spaceId: string): number {
    const row = this.db.prepare("SELECT COUNT(*) AS n FROM pages WHERE space_id = ? AND removed = 0 AND git_path IS NOT NULL").get(spaceId) as Row
    return Number(row.n)
  }

  pageLocation(spaceId: string, pageId: string): PageLocation | undefined {
    const row = this.db.prepare('SELECT id, title, git_path, local_path FROM pages WHERE space_id = ? AND id = ?').get(spaceId, pageId) as Row | undefined
    return row && { id: String(row.id), title: String(row.title), gitPath: str(row.git_path), localPath: str(row.local_path) }
  }

  /** Sync up (hook): the remote tree as the last pass stored it — parents, order, slugs, git oids. */
  remoteTree(spaceId: string): { pages: RemotePageRow[]; files: RemoteFileRow[] } {
    const pages = (this.db.prepare('SELECT * FROM pages WHERE space_id = ? AND removed = 0 AND id != ? ORDER BY parent_id, position').all(spaceId, SUMMARY_ENTRY_ID) as Row[]).map(
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
    const files = (this.db.prepare('SELECT * FROM files WHERE space_id = ? AND removed = 0 AND id != ?').all(spaceId, SUMMARY_ENTRY_ID) as Row[]).map(
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

  /* The journal: what is on disk, and the content hash it was written with (the merge base). */

  journal(spaceId: string): JournalEntry[] {
    const select = (table: 'pages' | 'files') =>
      this.db.prepare(`SELECT id, local_path, synced_oid, base_hash FROM ${table} WHERE space_id = ? AND local_path IS NOT NULL`).all(spaceId) as Row[]
    const of = (kind: (id: string) => EntryKind) => (row: Row): JournalEntry => ({
      id: String(row.id),
      kind: kind(String(row.id)),
      path: String(row.local_path),
      oid: String(row.synced_oid ?? ''),
      baseHash: String(row.base_hash ?? ''),
    })
    return [...select('pages').map(of(() => 'page')), ...select('files').map(of((id) => (id === SUMMARY_ENTRY_ID ? 'summary' : 'file')))]
  }

  /** Records that `entry.path` now holds content `entry.baseHash` (remote version `entry.oid`). */
  recordJournal(spaceId: string, entry: JournalEntry) {
    const table = entry.kind === 'page' ? 'pages' : 'files'
    this.transaction(() => {
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
      this.db.prepare(`UPDATE ${table} SET local_path = NULL, synced_oid = NULL, base_hash = NULL WHERE space_id = ? AND id = ?`).run(spaceId, id)
      this.db.prepare(`DELETE FROM ${table} WHERE space_id = ? AND id = ? AND (removed = 1 OR id = ?)`).run(spaceId, id, SUMMARY_ENTRY_ID)
    })
  }

  /* Sync runs: an unfinished run means the space's last pass stopped part way. */

  startRun(spaceId: string, targetRevision: string, total: number) {
    this.db
      .prepare(
        `INSERT INTO sync_runs (space_id, target_revision, started_at, total, completed) VALUES (?, ?, ?, ?, 0)
         ON CONFLICT(space_id) DO UPDATE SET target_revision = excluded.target_revision, started_at = excluded.started_at,
           total = excluded.total, completed = 0`,
      )
      .run(spaceId, targetRevision, this.now(), total)
  }

  stepRun(spaceId: string, steps = 1) {
    this.statement('UPDATE sync_runs SET completed = completed + ? WHERE space_id = ?').run(steps, spaceId)
  }

  finishRun(spaceId: string) {
    this.db.prepare('DELETE FROM sync_runs WHERE space_id = ?').run(spaceId)
  }

  run(spaceId: string): SyncRunRow | undefined {
    const row = this.db.prepare('SELECT * FROM sync_runs WHERE space_id = ?').get(spaceId) as Row | undefined
    return (
      row && {
        spaceId: String(row.space_id),
        targetRevision: String(row.target_revision),
        startedAt: String(row.started_at),
        total: num(row.total) ?? 0,
        completed: num(row.completed) ?? 0,
      }
    )
  }

  /* Link reports */

  saveLinkReport(spaceId: string, revisionId: string, items: unknown[]) {
    this.db
      .prepare(
        `INSERT INTO link_reports (space_id, revision_id, fetched_at, data) VALUES (?, ?, ?, ?)
         ON CONFLICT(space_id) DO UPDATE SET revision_id = excluded.revision_id, fetched_at = excluded.fetched_at, data = excluded.data`,
      )
      .run(spaceId, revisionId, this.now(), JSON.stringify(items))
  }

  linkReport(spaceId: string): LinkReportRow | undefined {
    const row = this.db.prepare('SELECT * FROM link_reports WHERE space_id = ?').get(spaceId) as Row | undefined
    if (!row) return undefined
    const items = JSON.parse(String(row.data)) as unknown
    return { spaceId, revisionId: String(row.revision_id), fetchedAt: String(row.fetched_at), items: Array.isArray(items) ? items : [] }
  }
}

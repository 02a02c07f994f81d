import type Database from 'better-sqlite3'
import { AccountTable, type AccountRow, type TokenStoreKind } from './account-table'
import { CacheDatabase } from './cache-table'
import type { EntryKind, JournalEntry } from './journal-types'
import { PageBases } from './page-bases'
import { PageTables, type RemoteFileRow, type RemotePageRow } from './page-tables'
import { RunTables } from './run-tables'
import { SearchIndexTable } from './search-index'
import { SettingsTable } from './settings-table'
import { SpaceTables, type SpaceIssue, type SpaceState } from './space-tables'

export type { AccountRow, TokenStoreKind } from './account-table'
export type { CollectionRow, OrganizationRow, SpaceIssue, SpaceRow, SpaceState } from './space-tables'
export { SUMMARY_ENTRY_ID, type PageLocation, type RemoteFileRow, type RemotePageRow } from './page-tables'
export type { LinkReportRow, SyncRunRow } from './run-tables'

/**
 * The client cache, as the engine and the front ends see it: plain objects in and out, nothing else
 * touches the database. Each table's SQL lives in one module (settings, accounts, organizations /
 * collections / spaces, revisions / pages / files and the journal, sync runs and link reports, page
 * bases); this class hands each call to it, in one shared statement cache and clock.
 */
export class CacheRepository {
  private readonly cache: CacheDatabase
  private readonly settings: SettingsTable
  private readonly accounts: AccountTable
  private readonly spaceTables: SpaceTables
  private readonly pageTables: PageTables
  private readonly runs: RunTables
  private bases?: PageBases
  private search?: SearchIndexTable

  constructor(
    private readonly db: Database.Database,
    now: () => string = () => new Date().toISOString(),
  ) {
    this.cache = new CacheDatabase(db, now)
    this.settings = new SettingsTable(this.cache)
    this.accounts = new AccountTable(this.cache)
    this.spaceTables = new SpaceTables(this.cache)
    this.pageTables = new PageTables(this.cache)
    this.runs = new RunTables(this.cache)
  }

  transaction<T>(fn: () => T): T {
    return this.cache.transaction(fn)
  }

  /** The page texts the journal's oids stand for (merge bases of sync up). */
  get pageBases(): PageBases {
    return (this.bases ??= new PageBases(this.db))
  }

  /** The full-text index of the space folders' pages (engine/search). */
  get searchIndex(): SearchIndexTable {
    return (this.search ??= new SearchIndexTable(this.db))
  }

  close() {
    this.db.close()
  }

  /* Settings */

  setting(key: string) { return this.settings.setting(key) }
  setSetting(key: string, value: string) { return this.settings.setSetting(key, value) }

  /* Accounts: one is active at a time. */

  saveAccount(account: Omit<AccountRow, 'createdAt'>) { return this.accounts.saveAccount(account) }
  activeAccount() { return this.accounts.activeAccount() }
  /** Signs out: the journal of what was synced stays, so signing in again resumes without re-downloading. */
  deactivateAccount(id: string) { return this.accounts.deactivateAccount(id) }
  setTokenStore(id: string, kind: TokenStoreKind) { return this.accounts.setTokenStore(id, kind) }

  /* Organizations, collections, spaces, and the selection */

  upsertOrganization(org: { id: string; accountId: string; title: string }) { return this.spaceTables.upsertOrganization(org) }
  organization(id: string) { return this.spaceTables.organization(id) }
  organizations(accountId: string) { return this.spaceTables.organizations(accountId) }
  setOrganizationFolder(id: string, folder: string) { return this.spaceTables.setOrganizationFolder(id, folder) }
  upsertCollection(c: { id: string; orgId: string; parentId?: string; title: string }) { return this.spaceTables.upsertCollection(c) }
  collections(orgId: string) { return this.spaceTables.collections(orgId) }
  /** Remote facts only: the folder, selection and sync state are kept. */
  upsertSpace(s: { id: string; orgId: string; collectionId?: string; title: string; remoteRevision?: string }) { return this.spaceTables.upsertSpace(s) }
  space(id: string) { return this.spaceTables.space(id) }
  spaces(orgId?: string) { return this.spaceTables.spaces(orgId) }
  /** Spaces a pass syncs: chosen one by one, or inside a chosen organization or collection (nested collections included). */
  selectedSpaces() { return this.spaceTables.selectedSpaces() }
  /** Replaces the selection: exactly these organizations, collections and spaces. */
  setSelection(selection: { organizations?: string[]; collections?: string[]; spaces?: string[] }) { return this.spaceTables.setSelection(selection) }
  hasSelection() { return this.spaceTables.hasSelection() }
  /** Whether the selection names organizations or collections (whose spaces are only known by listing them). */
  selectionNeedsDiscovery() { return this.spaceTables.selectionNeedsDiscovery() }
  setSpaceFolder(id: string, folder: string) { return this.spaceTables.setSpaceFolder(id, folder) }
  setSpaceState(id: string, state: SpaceState, extra: { lastError?: string | null; issues?: SpaceIssue[]; syncedRevision?: string; lastSyncAt?: string } = {}) {
    return this.spaceTables.setSpaceState(id, state, extra)
  }

  /* Revisions and the remote tree */

  recordRevision(spaceId: string, revision: { id: string; parents: string[]; createdAt?: string }) { return this.pageTables.recordRevision(spaceId, revision) }
  /** The remote tree of a revision; rows it no longer has are dropped unless a local file still stands for them. */
  replaceRemoteTree(spaceId: string, pages: RemotePageRow[], files: RemoteFileRow[]) { this.bumpPages(spaceId); return this.pageTables.replaceRemoteTree(spaceId, pages, files) }
  /** Document pages of the remote tree (for status). */
  pageCount(spaceId: string) { return this.pageTables.pageCount(spaceId) }
  pageLocation(spaceId: string, pageId: string) { return this.pageTables.pageLocation(spaceId, pageId) }
  /** Sync up (hook): the remote tree as the last pass stored it — parents, order, slugs, git oids. */
  remoteTree(spaceId: string) { return this.pageTables.remoteTree(spaceId) }
  updateRemotePages(spaceId: string, pages: ReadonlyArray<{ id: string; title: string; gitOid: string }>) { this.bumpPages(spaceId); return this.pageTables.updateRemotePages(spaceId, pages) }

  /* The journal: what is on disk, and the content hash it was written with (the merge base). */

  journal(spaceId: string) { return this.pageTables.journal(spaceId) }
  journalSize(spaceId: string) { return this.pageTables.journalSize(spaceId) }
  /** Records that `entry.path` now holds content `entry.baseHash` (remote version `entry.oid`). */
  recordJournal(spaceId: string, entry: JournalEntry) { this.bumpPages(spaceId, true); return this.pageTables.recordJournal(spaceId, entry) }
  /** The entry no longer has a local file. */
  forgetJournal(spaceId: string, id: string, kind: EntryKind) { this.bumpPages(spaceId, true); return this.pageTables.forgetJournal(spaceId, id, kind) }
  /**
   * Changes whenever a space's remote tree or journal may have changed: this connection's writes of them
   * are counted, and any commit of another connection to the database (SQLite's data_version) counts too.
   * What push/space-pusher.ts keeps between plans (the journal, main's view, a plan that found nothing
   * to do) is read again when it moves.
   */
  pagesVersion(spaceId: string): string { return `${this.pageVersions.get(spaceId) ?? 0}:${String(this.db.pragma('data_version', { simple: true }))}` }
  /**
   * As pagesVersion, for the journal alone (main's view moving leaves it): sync down journals each file it
   * writes, so while it stays, the files of the folder changed only as the watcher reports (push/space-pusher.ts).
   */
  journalVersion(spaceId: string): string { return `${this.journalVersions.get(spaceId) ?? 0}:${String(this.db.pragma('data_version', { simple: true }))}` }
  private bumpPages(spaceId: string, journal = false) {
    this.pageVersions.set(spaceId, (this.pageVersions.get(spaceId) ?? 0) + 1)
    if (journal) this.journalVersions.set(spaceId, (this.journalVersions.get(spaceId) ?? 0) + 1)
  }
  private readonly pageVersions = new Map<string, number>()
  private readonly journalVersions = new Map<string, number>()

  /* Sync runs: an unfinished run means the space's last pass stopped part way. */

  startRun(spaceId: string, targetRevision: string, total: number) { return this.runs.startRun(spaceId, targetRevision, total) }
  stepRun(spaceId: string, steps = 1) { return this.runs.stepRun(spaceId, steps) }
  finishRun(spaceId: string) { return this.runs.finishRun(spaceId) }
  run(spaceId: string) { return this.runs.run(spaceId) }

  /* Link reports */

  saveLinkReport(spaceId: string, revisionId: string, items: unknown[]) { return this.runs.saveLinkReport(spaceId, revisionId, items) }
  linkReport(spaceId: string) { return this.runs.linkReport(spaceId) }
}

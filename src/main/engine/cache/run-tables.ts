import { CacheTable, num, type Row } from './cache-table'

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

/** The `sync_runs` table (an unfinished run means the space's last pass stopped part way) and `link_reports`. */
export class RunTables extends CacheTable {
  startRun(spaceId: string, targetRevision: string, total: number) {
    this.statement(
      `INSERT INTO sync_runs (space_id, target_revision, started_at, total, completed) VALUES (?, ?, ?, ?, 0)
       ON CONFLICT(space_id) DO UPDATE SET target_revision = excluded.target_revision, started_at = excluded.started_at,
         total = excluded.total, completed = 0`,
    ).run(spaceId, targetRevision, this.now(), total)
  }

  stepRun(spaceId: string, steps = 1) {
    this.statement('UPDATE sync_runs SET completed = completed + ? WHERE space_id = ?').run(steps, spaceId)
  }

  finishRun(spaceId: string) {
    this.statement('DELETE FROM sync_runs WHERE space_id = ?').run(spaceId)
  }

  run(spaceId: string): SyncRunRow | undefined {
    const row = this.statement('SELECT * FROM sync_runs WHERE space_id = ?').get(spaceId) as Row | undefined
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
    this.statement(
      `INSERT INTO link_reports (space_id, revision_id, fetched_at, data) VALUES (?, ?, ?, ?)
       ON CONFLICT(space_id) DO UPDATE SET revision_id = excluded.revision_id, fetched_at = excluded.fetched_at, data = excluded.data`,
    ).run(spaceId, revisionId, this.now(), JSON.stringify(items))
  }

  linkReport(spaceId: string): LinkReportRow | undefined {
    const row = this.statement('SELECT * FROM link_reports WHERE space_id = ?').get(spaceId) as Row | undefined
    if (!row) return undefined
    const items = JSON.parse(String(row.data)) as unknown
    return { spaceId, revisionId: String(row.revision_id), fetchedAt: String(row.fetched_at), items: Array.isArray(items) ? items : [] }
  }
}

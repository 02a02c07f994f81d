import type Database from 'better-sqlite3'
import type { JSONDocument } from '../../content'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

export type ChangeRequestStatus = 'draft' | 'open' | 'archived' | 'merged'

/** An external link of a change request (spec `ChangeRequestLink`). */
export interface ChangeRequestLink {
  id: string
  ref: { kind: 'url'; url: string }
  title?: string
}

/** Change request fields kept as JSON: the parts of the API shape nothing filters on. */
export interface ChangeRequestData {
  links?: ChangeRequestLink[]
  description?: JSONDocument
  mergedBy?: string
  mergedAt?: string
}

/** Someone who edited a change request's content: how many writes, and when the last one was. */
export interface EditContributor {
  userId: string
  edits: number
  updatedAt: string
}

export interface ChangeRequest {
  id: string
  spaceId: string
  number: number
  status: ChangeRequestStatus
  subject: string
  createdBy: string
  createdAt: string
  updatedAt: string
  /** Head revision of the change request. */
  revisionId: string
  /** Space revision the change request branched from. */
  revisionInitial: string
  /** Space revision the change request was last based on (moves on update): the merge base. */
  revisionMergedAncestor: string
  /** Space revision the merge produced. */
  revisionMerged: string | null
  data: ChangeRequestData
}

interface ChangeRequestRow {
  id: string
  space_id: string
  number: number
  status: string
  subject: string | null
  created_by: string
  created_at: string
  updated_at: string
  revision_id: string
  revision_initial: string
  revision_merged_ancestor: string
  revision_merged: string | null
  data: string
}

export interface ChangeRequestFilter {
  /** Absent = every status. */
  statuses?: ChangeRequestStatus[]
  creator?: string
  contributor?: string
  requestedReviewer?: string
  orderBy?: 'updatedAt' | 'createdAt'
}

export interface ChangeRequestCounters {
  changeRequests: number
  changeRequestsOpen: number
  changeRequestsDraft: number
}

const STATUSES: ReadonlySet<string> = new Set(['draft', 'open', 'archived', 'merged'])

const toChangeRequest = (row: ChangeRequestRow): ChangeRequest => ({
  id: row.id,
  spaceId: row.space_id,
  number: row.number,
  status: STATUSES.has(row.status) ? (row.status as ChangeRequestStatus) : 'open',
  subject: row.subject ?? '',
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
  revisionId: row.revision_id,
  revisionInitial: row.revision_initial,
  revisionMergedAncestor: row.revision_merged_ancestor,
  revisionMerged: row.revision_merged,
  data: parseJson<ChangeRequestData>(row.data, {}),
})

export class ChangeRequestsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  /** Opens a change request whose head is `revisionId`, branched from the space revision `baseRevisionId`. */
  create(input: { spaceId: string; createdBy: string; subject?: string; revisionId: string; baseRevisionId: string; status?: ChangeRequestStatus }): ChangeRequest {
    return this.store.transaction(() => {
      const now = this.store.now()
      const number = (
        this.db.prepare('SELECT COALESCE(MAX(number), 0) + 1 AS n FROM change_requests WHERE space_id = ?').get(input.spaceId) as { n: number }
      ).n
      const cr: ChangeRequest = {
        id: newId(),
        spaceId: input.spaceId,
        number,
        status: input.status ?? 'open',
        subject: input.subject ?? '',
        createdBy: input.createdBy,
        createdAt: now,
        updatedAt: now,
        revisionId: input.revisionId,
        revisionInitial: input.baseRevisionId,
        revisionMergedAncestor: input.baseRevisionId,
        revisionMerged: null,
        data: {},
      }
      this.db
        .prepare(
          `INSERT INTO change_requests (id, space_id, number, status, subject, created_by, created_at, updated_at,
             revision_id, revision_initial, revision_merged_ancestor, revision_merged, data)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, NULL, ?)`,
        )
        .run(cr.id, cr.spaceId, cr.number, cr.status, cr.subject, cr.createdBy, now, now, cr.revisionId, cr.revisionInitial, cr.revisionMergedAncestor, '{}')
      // The creator counts as a contributor for the list filter, with no edits yet.
      this.db.prepare('INSERT OR IGNORE INTO change_request_contributors (change_request_id, user_id, edits, updated_at) VALUES (?, ?, 0, ?)').run(cr.id, input.createdBy, now)
      return cr
    })
  }

  get(id: string): ChangeRequest | undefined {
    const row = this.db.prepare('SELECT * FROM change_requests WHERE id = ?').get(id) as ChangeRequestRow | undefined
    return row && toChangeRequest(row)
  }

  /**
   * The change request of the space named by `{changeRequestId}`: its id or its incremental number.
   * A change request of another space is not found.
   */
  resolve(spaceId: string, idOrNumber: string): ChangeRequest | undefined {
    const byId = this.db.prepare('SELECT * FROM change_requests WHERE id = ? AND space_id = ?').get(idOrNumber, spaceId) as
      | ChangeRequestRow
      | undefined
    if (byId) return toChangeRequest(byId)
    if (!/^[1-9][0-9]{0,9}$/.test(idOrNumber)) return undefined
    const byNumber = this.db.prepare('SELECT * FROM change_requests WHERE space_id = ? AND number = ?').get(spaceId, Number(idOrNumber)) as
      | ChangeRequestRow
      | undefined
    return byNumber && toChangeRequest(byNumber)
  }

  /** The change request whose merge produced the space revision `revisionId`. */
  byMergedRevision(revisionId: string): ChangeRequest | undefined {
    const row = this.db.prepare('SELECT * FROM change_requests WHERE revision_merged = ?').get(revisionId) as ChangeRequestRow | undefined
    return row && toChangeRequest(row)
  }

  listBySpace(spaceId: string, filter: ChangeRequestFilter = {}): ChangeRequest[] {
    return this.list('cr.space_id = ?', [spaceId], filter)
  }

  /** Change requests of the given spaces (the caller passes the spaces it may see). */
  listBySpaces(spaceIds: string[], filter: ChangeRequestFilter = {}): ChangeRequest[] {
    if (spaceIds.length === 0) return []
    return this.list(`cr.space_id IN (${spaceIds.map(() => '?').join(', ')})`, spaceIds, filter)
  }

  private list(scope: string, args: unknown[], filter: ChangeRequestFilter): ChangeRequest[] {
    const where = [scope]
    const params = [...args]
    if (filter.statuses) {
      if (filter.statuses.length === 0) return []
      where.push(`cr.status IN (${filter.statuses.map(() => '?').join(', ')})`)
      params.push(...filter.statuses)
    }
    if (filter.creator !== undefined) {
      where.push('cr.created_by = ?')
      params.push(filter.creator)
    }
    if (filter.contributor !== undefined) {
      where.push('EXISTS (SELECT 1 FROM change_request_contributors c WHERE c.change_request_id = cr.id AND c.user_id = ?)')
      params.push(filter.contributor)
    }
    if (filter.requestedReviewer !== undefined) {
      where.push('EXISTS (SELECT 1 FROM change_request_requested_reviewers r WHERE r.change_request_id = cr.id AND r.user_id = ?)')
      params.push(filter.requestedReviewer)
    }
    const order = filter.orderBy === 'createdAt' ? 'cr.created_at DESC' : 'cr.updated_at DESC'
    const rows = this.db.prepare(`SELECT cr.* FROM change_requests cr WHERE ${where.join(' AND ')} ORDER BY ${order}, cr.rowid DESC`).all(...params) as ChangeRequestRow[]
    return rows.map(toChangeRequest)
  }

  update(id: string, patch: { subject?: string; status?: ChangeRequestStatus; data?: Partial<ChangeRequestData> }): ChangeRequest {
    const current = this.get(id)
    if (!current) throw new Error(`change request ${id} does not exist`)
    const next: ChangeRequest = {
      ...current,
      subject: patch.subject ?? current.subject,
      status: patch.status ?? current.status,
      updatedAt: this.store.now(),
      data: { ...current.data, ...patch.data },
    }
    this.db
      .prepare('UPDATE change_requests SET subject = ?, status = ?, updated_at = ?, data = ? WHERE id = ?')
      .run(next.subject, next.status, next.updatedAt, JSON.stringify(next.data), id)
    return next
  }

  /** Moves the head after a content write; `mergedAncestor` moves too when the write rebased it. */
  setRevision(id: string, revisionId: string, mergedAncestor?: string) {
    const now = this.store.now()
    if (mergedAncestor === undefined) {
      this.db.prepare('UPDATE change_requests SET revision_id = ?, updated_at = ? WHERE id = ?').run(revisionId, now, id)
    } else {
      this.db
        .prepare('UPDATE change_requests SET revision_id = ?, revision_merged_ancestor = ?, updated_at = ? WHERE id = ?')
        .run(revisionId, mergedAncestor, now, id)
    }
  }

  markMerged(id: string, mergedRevisionId: string, mergedBy: string): ChangeRequest {
    const current = this.get(id)
    if (!current) throw new Error(`change request ${id} does not exist`)
    const now = this.store.now()
    const data: ChangeRequestData = { ...current.data, mergedBy, mergedAt: now }
    this.db
      .prepare("UPDATE change_requests SET status = 'merged', revision_merged = ?, updated_at = ?, data = ? WHERE id = ?")
      .run(mergedRevisionId, now, JSON.stringify(data), id)
    return { ...current, status: 'merged', revisionMerged: mergedRevisionId, updatedAt: now, data }
  }

  /** Counts one content write by `userId`. */
  recordEdit(id: string, userId: string) {
    this.db
      .prepare(
        `INSERT INTO change_request_contributors (change_request_id, user_id, edits, updated_at) VALUES (?, ?, 1, ?)
         ON CONFLICT (change_request_id, user_id) DO UPDATE SET edits = edits + 1, updated_at = excluded.updated_at`,
      )
      .run(id, userId, this.store.now())
  }

  /** Users who wrote to the change request's content, first contributor first. */
  editContributors(id: string): EditContributor[] {
    const rows = this.db
      .prepare('SELECT user_id, edits, updated_at FROM change_request_contributors WHERE change_request_id = ? AND edits > 0 ORDER BY rowid')
      .all(id) as Array<{ user_id: string; edits: number; updated_at: string | null }>
    return rows.map((r) => ({ userId: r.user_id, edits: r.edits, updatedAt: r.updated_at ?? '' }))
  }

  counters(spaceId: string): ChangeRequestCounters {
    const row = this.db
      .prepare(
        `SELECT COUNT(*) AS total,
                COALESCE(SUM(status = 'open'), 0) AS open,
                COALESCE(SUM(status = 'draft'), 0) AS draft
         FROM change_requests WHERE space_id = ?`,
      )
      .get(spaceId) as { total: number; open: number; draft: number }
    return { changeRequests: row.total, changeRequestsOpen: row.open, changeRequestsDraft: row.draft }
  }
}

/** The Space JSON's `changeRequests`, `changeRequestsOpen` and `changeRequestsDraft` counts. */
export function changeRequestCounters(store: ServiceStore, spaceId: string): ChangeRequestCounters {
  return store.repo(ChangeRequestsRepository).counters(spaceId)
}

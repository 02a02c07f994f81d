import type Database from 'better-sqlite3'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

/** The spec's `ChangeRequestReviewStatus`. */
export type ReviewStatus = 'approved' | 'changes-requested'

export interface ReviewRecord {
  id: string
  changeRequestId: string
  reviewerId: string
  /** Who asked this reviewer for the review, when they had been asked. */
  requestedBy: string | null
  status: ReviewStatus
  /** The change request head the review was made against. */
  revisionId: string
  /** The comment posted with the review, if any. */
  commentId: string | null
  /** A later review or review request for the same reviewer replaced this one. */
  superseded: boolean
  createdAt: string
}

export interface ReviewRequestRecord {
  changeRequestId: string
  userId: string
  requestedBy: string
  /** The change request head when the request was (last) made. */
  revisionId: string
  createdAt: string
}

interface ReviewRow {
  id: string
  change_request_id: string
  reviewer_id: string
  requested_by: string | null
  status: string
  revision_id: string
  comment_id: string | null
  superseded: number
  created_at: string
}

interface RequestRow {
  change_request_id: string
  user_id: string
  requested_by: string
  revision_id: string
  created_at: string
}

const toReview = (row: ReviewRow): ReviewRecord => ({
  id: row.id,
  changeRequestId: row.change_request_id,
  reviewerId: row.reviewer_id,
  requestedBy: row.requested_by,
  status: row.status === 'approved' ? 'approved' : 'changes-requested',
  revisionId: row.revision_id,
  commentId: row.comment_id,
  superseded: row.superseded !== 0,
  createdAt: row.created_at,
})

const toRequest = (row: RequestRow): ReviewRequestRecord => ({
  changeRequestId: row.change_request_id,
  userId: row.user_id,
  requestedBy: row.requested_by,
  revisionId: row.revision_id,
  createdAt: row.created_at,
})

/** Reviews of change requests and the reviews asked for. */
export class ReviewsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  /** Records a review; the reviewer's earlier reviews of the change request are superseded by it. */
  submit(input: { id?: string; changeRequestId: string; reviewerId: string; status: ReviewStatus; revisionId: string; commentId?: string }): ReviewRecord {
    return this.store.transaction(() => {
      const request = this.request(input.changeRequestId, input.reviewerId)
      const review: ReviewRecord = {
        id: input.id ?? newId(),
        changeRequestId: input.changeRequestId,
        reviewerId: input.reviewerId,
        requestedBy: request?.requestedBy ?? null,
        status: input.status,
        revisionId: input.revisionId,
        commentId: input.commentId ?? null,
        superseded: false,
        createdAt: this.store.now(),
      }
      this.supersede(input.changeRequestId, input.reviewerId)
      this.db
        .prepare(
          `INSERT INTO change_request_reviews (id, change_request_id, reviewer_id, requested_by, status, revision_id, comment_id, superseded, created_at)
           VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?)`,
        )
        .run(review.id, review.changeRequestId, review.reviewerId, review.requestedBy, review.status, review.revisionId, review.commentId, review.createdAt)
      return review
    })
  }

  get(changeRequestId: string, id: string): ReviewRecord | undefined {
    const row = this.db.prepare('SELECT * FROM change_request_reviews WHERE id = ? AND change_request_id = ?').get(id, changeRequestId) as
      | ReviewRow
      | undefined
    return row && toReview(row)
  }

  /** Every review of the change request, newest first. */
  list(changeRequestId: string): ReviewRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM change_request_reviews WHERE change_request_id = ? ORDER BY created_at DESC, rowid DESC')
      .all(changeRequestId) as ReviewRow[]
    return rows.map(toReview)
  }

  /** Asks `userId` for a review. Asking again refreshes the request and supersedes the user's earlier reviews. */
  requestReview(input: { changeRequestId: string; userId: string; requestedBy: string; revisionId: string }): ReviewRequestRecord {
    const record: ReviewRequestRecord = { ...input, createdAt: this.store.now() }
    this.store.transaction(() => {
      this.supersede(input.changeRequestId, input.userId)
      this.db
        .prepare(
          `INSERT INTO change_request_requested_reviewers (change_request_id, user_id, requested_by, revision_id, created_at) VALUES (?, ?, ?, ?, ?)
           ON CONFLICT (change_request_id, user_id) DO UPDATE SET requested_by = excluded.requested_by, revision_id = excluded.revision_id,
             created_at = excluded.created_at`,
        )
        .run(record.changeRequestId, record.userId, record.requestedBy, record.revisionId, record.createdAt)
    })
    return record
  }

  request(changeRequestId: string, userId: string): ReviewRequestRecord | undefined {
    const row = this.db
      .prepare('SELECT * FROM change_request_requested_reviewers WHERE change_request_id = ? AND user_id = ?')
      .get(changeRequestId, userId) as RequestRow | undefined
    return row && toRequest(row)
  }

  /** The reviews asked for on the change request, first asked first. */
  requests(changeRequestId: string): ReviewRequestRecord[] {
    const rows = this.db
      .prepare('SELECT * FROM change_request_requested_reviewers WHERE change_request_id = ? ORDER BY created_at, rowid')
      .all(changeRequestId) as RequestRow[]
    return rows.map(toRequest)
  }

  /** Withdraws the request; false when the user had not been asked. */
  removeRequest(changeRequestId: string, userId: string): boolean {
    return this.db.prepare('DELETE FROM change_request_requested_reviewers WHERE change_request_id = ? AND user_id = ?').run(changeRequestId, userId).changes > 0
  }

  private supersede(changeRequestId: string, reviewerId: string) {
    this.db
      .prepare('UPDATE change_request_reviews SET superseded = 1 WHERE change_request_id = ? AND reviewer_id = ? AND superseded = 0')
      .run(changeRequestId, reviewerId)
  }
}

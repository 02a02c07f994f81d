import type { Role } from '../../access/roles'
import type { ChangeRequest } from '../../store/change-requests'
import { CommentsRepository } from '../../store/comments'
import type { ReviewRecord, ReviewRequestRecord } from '../../store/reviews'
import type { ServiceStore } from '../../store/service-store'
import { UsersRepository } from '../../store/users'
import { apiUrl } from '../urls'
import { userJson } from '../users'
import { CommentSerializer, type BodyFormat } from './comment'

/**
 * Outdated: made against an older head than the change request's (the content changed since), or replaced
 * by a later review or review request for the same reviewer. A merged change request's head no longer
 * moves, so the reviews it was merged with stay current.
 */
export function isReviewOutdated(review: ReviewRecord, cr: ChangeRequest): boolean {
  return review.superseded || review.revisionId !== cr.revisionId
}

export const reviewsPath = (cr: ChangeRequest) => `/spaces/${cr.spaceId}/change-requests/${cr.id}/reviews`

/** Renders reviews, review requests and contributors of one change request for one caller. */
export class ReviewSerializer {
  private readonly comments: CommentSerializer

  constructor(
    private readonly store: ServiceStore,
    private readonly origin: string,
    private readonly cr: ChangeRequest,
    viewer: { userId: string; role: Role | null },
    format: BodyFormat = 'markdown',
  ) {
    this.comments = new CommentSerializer(store, origin, viewer, format)
  }

  /** The spec's `ChangeRequestReview`. */
  review(review: ReviewRecord) {
    const comment = review.commentId ? this.store.repo(CommentsRepository).get(review.commentId) : undefined
    return {
      object: 'change-request-review' as const,
      id: review.id,
      revision: review.revisionId,
      reviewer: this.user(review.reviewerId),
      ...(review.requestedBy ? { requestedBy: this.user(review.requestedBy) } : {}),
      status: review.status,
      outdated: isReviewOutdated(review, this.cr),
      // The comment may have been deleted since; the review stands without it.
      ...(comment ? { comment: this.comments.comment(comment) } : {}),
      createdAt: review.createdAt,
      updatedAt: review.createdAt,
      urls: { location: apiUrl(this.origin, `${reviewsPath(this.cr)}/${review.id}`) },
    }
  }

  /** The spec's `ChangeRequestRequestedReviewer` (this service asks users, never teams). */
  requestedReviewer(request: ReviewRequestRecord) {
    return {
      object: 'change-request-requested-reviewer' as const,
      revision: request.revisionId,
      requestedBy: this.user(request.requestedBy),
      createdAt: request.createdAt,
      kind: 'user' as const,
      user: this.user(request.userId),
    }
  }

  /** The spec's `ChangeRequestUserContributor`. */
  contributor(entry: { userId: string; count: number; updatedAt: string; actionType: 'edit' | 'comment' }) {
    return { updatedAt: entry.updatedAt, count: entry.count, user: this.user(entry.userId), actionType: entry.actionType }
  }

  private user(id: string) {
    const row = this.store.repo(UsersRepository).get(id)
    if (!row) throw new Error(`change request ${this.cr.id} refers to a missing user ${id}`)
    return userJson(row, this.origin)
  }
}

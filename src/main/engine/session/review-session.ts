import type { CacheRepository } from '../cache/cache-repository'
import type { OutboxRepository } from '../outbox/outbox-repository'
import type { PayloadOf } from '../outbox/outbox-types'
import type { ReviewOpKind, ReviewVerdict } from '../outbox/review-op-types'
import { reviewersOf, waitingForMyReview, type ReviewerVerdict, type ReviewQueue } from './review-reads'
import type { ActionOutcome } from './session-outcomes'
import type { WorkspaceSession } from './workspace-session'

export type { ReviewerVerdict, ReviewQueue, WaitingReview } from './review-reads'
export type { ReviewVerdict } from '../outbox/review-op-types'

/** Input no request could carry: refused here, before anything is written to the outbox. */
export class InvalidReviewInputError extends Error {}

const VERDICTS: ReadonlySet<string> = new Set<ReviewVerdict>(['approved', 'changes-requested'])
/** A user id as the service makes them: no spaces, no slashes (it goes into a URL path). */
const USER_ID = /^[A-Za-z0-9_-]{1,128}$/

/**
 * The review workflow over a workspace session: submit for review, ask and un-ask reviewers, review,
 * archive, merge. Every action goes through the session's outbox (`WorkspaceSession.act`), so it works
 * offline and goes out exactly once when the service is back; the service's refusal (a 4xx, merge rules
 * included) throws ActionRefusedError naming its reason. Reads ask the service.
 *
 * The writer's flow is unchanged: edits keep going to the writer's one change request, a review made
 * before an edit becomes outdated, and the change request stays open. The writer's own change request,
 * once archived, is taken in by the next push (its edits then start a new one).
 */
export class ReviewSession {
  constructor(
    private readonly session: WorkspaceSession,
    private readonly o: { cache: CacheRepository; outbox: OutboxRepository },
  ) {}

  /** Draft -> open, so it shows in the service's default list; the description (markdown) is set with it. */
  submitForReview(spaceId: string, changeRequestId: string, options: { description?: string } = {}): Promise<ActionOutcome> {
    const description = options.description?.trim()
    return this.act(spaceId, 'submit-for-review', { changeRequestId, ...(description ? { description } : {}) })
  }

  /** Asks users (ids) for a review; a draft becomes open (asking is submitting). */
  requestReviewers(spaceId: string, changeRequestId: string, users: string[]): Promise<ActionOutcome> {
    const unique = [...new Set(users.map((u) => u.trim()))]
    if (unique.length === 0) throw new InvalidReviewInputError('name at least one reviewer')
    for (const user of unique) checkUserId(user)
    return this.act(spaceId, 'request-reviewers', { changeRequestId, users: unique })
  }

  removeReviewer(spaceId: string, changeRequestId: string, userId: string): Promise<ActionOutcome> {
    checkUserId(userId.trim())
    return this.act(spaceId, 'remove-reviewer', { changeRequestId, userId: userId.trim() })
  }

  /** Approves or asks for changes, with an optional comment (markdown). */
  review(spaceId: string, changeRequestId: string, verdict: ReviewVerdict, comment?: string): Promise<ActionOutcome> {
    if (!VERDICTS.has(verdict)) throw new InvalidReviewInputError(`a review approves or requests changes, not "${String(verdict)}"`)
    const text = comment?.trim()
    return this.act(spaceId, 'review', { changeRequestId, verdict, userId: this.session.account.userId, ...(text ? { comment: text } : {}) })
  }

  /** The author's new description (markdown); an empty one clears it. */
  describe(spaceId: string, changeRequestId: string, description: string): Promise<ActionOutcome> {
    return this.act(spaceId, 'describe-cr', { changeRequestId, description: description.trim() })
  }

  /** Opens a resolved thread of the change request again. */
  reopenComment(spaceId: string, changeRequestId: string, commentId: string): Promise<ActionOutcome> {
    if (!commentId.trim()) throw new InvalidReviewInputError('no comment given')
    return this.act(spaceId, 'reopen-comment', { changeRequestId, commentId })
  }

  archive(spaceId: string, changeRequestId: string): Promise<ActionOutcome> {
    return this.act(spaceId, 'archive-cr', { changeRequestId })
  }

  /** Merges through the outbox; when the merge rules refuse, ActionRefusedError carries the service's reason. */
  merge(spaceId: string, changeRequestId: string): Promise<ActionOutcome> {
    this.checkTarget(spaceId, changeRequestId)
    return this.session.merge(spaceId, changeRequestId)
  }

  /* Reads */

  /** What waits for the user's review across the selected spaces (as last read, with `asOf`, when offline). */
  waitingForMyReview(): Promise<ReviewQueue> {
    return waitingForMyReview({ gateway: this.session.gateway, cache: this.o.cache, outbox: this.o.outbox, account: this.session.account })
  }

  /** Who was asked and each reviewer's latest verdict. */
  reviewers(spaceId: string, changeRequestId: string): Promise<ReviewerVerdict[]> {
    return reviewersOf(this.session.gateway, spaceId, changeRequestId)
  }

  private act<K extends ReviewOpKind>(spaceId: string, kind: K, payload: PayloadOf[K]): Promise<ActionOutcome> {
    this.checkTarget(spaceId, payload.changeRequestId)
    return this.session.act(spaceId, kind, payload)
  }

  /** The session sends a space's outbox only for a space it syncs (one with a folder): anything else would wait for good. */
  private checkTarget(spaceId: string, changeRequestId: string) {
    if (!changeRequestId.trim()) throw new InvalidReviewInputError('no change request given')
    if (!this.session.spaces().some((s) => s.spaceId === spaceId)) {
      const title = this.o.cache.space(spaceId)?.title
      throw new InvalidReviewInputError(`${title ? `space ${title}` : `space ${spaceId}`} is not synced in this workspace: select it and sync it first`)
    }
  }
}

function checkUserId(userId: string) {
  if (!USER_ID.test(userId)) throw new InvalidReviewInputError(`"${userId}" is not a user id`)
}

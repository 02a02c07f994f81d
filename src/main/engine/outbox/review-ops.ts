import type { ChangeRequest, ChangeRequestReview, ChangeRequestRequestedReviewer, JSONDocument } from '@gitbook/api'
import { markdownToDocument } from '../../content'
import type { CommentsRepository } from '../comments/comments-repository'
import { bodyMarkdown } from '../comments/threads'
import { paginate, type ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from './outbox-repository'
import type { OutboxOp } from './outbox-types'
import { REVIEW_OP_KINDS, type ReviewOpKind } from './review-op-types'

/**
 * Sending, reconciling and recording the review workflow's ops (review-op-types.ts). The sender calls
 * these for every op of these kinds, so they share its guarantees: written before they leave, sent
 * once, a lost answer looked for on the service before anything is sent again, the service's 4xx
 * answer the only refusal.
 */

export type ReviewOp = Extract<OutboxOp, { kind: ReviewOpKind }>

/** Clocks of this machine and the service may disagree: a lost review is looked for this far before the op was written. */
const CLOCK_SKEW_MS = 10 * 60 * 1000

/** What a review op's done record keeps (`op.result`). */
export type ReviewOpResult =
  | { changeRequest: { id: string; number: number; status: string } }
  | { users: string[] }
  | { removed: boolean }
  | { review: { id: string; status: string; revision: string; outdated: boolean } }
  | { id: string }

export function isReviewOp(op: OutboxOp): op is ReviewOp {
  return REVIEW_OP_KINDS.has(op.kind)
}

export async function sendReviewOp(gateway: ApiGateway, op: ReviewOp): Promise<unknown> {
  const spaces = gateway.client.spaces
  const { spaceId } = op
  const id = op.payload.changeRequestId
  switch (op.kind) {
    case 'submit-for-review': {
      const description = op.payload.description === undefined ? {} : { description: markdownToDocument(op.payload.description) as unknown as JSONDocument }
      return (await spaces.updateChangeRequestById(spaceId, id, { status: 'open', ...description })).data
    }
    case 'archive-cr':
      return (await spaces.updateChangeRequestById(spaceId, id, { status: 'archived' })).data
    case 'describe-cr':
      return (await spaces.updateChangeRequestById(spaceId, id, { description: markdownToDocument(op.payload.description) as unknown as JSONDocument })).data
    case 'reopen-comment':
      return (await spaces.updateCommentInChangeRequest(spaceId, id, op.payload.commentId, { resolved: false })).data
    case 'request-reviewers':
      return (await spaces.requestReviewersForChangeRequest(spaceId, id, { users: op.payload.users })).data
    case 'remove-reviewer': {
      // 205: the request was withdrawn; 204: that user had not been asked (nothing to do, not a refusal).
      const answer = await spaces.removeRequestedReviewerFromChangeRequest(spaceId, id, op.payload.userId)
      return { removed: answer.status === 205 }
    }
    case 'review': {
      const comment = op.payload.comment ? { comment: { markdown: op.payload.comment } } : {}
      return (await spaces.submitChangeRequestReview(spaceId, id, { status: op.payload.verdict as ChangeRequestReview['status'], ...comment })).data
    }
  }
}

/**
 * Did a review op whose answer was lost reach the service? Undefined: it did not (or sending it again
 * is the same request): send it. A review is found by its reviewer, verdict, comment and time, since a
 * second one would replace the first; a status already reached is not set again over someone else's
 * later change (a merge, a reopening).
 */
export async function reconcileReviewOp(gateway: ApiGateway, op: ReviewOp): Promise<unknown> {
  const spaces = gateway.client.spaces
  const { spaceId } = op
  const id = op.payload.changeRequestId
  switch (op.kind) {
    case 'submit-for-review': {
      const cr = (await spaces.getChangeRequestById(spaceId, id)).data
      // Open with a description to set: setting the same status and description again changes nothing.
      if (cr.status === 'draft' || (cr.status === 'open' && op.payload.description !== undefined)) return undefined
      return cr
    }
    case 'archive-cr': {
      const cr = (await spaces.getChangeRequestById(spaceId, id)).data
      return cr.status === 'archived' || cr.status === 'merged' ? cr : undefined
    }
    case 'request-reviewers': {
      // Asking again would mark the reviews those users made since as outdated: only when someone is missing.
      const asked = await collect(paginate((page) => spaces.getRequestedReviewersByChangeRequestId(spaceId, id, { page }).then((r) => r.data)))
      const users = new Set(asked.flatMap((r) => (r.kind === 'user' ? [r.user.id] : [])))
      return op.payload.users.every((u) => users.has(u)) ? { users: asked } : undefined
    }
    case 'remove-reviewer':
    case 'describe-cr':
    case 'reopen-comment':
      return undefined // removing, describing, reopening again is the same request with the same outcome
    case 'review': {
      const after = Date.parse(op.createdAt) - CLOCK_SKEW_MS
      const { userId, verdict, comment } = op.payload
      const reviews = await collect(paginate((page) => spaces.getReviewsByChangeRequestId(spaceId, id, { page, format: 'markdown' }).then((r) => r.data)))
      return reviews.find(
        (r) => r.reviewer.id === userId && r.status === verdict && Date.parse(r.createdAt) >= after && bodyMarkdown(r.comment?.body).trim() === (comment ?? '').trim(),
      )
    }
  }
}

/** Records a review op's answer: the change request as it is now goes to the mirror; the op is done. */
export function finishReviewOp(outbox: OutboxRepository, op: ReviewOp, answer: unknown, comments?: CommentsRepository) {
  outbox.transaction(() => {
    switch (op.kind) {
      case 'reopen-comment': {
        // The mirror says the thread is open again: resolving it later is a new operation, not a repeat.
        const thread = comments?.thread(op.payload.commentId)
        if (thread && comments) comments.save({ ...thread, status: 'open' })
        outbox.markDone(op.seq, { id: op.payload.commentId })
        return
      }
      case 'submit-for-review':
      case 'describe-cr':
      case 'archive-cr': {
        const cr = answer as ChangeRequest
        outbox.saveChangeRequest(op.spaceId, cr)
        outbox.markDone(op.seq, { changeRequest: { id: cr.id, number: cr.number, status: cr.status } } satisfies ReviewOpResult)
        return
      }
      case 'request-reviewers': {
        const asked = (answer as { users?: ChangeRequestRequestedReviewer[] }).users ?? []
        outbox.markDone(op.seq, { users: asked.flatMap((r) => (r.kind === 'user' ? [r.user.id] : [])) } satisfies ReviewOpResult)
        return
      }
      case 'remove-reviewer':
        outbox.markDone(op.seq, answer as ReviewOpResult)
        return
      case 'review': {
        const review = answer as ChangeRequestReview
        outbox.markDone(op.seq, { review: { id: review.id, status: review.status, revision: review.revision, outdated: review.outdated } } satisfies ReviewOpResult)
        return
      }
    }
  })
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

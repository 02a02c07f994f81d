/**
 * Operations of the review workflow. Unlike the writer's content ops, each names the change request it
 * acts on: a reviewer reviews someone else's, a writer submits their own. None is bound to the writer's
 * push session, so merging or closing the writer's change request never supersedes them.
 */

/** Submit for review: a draft becomes `open` (and so shows in the service's default list). */
export interface SubmitForReviewPayload {
  changeRequestId: string
  /** Markdown; sent as the change request's description. */
  description?: string
}

export interface RequestReviewersPayload {
  changeRequestId: string
  /** User ids; asking also submits a draft (draft -> open). */
  users: string[]
}

export interface RemoveReviewerPayload {
  changeRequestId: string
  userId: string
}

export type ReviewVerdict = 'approved' | 'changes-requested'

export interface ReviewPayload {
  changeRequestId: string
  verdict: ReviewVerdict
  /** Markdown; becomes a comment of the change request tied to the review. */
  comment?: string
  /** The reviewer (a lost answer is looked for among their reviews). */
  userId: string
}

export interface ArchivePayload {
  changeRequestId: string
}

/** The author rewrites the change request's description (markdown). */
export interface DescribePayload {
  changeRequestId: string
  description: string
}

/** A resolved thread of the change request is opened again. */
export interface ReopenCommentPayload {
  changeRequestId: string
  commentId: string
}

export interface ReviewPayloadOf {
  'submit-for-review': SubmitForReviewPayload
  'request-reviewers': RequestReviewersPayload
  'remove-reviewer': RemoveReviewerPayload
  review: ReviewPayload
  'archive-cr': ArchivePayload
  'describe-cr': DescribePayload
  'reopen-comment': ReopenCommentPayload
}

export type ReviewOpKind = keyof ReviewPayloadOf

export const REVIEW_OP_KINDS: ReadonlySet<string> = new Set<ReviewOpKind>(['submit-for-review', 'request-reviewers', 'remove-reviewer', 'review', 'archive-cr', 'describe-cr', 'reopen-comment'])

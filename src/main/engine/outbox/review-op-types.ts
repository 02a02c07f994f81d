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

export interface ReviewPayloadOf {
  'submit-for-review': SubmitForReviewPayload
  'request-reviewers': RequestReviewersPayload
  'remove-reviewer': RemoveReviewerPayload
  review: ReviewPayload
  'archive-cr': ArchivePayload
}

export type ReviewOpKind = keyof ReviewPayloadOf

export const REVIEW_OP_KINDS: ReadonlySet<string> = new Set<ReviewOpKind>(['submit-for-review', 'request-reviewers', 'remove-reviewer', 'review', 'archive-cr'])

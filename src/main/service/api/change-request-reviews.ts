import type { Document, JSONDocument } from '@gitbook/api'
import { atLeast, type Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { ok, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { badRequest, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { ChangeRequestsRepository, type ChangeRequest } from '../store/change-requests'
import { CommentsRepository, type StoredBody } from '../store/comments'
import { newId } from '../store/ids'
import { ReviewsRepository, type ReviewStatus } from '../store/reviews'
import type { Space } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { checkSubject } from './change-requests'
import { storedBody } from './comments'
import { requireChangeRequest, requireSpace, type ContentAccess } from './content-access'
import { isReviewOutdated, reviewsPath, ReviewSerializer } from './serializers/review'
import { apiUrl } from './urls'

/** One request asks a handful of people; more is a client bug, not a review. */
const MAX_REVIEWERS_PER_REQUEST = 50

interface ReviewContext {
  space: Space
  role: Role | null
  cr: ChangeRequest
}

function changeRequestIn(ctx: RequestContext, access: ContentAccess): ReviewContext {
  const { space, role } = requireSpace(ctx, access)
  return { space, role, cr: requireChangeRequest(ctx, space) }
}

function serializer(ctx: RequestContext, { cr, role }: ReviewContext): ReviewSerializer {
  const format = ctx.query.format === 'document' ? 'document' : 'markdown'
  return new ReviewSerializer(ctx.store, ctx.origin, cr, { userId: ctx.user.id, role }, format)
}

/** Reviews and review requests belong to change requests still under way: merged and archived ones are closed. */
function requireUnderReview(cr: ChangeRequest, action: string) {
  if (cr.status === 'merged') throw badRequest(`Change request #${cr.number} is already merged: ${action} is no longer possible`)
  if (cr.status === 'archived') throw badRequest(`Change request #${cr.number} is archived: reopen it before ${action}`)
}

/**
 * Who may review: the space's reviewers (role `review` and up), and the editors someone asked for a
 * review. Never the author: an approval of one's own work would satisfy the review merge rules.
 */
function requireReviewer(ctx: RequestContext, { cr, role }: ReviewContext) {
  if (cr.createdBy === ctx.user.id) throw forbidden(`You wrote change request #${cr.number}: someone else must review it`)
  const asked = ctx.store.repo(ReviewsRepository).request(cr.id, ctx.user.id) !== undefined
  if (!atLeast(role, 'review') && !(asked && atLeast(role, 'edit'))) {
    throw forbidden('Reviewing needs the review role on the space, or the edit role and a review request')
  }
}

/** A review's comment is optional: the spec's empty document, or one with no text, means none. */
function reviewComment(comment: Document | undefined): StoredBody | undefined {
  if (comment === undefined || Object.keys(comment).length === 0) return undefined
  if ('markdown' in comment && typeof comment.markdown === 'string' && comment.markdown.trim() === '') return undefined
  return storedBody(comment)
}

function listReviews(ctx: RequestContext) {
  const scope = changeRequestIn(ctx, 'view')
  const outdated = typeof ctx.query.outdated === 'boolean' ? ctx.query.outdated : undefined
  const reviews = ctx.store
    .repo(ReviewsRepository)
    .list(scope.cr.id)
    .filter((review) => outdated === undefined || isReviewOutdated(review, scope.cr) === outdated)
  const s = serializer(ctx, scope)
  return ok(paginate(reviews, ctx.query, (review) => s.review(review)))
}

function getReview(ctx: RequestContext) {
  const scope = changeRequestIn(ctx, 'view')
  const review = ctx.store.repo(ReviewsRepository).get(scope.cr.id, ctx.params.reviewId)
  if (!review) throw notFound(`Review ${ctx.params.reviewId} could not be found on change request #${scope.cr.number}`)
  return ok(serializer(ctx, scope).review(review))
}

/** The review is made against the change request's head as it is now; its comment joins the change request's comments. */
function submitReview(ctx: RequestContext): HandlerResult {
  const scope = changeRequestIn(ctx, 'view')
  const { cr } = scope
  requireReviewer(ctx, scope)
  requireUnderReview(cr, 'reviewing it')
  const body = ctx.body as { status: ReviewStatus; comment?: Document }
  const comment = reviewComment(body.comment)
  const review = ctx.store.transaction(() => {
    const id = newId()
    const posted = comment
      ? ctx.store.repo(CommentsRepository).create({
          spaceId: cr.spaceId,
          changeRequestId: cr.id,
          revisionId: cr.revisionId,
          reviewId: id,
          body: comment,
          postedBy: ctx.user.id,
        })
      : undefined
    const submitted = ctx.store
      .repo(ReviewsRepository)
      .submit({ id, changeRequestId: cr.id, reviewerId: ctx.user.id, status: body.status, revisionId: cr.revisionId, commentId: posted?.id })
    // A review is news on the change request: its updatedAt moves, so a client polling the list sees it.
    ctx.store.repo(ChangeRequestsRepository).update(cr.id, {})
    return submitted
  })
  return {
    status: 201,
    body: serializer(ctx, scope).review(review),
    headers: { Location: apiUrl(ctx.origin, `${reviewsPath(cr)}/${review.id}`) },
  }
}

function listRequestedReviewers(ctx: RequestContext) {
  const scope = changeRequestIn(ctx, 'view')
  const s = serializer(ctx, scope)
  return ok(paginate(ctx.store.repo(ReviewsRepository).requests(scope.cr.id), ctx.query, (request) => s.requestedReviewer(request)))
}

/** Each user must exist, be someone other than the author, and be able to review once asked (edit role at least). */
function checkReviewers(ctx: RequestContext, space: Space, cr: ChangeRequest, users: unknown[]): string[] {
  const unique = [...new Set(users)] as string[]
  if (unique.length === 0) throw badRequest('body/users must name at least one user')
  if (unique.length > MAX_REVIEWERS_PER_REQUEST) throw badRequest(`body/users may name at most ${MAX_REVIEWERS_PER_REQUEST} users`)
  for (const id of unique) {
    const user = ctx.store.repo(UsersRepository).get(id)
    if (!user) throw badRequest(`body/users: there is no user ${id}`)
    if (id === cr.createdBy) throw badRequest(`body/users: ${user.display_name} wrote change request #${cr.number} and cannot review it`)
    if (!atLeast(spaceRole(ctx.store, space, id), 'edit')) {
      throw badRequest(`body/users: ${user.display_name} cannot review in this space (reviewing needs at least the edit role)`)
    }
  }
  return unique
}

/**
 * Asks users for a review, optionally updating the subject and description at the same time. A draft
 * moves to `open`: asking for a review is how a change request is submitted for review.
 */
function requestReviewers(ctx: RequestContext) {
  const scope = changeRequestIn(ctx, 'edit')
  const { space, cr } = scope
  requireUnderReview(cr, 'requesting reviews')
  const body = ctx.body as { users: unknown[]; subject?: unknown; description?: JSONDocument }
  const users = checkReviewers(ctx, space, cr, body.users)
  const subject = checkSubject(body.subject)
  const requests = ctx.store.transaction(() => {
    const made = users.map((userId) =>
      ctx.store.repo(ReviewsRepository).requestReview({ changeRequestId: cr.id, userId, requestedBy: ctx.user.id, revisionId: cr.revisionId }),
    )
    ctx.store.repo(ChangeRequestsRepository).update(cr.id, {
      subject,
      status: cr.status === 'draft' ? 'open' : undefined,
      data: body.description !== undefined ? { description: body.description } : {},
    })
    return made
  })
  const s = serializer(ctx, scope)
  return ok({ users: requests.map((request) => s.requestedReviewer(request)) })
}

/** 205 when the request was withdrawn, 204 when the user had not been asked. Users may also decline for themselves. */
function removeRequestedReviewer(ctx: RequestContext): HandlerResult {
  const userId = ctx.params.userId ?? ''
  const { cr } = changeRequestIn(ctx, userId === ctx.user.id ? 'view' : 'edit')
  requireUnderReview(cr, 'changing its reviewers')
  const removed = ctx.store.transaction(() => {
    const done = ctx.store.repo(ReviewsRepository).removeRequest(cr.id, userId)
    if (done) ctx.store.repo(ChangeRequestsRepository).update(cr.id, {})
    return done
  })
  return { status: removed ? 205 : 204 }
}

/** Who edited the change request's content (`edit`) and who commented in it (`comment`), one entry per kind. */
function listContributors(ctx: RequestContext) {
  const scope = changeRequestIn(ctx, 'view')
  const edits = ctx.store
    .repo(ChangeRequestsRepository)
    .editContributors(scope.cr.id)
    .map((entry) => ({ userId: entry.userId, count: entry.edits, updatedAt: entry.updatedAt, actionType: 'edit' as const }))
  const comments = ctx.store
    .repo(CommentsRepository)
    .commentContributions(scope.cr.id)
    .map((entry) => ({ ...entry, actionType: 'comment' as const }))
  const s = serializer(ctx, scope)
  return ok(paginate([...edits, ...comments], ctx.query, (entry) => s.contributor(entry)))
}

export const changeRequestReviewRoutes: Route[] = [
  { operationId: 'getReviewsByChangeRequestId', handler: listReviews },
  { operationId: 'submitChangeRequestReview', handler: submitReview },
  { operationId: 'getChangeRequestReviewById', handler: getReview },
  { operationId: 'getRequestedReviewersByChangeRequestId', handler: listRequestedReviewers },
  { operationId: 'requestReviewersForChangeRequest', handler: requestReviewers },
  { operationId: 'removeRequestedReviewerFromChangeRequest', handler: removeRequestedReviewer },
  { operationId: 'getContributorsByChangeRequestId', handler: listContributors },
]

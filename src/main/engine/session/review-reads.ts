import { ChangeRequestStatus, type ChangeRequest, type ChangeRequestReview } from '@gitbook/api'
import type { AccountRow, CacheRepository } from '../cache/cache-repository'
import { bodyMarkdown } from '../comments/threads'
import { paginate, ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import type { ForReviewItem, ForReviewList, ReviewerEntry } from '../../../shared/contract'
import type { ReviewVerdict } from '../outbox/review-op-types'

// The read model is the contract's own (the app shows it as is, the CLI prints it): one shape, not a copy.
/** One person's part in a change request's review: asked or not, and their latest verdict. */
export type ReviewerVerdict = ReviewerEntry
/** A change request that waits for the signed-in user's review. */
export type WaitingReview = ForReviewItem
/** What waits for the user's review; `asOf` when the service could not be reached. */
export type ReviewQueue = ForReviewList

const queueKey = (accountId: string) => `review-queue:${accountId}`

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

async function reviewsOf(gateway: ApiGateway, spaceId: string, changeRequestId: string): Promise<ChangeRequestReview[]> {
  const spaces = gateway.client.spaces
  const reviews = await collect(paginate((page) => spaces.getReviewsByChangeRequestId(spaceId, changeRequestId, { page, format: 'markdown' }).then((r) => r.data)))
  return reviews.sort((a, b) => b.createdAt.localeCompare(a.createdAt))
}

/** The reviewers of a change request: who was asked, and each reviewer's latest verdict (asked or not). */
export async function reviewersOf(gateway: ApiGateway, spaceId: string, changeRequestId: string): Promise<ReviewerVerdict[]> {
  const spaces = gateway.client.spaces
  const asked = await collect(paginate((page) => spaces.getRequestedReviewersByChangeRequestId(spaceId, changeRequestId, { page }).then((r) => r.data)))
  const byUser = new Map<string, ReviewerVerdict>()
  for (const request of asked) {
    if (request.kind !== 'user') continue // this client asks users; a team request has no one verdict
    byUser.set(request.user.id, { userId: request.user.id, name: request.user.displayName, requested: true })
  }
  for (const review of await reviewsOf(gateway, spaceId, changeRequestId)) {
    const known = byUser.get(review.reviewer.id)
    if (known?.verdict) continue // newest first: an older review of the same person says nothing more
    const comment = bodyMarkdown(review.comment?.body).trim()
    byUser.set(review.reviewer.id, {
      userId: review.reviewer.id,
      name: review.reviewer.displayName,
      requested: known?.requested ?? false,
      verdict: review.status as ReviewVerdict,
      outdated: review.outdated,
      reviewedAt: review.createdAt,
      ...(comment ? { comment } : {}),
    })
  }
  return [...byUser.values()]
}

/**
 * Change requests that wait for the user's review, across the selected spaces: open ones that ask for
 * the user (one list per organization, with the service's `requestedReviewer` filter) where the user's
 * latest review is missing or outdated (asked reviewers stay listed after they review). The change
 * requests go to the mirror (so a number resolves later), and the list is kept: offline, the list as
 * last read is answered with its time.
 */
export async function waitingForMyReview(o: { gateway: ApiGateway; cache: CacheRepository; outbox: OutboxRepository; account: AccountRow }): Promise<ReviewQueue> {
  const { gateway, cache, outbox, account } = o
  const selected = new Map(cache.selectedSpaces().map((s) => [s.id, s]))
  const orgs = [...new Set([...selected.values()].map((s) => s.orgId))]
  try {
    const items: WaitingReview[] = []
    for (const orgId of orgs) {
      const list = (page: string | undefined) =>
        gateway.client.orgs
          .listChangeRequestsForOrganization(orgId, { page, requestedReviewer: account.userId, status: [ChangeRequestStatus.Open], limit: 100 })
          .then((r) => r.data)
      for await (const cr of paginate(list)) {
        const space = selected.get(cr.space)
        if (!space) continue
        outbox.saveChangeRequest(space.id, cr)
        const own = (await reviewsOf(gateway, space.id, cr.id)).filter((r) => r.reviewer.id === account.userId)
        // Any review of the current content settles it (two made in the same second sort either way).
        if (own.some((r) => !r.outdated)) continue
        const mine = own[0]
        items.push(waiting(space, cr, mine, await askedBy(gateway, space.id, cr.id, account.userId)))
      }
    }
    items.sort((a, b) => b.updatedAt.localeCompare(a.updatedAt))
    cache.setSetting(queueKey(account.id), JSON.stringify({ at: new Date().toISOString(), items }))
    return { items }
  } catch (error) {
    if (!(error instanceof ServiceUnreachableError)) throw error
    const kept = cache.setting(queueKey(account.id))
    if (!kept) throw error
    const { at, items } = JSON.parse(kept) as { at: string; items: WaitingReview[] }
    return { items: items.filter((i) => selected.has(i.spaceId)), asOf: at }
  }
}

/** Who asked the user to review: the request's own `requestedBy`, not the change request's author. */
async function askedBy(gateway: ApiGateway, spaceId: string, changeRequestId: string, userId: string): Promise<string | undefined> {
  const spaces = gateway.client.spaces
  const asked = await collect(paginate((page) => spaces.getRequestedReviewersByChangeRequestId(spaceId, changeRequestId, { page }).then((r) => r.data)))
  const request = asked.find((r) => r.kind === 'user' && r.user.id === userId)
  return request?.requestedBy.displayName
}

function waiting(space: { id: string; title: string }, cr: ChangeRequest, mine: ChangeRequestReview | undefined, requestedBy: string | undefined): WaitingReview {
  return {
    spaceId: space.id,
    spaceTitle: space.title,
    id: cr.id,
    number: cr.number,
    subject: cr.subject ?? '',
    status: cr.status,
    author: cr.createdBy.displayName,
    ...(requestedBy ? { requestedBy } : {}),
    updatedAt: cr.updatedAt,
    url: cr.urls.app,
    ...(mine ? { myReview: { verdict: mine.status as ReviewVerdict, reviewedAt: mine.createdAt } } : {}),
  }
}

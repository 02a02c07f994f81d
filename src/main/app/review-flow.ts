import type { ActivityEntry, ChangeRequestSummary, CommentThread, ForReviewList, ReviewerCandidate, ReviewerEntry, ReviewNews, ReviewVerdict } from '../../shared/contract'
import { type ActionOutcome, type CacheRepository, type OutboxRepository, paginate, ReviewSession, type WorkspaceSession } from '../engine'
import { fromApiError } from './errors'
import type { ReviewActions } from './review-actions'

// Roles that may review (the service's roles, weakest first: read < comment < review < edit < maintain < admin).
const REVIEW_ROLES: ReadonlySet<string> = new Set(['review', 'edit', 'maintain', 'admin', 'create'])

/**
 * The review workflow as the app offers it (issue 13), over the engine's ReviewSession: what waits for
 * the user's review, the reviewers and their verdicts, and the actions (submit, ask or un-ask reviewers,
 * review, archive), each through the session's outbox, so offline the answer says it waits and it goes
 * out once when the service is back. After each pass it looks for news, told as `review` events: a
 * change request newly asking for the user's review, a new review on the user's own change request.
 */
export class ReviewFlow {
  private readonly reviews: ReviewSession
  /** Ids of the change requests waiting for the user's review at the last read (undefined before the first). */
  private waitingKeys: Set<string> | undefined
  private count: number | undefined
  /** Reviews already seen on the user's change requests (undefined before the first look). */
  private seenReviews: Set<string> | undefined
  private looking: Promise<void> | undefined

  constructor(
    private readonly session: WorkspaceSession,
    private readonly deps: {
      cache: CacheRepository
      outbox: OutboxRepository
      actions: ReviewActions
      log: (level: ActivityEntry['level'], message: string, spaceId?: string) => void
      news: (news: ReviewNews) => void
      /** The count changed: the status (tray) should be sent again. */
      countChanged: () => void
    },
  ) {
    this.reviews = new ReviewSession(session, deps)
  }

  /** How many change requests wait for the user's review, as last read. */
  get forReview(): number | undefined {
    return this.count
  }

  /* Reads */

  async listForReview(): Promise<ForReviewList> {
    let queue: ForReviewList
    try {
      queue = await this.reviews.waitingForMyReview()
    } catch (error) {
      throw fromApiError(error, 'Listing what waits for your review')
    }
    const keys = new Set(queue.items.map((i) => i.id))
    // The first read is history; later, a change request that was not waiting before is news.
    if (this.waitingKeys && !queue.asOf) {
      for (const item of queue.items) {
        if (this.waitingKeys.has(item.id)) continue
        this.deps.news({
          kind: 'review-requested',
          key: `review-requested:${item.id}:${item.updatedAt}`,
          title: `${item.requestedBy ?? item.author} asks for your review`,
          body: `#${item.number} ${item.subject || '(no subject)'} in ${item.spaceTitle}`,
          spaceId: item.spaceId,
          changeRequestId: item.id,
        })
      }
    }
    if (!queue.asOf) this.waitingKeys = keys
    if (this.count !== queue.items.length) {
      this.count = queue.items.length
      this.deps.countChanged()
    }
    return queue
  }

  async listReviewers(spaceId: string, changeRequestId: string): Promise<ReviewerEntry[]> {
    try {
      return await this.reviews.reviewers(spaceId, changeRequestId)
    } catch (error) {
      throw fromApiError(error, 'Listing the reviewers')
    }
  }

  /** Who may be asked for a review in the space: its members with the review role or above, the user left out. */
  async candidates(spaceId: string): Promise<ReviewerCandidate[]> {
    const spaces = this.session.gateway.client.spaces
    const out: ReviewerCandidate[] = []
    try {
      for await (const entry of paginate((page) => spaces.listPermissionsAggregateInSpace(spaceId, { page, limit: 100 }).then((r) => r.data))) {
        if (entry.user.id === this.session.account.userId || !REVIEW_ROLES.has(entry.permission)) continue
        out.push({ userId: entry.user.id, name: entry.user.displayName, role: entry.permission })
      }
    } catch (error) {
      throw fromApiError(error, 'Listing who may review')
    }
    return out.sort((a, b) => a.name.localeCompare(b.name))
  }

  /* Actions */

  /** Draft -> open with an optional description, asking the named reviewers at once. */
  async submit(spaceId: string, changeRequestId: string, description?: string, reviewers: string[] = []): Promise<ChangeRequestSummary> {
    const { actions } = this.deps
    let outcome = await actions.act(() => this.reviews.submitForReview(spaceId, changeRequestId, { description }), 'Submitting for review')
    if (reviewers.length > 0) outcome = await actions.act(() => this.reviews.requestReviewers(spaceId, changeRequestId, reviewers), 'Asking for reviews')
    return this.done(spaceId, changeRequestId, outcome, (cr) => `Submitted #${cr.number} for review${reviewers.length ? `, asking ${reviewers.length} reviewer(s)` : ''}`)
  }

  async request(spaceId: string, changeRequestId: string, users: string[]): Promise<ChangeRequestSummary> {
    const outcome = await this.deps.actions.act(() => this.reviews.requestReviewers(spaceId, changeRequestId, users), 'Asking for reviews')
    return this.done(spaceId, changeRequestId, outcome, (cr) => `Asked ${users.length} reviewer(s) on #${cr.number}`)
  }

  async remove(spaceId: string, changeRequestId: string, userId: string): Promise<ChangeRequestSummary> {
    const outcome = await this.deps.actions.act(() => this.reviews.removeReviewer(spaceId, changeRequestId, userId), 'Removing a reviewer')
    return this.done(spaceId, changeRequestId, outcome, (cr) => `Removed a reviewer from #${cr.number}`)
  }

  async review(spaceId: string, changeRequestId: string, verdict: ReviewVerdict, comment?: string): Promise<ChangeRequestSummary> {
    const what = verdict === 'approved' ? 'Approving' : 'Requesting changes'
    const outcome = await this.deps.actions.act(() => this.reviews.review(spaceId, changeRequestId, verdict, comment), what)
    const summary = await this.done(spaceId, changeRequestId, outcome, (cr) => `${verdict === 'approved' ? 'Approved' : 'Requested changes on'} #${cr.number} "${cr.subject}"`)
    // The list of what waits for the user just lost this one (once sent): the tray count follows.
    if (!summary.waiting) void this.listForReview().catch(() => undefined)
    return summary
  }

  async describe(spaceId: string, changeRequestId: string, description: string): Promise<ChangeRequestSummary> {
    const outcome = await this.deps.actions.act(() => this.reviews.describe(spaceId, changeRequestId, description), 'Editing the description')
    return this.done(spaceId, changeRequestId, outcome, (cr) => `Edited the description of #${cr.number}`)
  }

  reopenComment(spaceId: string, changeRequestId: string, commentId: string): Promise<CommentThread> {
    return this.deps.actions.reopen(spaceId, changeRequestId, commentId, () => this.reviews.reopenComment(spaceId, changeRequestId, commentId))
  }

  async archive(spaceId: string, changeRequestId: string): Promise<ChangeRequestSummary> {
    const outcome = await this.deps.actions.act(() => this.reviews.archive(spaceId, changeRequestId), 'Archiving the change request')
    return this.done(spaceId, changeRequestId, outcome, (cr) => `Archived #${cr.number} "${cr.subject}"`)
  }

  private async done(spaceId: string, changeRequestId: string, outcome: ActionOutcome, said: (cr: ChangeRequestSummary) => string): Promise<ChangeRequestSummary> {
    const summary = await this.deps.actions.summary(spaceId, changeRequestId, outcome)
    if (summary.waiting) this.deps.log('warning', `Queued: ${said(summary)}: not sent yet (${summary.waiting})`, spaceId)
    else this.deps.log('info', said(summary), spaceId)
    return summary
  }

  /* News */

  /** After a pass: reads what waits for the user and the reviews on the user's open change requests; one look at a time. */
  /** Resolves once no look for news is in flight (the backend's `idle`). */
  async idle(): Promise<void> {
    await this.looking
  }

  look(): Promise<void> {
    this.looking ??= this.lookOnce()
      .catch(() => undefined) // offline or refused: the next pass looks again
      .finally(() => (this.looking = undefined))
    return this.looking
  }

  private async lookOnce() {
    await this.listForReview()
    const mine = (await this.deps.actions.listChangeRequests({ mine: true })).filter((cr) => cr.status === 'open' && !cr.asOf)
    const seen = new Set<string>()
    const fresh: ReviewNews[] = []
    for (const cr of mine) {
      for (const r of await this.reviews.reviewers(cr.spaceId, cr.id)) {
        if (!r.verdict || !r.reviewedAt) continue
        const key = `review-received:${cr.id}:${r.userId}:${r.reviewedAt}`
        seen.add(key)
        if (this.seenReviews && !this.seenReviews.has(key)) {
          fresh.push({
            kind: 'review-received',
            key,
            title: r.verdict === 'approved' ? `${r.name} approved your change request` : `${r.name} asks for changes`,
            body: `#${cr.number} ${cr.subject} in ${cr.spaceTitle}${r.comment ? `: ${r.comment.slice(0, 120)}` : ''}`,
            spaceId: cr.spaceId,
            changeRequestId: cr.id,
          })
        }
      }
    }
    this.seenReviews = new Set([...(this.seenReviews ?? []), ...seen])
    for (const news of fresh) this.deps.news(news)
  }
}

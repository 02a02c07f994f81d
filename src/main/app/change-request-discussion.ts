import type { ChangeRequest, Comment, CommentReply, JSONDocument } from '@gitbook/api'
import type { ChangeRequestDiscussion, CommentThread, ReviewEvent, ReviewVerdict } from '../../shared/contract'
import { documentToMarkdown } from '../content'
import { bodyMarkdown, paginate, threadOf, type ApiGateway, type CommentsRepository, type OutboxRepository, type Thread } from '../engine'

/** A review's own comment is shown with the review (an event), never as a thread of the discussion. */
const reviewOf = (comment: Comment): string | undefined => (comment.target as { review?: string }).review

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = []
  for await (const item of items) out.push(item)
  return out
}

function asThread(t: Thread, userId: string): CommentThread {
  return {
    id: t.id,
    ...(t.pageId ? { pageId: t.pageId } : {}),
    author: t.author,
    postedAt: t.postedAt,
    markdown: t.markdown,
    resolved: t.status === 'resolved',
    mine: t.authorId === userId,
    replies: t.replies.map((r) => ({ id: r.id, author: r.author, postedAt: r.postedAt, markdown: r.markdown, mine: r.authorId === userId })),
  }
}

/** The change request's description as markdown ('' when it has none). */
export function descriptionOf(cr: Pick<ChangeRequest, 'description'> | { description?: unknown }): string {
  const doc = cr.description as JSONDocument | undefined
  return doc ? documentToMarkdown(doc) : ''
}

/**
 * What a reviewer reads at a change request: its description, its comment threads with their replies
 * (a review's comment left out: it belongs to the review), and its reviews as events. Threads are
 * mirrored in the cache with the change request, so the discussion reads offline as last seen.
 */
export class ChangeRequestDiscussions {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly userId: string,
    private readonly mirror: CommentsRepository,
    private readonly outbox: OutboxRepository,
  ) {}

  async read(spaceId: string, changeRequestId: string): Promise<ChangeRequestDiscussion> {
    const spaces = this.gateway.client.spaces
    const [cr, comments, reviews] = await Promise.all([
      spaces.getChangeRequestById(spaceId, changeRequestId).then((r) => r.data),
      collect(paginate((page) => spaces.listCommentsInChangeRequest(spaceId, changeRequestId, { page, limit: 100, order: 'asc', status: 'all', format: 'markdown' }).then((r) => r.data))),
      collect(paginate((page) => spaces.getReviewsByChangeRequestId(spaceId, changeRequestId, { page, format: 'markdown' }).then((r) => r.data))),
    ])
    this.outbox.saveChangeRequest(spaceId, cr)
    const threads = await Promise.all(comments.filter((c) => !reviewOf(c)).map((c) => this.withReplies(spaceId, changeRequestId, c)))
    const events: ReviewEvent[] = reviews
      .map((r) => {
        const comment = bodyMarkdown(r.comment?.body).trim()
        return { id: r.id, reviewer: r.reviewer.displayName, verdict: r.status as ReviewVerdict, at: r.createdAt, outdated: r.outdated, ...(comment ? { comment } : {}) }
      })
      .sort((a, b) => a.at.localeCompare(b.at))
    return { description: descriptionOf(cr), canEditDescription: cr.createdBy.id === this.userId, threads: threads.map((t) => asThread(t, this.userId)), reviews: events }
  }

  /** One thread read again (after a reply, a resolve, a reopen). */
  async thread(spaceId: string, changeRequestId: string, commentId: string): Promise<CommentThread> {
    const comment = (await this.gateway.client.spaces.getCommentInChangeRequest(spaceId, changeRequestId, commentId, { format: 'markdown' })).data
    return asThread(await this.withReplies(spaceId, changeRequestId, comment), this.userId)
  }

  /** The discussion as last read: the mirrored threads and the mirrored change request's description. */
  fromMirror(spaceId: string, changeRequestId: string, asOf: string): ChangeRequestDiscussion {
    const row = this.outbox.changeRequest(changeRequestId)
    const threads = this.mirror.threadsOfChangeRequest(spaceId, changeRequestId)
    const data = (row?.data ?? {}) as { description?: unknown; createdBy?: { id?: string } }
    const seen = threads.map((t) => t.fetchedAt).sort().at(-1)
    return {
      description: descriptionOf(data),
      canEditDescription: data.createdBy?.id === this.userId,
      threads: threads.map((t) => ({ ...asThread(t, this.userId), asOf: t.fetchedAt })),
      reviews: [],
      asOf: seen ?? asOf,
    }
  }

  /** A mirrored thread of the change request, when it was read before. */
  mirrored(commentId: string): CommentThread | undefined {
    const thread = this.mirror.thread(commentId)
    return thread && asThread(thread, this.userId)
  }

  private async withReplies(spaceId: string, changeRequestId: string, comment: Comment): Promise<Thread> {
    const replies: CommentReply[] =
      comment.replies > 0
        ? await collect(paginate((page) => this.gateway.client.spaces.listCommentRepliesInChangeRequest(spaceId, changeRequestId, comment.id, { page, limit: 100, format: 'markdown' }).then((r) => r.data)))
        : []
    const thread = threadOf(comment, [...replies].sort((a, b) => a.postedAt.localeCompare(b.postedAt)), new Date().toISOString())
    this.mirror.save(thread)
    return thread
  }
}

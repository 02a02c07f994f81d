import type { Comment, CommentReply, Document } from '@gitbook/api'
import type { CommentThread } from '../../shared/contract'
import { type ApiGateway, type CommentsRepository, paginate, type Thread, threadOf } from '../engine'
import { fromApiError } from './errors'

/** A body asked for as markdown comes back as `{ markdown }`; anything else is shown as empty text. */
function markdownOf(body: Document): string {
  return typeof body === 'object' && body !== null && 'markdown' in body && typeof body.markdown === 'string' ? body.markdown : ''
}

function reply(r: CommentReply): CommentThread['replies'][number] {
  return { id: r.id, author: r.postedBy.displayName, postedAt: r.postedAt, markdown: markdownOf(r.body) }
}

/**
 * Comment threads of a space (not those inside change requests), with their replies. Every thread read
 * is mirrored in the cache, so the same list can be shown offline (`fromMirror`).
 */
export class Comments {
  constructor(
    private readonly gateway: ApiGateway,
    /** Page titles by id, when the caller knows them. */
    private readonly pageTitle: (spaceId: string, pageId: string) => Promise<string | undefined>,
    private readonly mirror?: CommentsRepository,
  ) {}

  /** The threads as last read from the service, marked with the time they were read. */
  async fromMirror(spaceId: string, pageId?: string): Promise<CommentThread[]> {
    const threads = (this.mirror?.threadsOfSpace(spaceId) ?? []).filter((t) => !pageId || t.pageId === pageId)
    return Promise.all(threads.map((t) => this.mirrored(t)))
  }

  async mirrored(t: Thread): Promise<CommentThread> {
    const pageTitle = t.pageId ? await this.pageTitle(t.spaceId, t.pageId).catch(() => undefined) : undefined
    return {
      id: t.id,
      ...(t.pageId ? { pageId: t.pageId } : {}),
      ...(pageTitle ? { pageTitle } : {}),
      author: t.author,
      postedAt: t.postedAt,
      markdown: t.markdown,
      resolved: t.status === 'resolved',
      replies: t.replies.map((r) => ({ id: r.id, author: r.author, postedAt: r.postedAt, markdown: r.markdown })),
      asOf: t.fetchedAt,
    }
  }

  async threads(spaceId: string, pageId?: string): Promise<CommentThread[]> {
    const client = this.gateway.client
    try {
      const comments: Comment[] = []
      const pages = paginate((page) =>
        client.spaces.listCommentsInSpace(spaceId, { page, limit: 100, order: 'asc', status: 'all', format: 'markdown', ...(pageId ? { targetPage: pageId } : {}) }).then((r) => r.data),
      )
      for await (const comment of pages) comments.push(comment)
      return await Promise.all(comments.map((comment) => this.thread(spaceId, comment)))
    } catch (error) {
      throw fromApiError(error, 'Listing comments')
    }
  }

  async post(spaceId: string, pageId: string, markdown: string): Promise<CommentThread> {
    try {
      const comment = (await this.gateway.client.spaces.postCommentInSpace(spaceId, { page: pageId, body: { markdown } })).data
      return await this.reload(spaceId, comment.id)
    } catch (error) {
      throw fromApiError(error, 'Posting the comment')
    }
  }

  async reply(spaceId: string, commentId: string, markdown: string): Promise<CommentThread> {
    try {
      await this.gateway.client.spaces.postCommentReplyInSpace(spaceId, commentId, { body: { markdown } })
      return await this.reload(spaceId, commentId)
    } catch (error) {
      throw fromApiError(error, 'Replying to the comment')
    }
  }

  async resolve(spaceId: string, commentId: string): Promise<CommentThread> {
    try {
      await this.gateway.client.spaces.updateCommentInSpace(spaceId, commentId, { resolved: true })
      return await this.reload(spaceId, commentId)
    } catch (error) {
      throw fromApiError(error, 'Resolving the comment')
    }
  }

  async reload(spaceId: string, commentId: string): Promise<CommentThread> {
    const comment = (await this.gateway.client.spaces.getCommentInSpace(spaceId, commentId, { format: 'markdown' })).data
    return this.thread(spaceId, comment)
  }

  private async thread(spaceId: string, comment: Comment): Promise<CommentThread> {
    const replies: CommentReply[] = []
    if (comment.replies > 0) {
      const pages = paginate((page) => this.gateway.client.spaces.listCommentRepliesInSpace(spaceId, comment.id, { page, limit: 100, format: 'markdown' }).then((r) => r.data))
      for await (const r of pages) replies.push(r)
    }
    this.mirror?.save(threadOf(comment, replies, new Date().toISOString()))
    const pageId = comment.target.page?.id
    const pageTitle = pageId ? await this.pageTitle(spaceId, pageId) : undefined
    return {
      id: comment.id,
      ...(pageId ? { pageId } : {}),
      ...(pageTitle ? { pageTitle } : {}),
      author: comment.postedBy.displayName,
      postedAt: comment.postedAt,
      markdown: markdownOf(comment.body),
      resolved: comment.status === 'resolved',
      replies: replies.sort((a, b) => a.postedAt.localeCompare(b.postedAt)).map(reply),
    }
  }
}

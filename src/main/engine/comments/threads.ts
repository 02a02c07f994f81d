import type { Comment, CommentReply } from '@gitbook/api'
import { paginate, type ApiGateway } from '../gateway/api-gateway'
import type { CommentsRepository, Thread, ThreadReply } from './comments-repository'

/** The markdown of a comment body (the service is asked for markdown; a document body reads as empty). */
export function bodyMarkdown(body: unknown): string {
  return typeof body === 'object' && body !== null && 'markdown' in body && typeof body.markdown === 'string' ? body.markdown : ''
}

export function threadOf(comment: Comment, replies: readonly CommentReply[], fetchedAt: string): Thread {
  return {
    id: comment.id,
    spaceId: comment.target.space,
    ...(comment.target.changeRequest ? { changeRequestId: comment.target.changeRequest } : {}),
    ...(comment.target.page ? { pageId: comment.target.page.id } : {}),
    author: comment.postedBy.displayName,
    authorId: comment.postedBy.id,
    postedAt: comment.postedAt,
    markdown: bodyMarkdown(comment.body),
    status: comment.status === 'resolved' ? 'resolved' : 'open',
    ...(comment.status === 'resolved' ? { resolvedAt: comment.resolvedAt } : {}),
    replies: replies.map(replyOf),
    fetchedAt,
  }
}

export function replyOf(reply: CommentReply): ThreadReply {
  return { id: reply.id, author: reply.postedBy.displayName, authorId: reply.postedBy.id, postedAt: reply.postedAt, markdown: bodyMarkdown(reply.body) }
}

/**
 * Reads the threads of one page from the service (the space's and, when given, those of a change
 * request) with their replies, and mirrors them. Throws when the service cannot be reached: callers
 * fall back to the mirror.
 */
export async function refreshPageThreads(gateway: ApiGateway, repo: CommentsRepository, spaceId: string, pageId: string, changeRequestId?: string): Promise<Thread[]> {
  const now = new Date().toISOString()
  const spaces = gateway.client.spaces
  const comments: Comment[] = []
  for await (const c of paginate((page) => spaces.listCommentsInSpace(spaceId, { page, targetPage: pageId, format: 'markdown', order: 'asc' }).then((r) => r.data))) comments.push(c)
  const threads: Thread[] = []
  for (const comment of comments) {
    const replies: CommentReply[] = []
    if (comment.replies > 0) {
      for await (const r of paginate((page) => spaces.listCommentRepliesInSpace(spaceId, comment.id, { page, format: 'markdown' }).then((res) => res.data))) replies.push(r)
    }
    threads.push(threadOf(comment, replies, now))
  }
  repo.replacePage(spaceId, pageId, undefined, threads)
  if (changeRequestId) {
    const inChangeRequest: Comment[] = []
    for await (const c of paginate((page) =>
      spaces.listCommentsInChangeRequest(spaceId, changeRequestId, { page, targetPage: pageId, format: 'markdown', order: 'asc' }).then((r) => r.data),
    )) {
      inChangeRequest.push(c)
    }
    const crThreads: Thread[] = []
    for (const comment of inChangeRequest) {
      const replies: CommentReply[] = []
      if (comment.replies > 0) {
        for await (const r of paginate((page) =>
          spaces.listCommentRepliesInChangeRequest(spaceId, changeRequestId, comment.id, { page, format: 'markdown' }).then((res) => res.data),
        )) {
          replies.push(r)
        }
      }
      crThreads.push(threadOf(comment, replies, now))
    }
    repo.replacePage(spaceId, pageId, changeRequestId, crThreads)
  }
  return repo.threadsOfPage(spaceId, pageId)
}

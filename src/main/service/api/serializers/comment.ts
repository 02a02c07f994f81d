import type { Comment, CommentReply, Document, EmojiReaction, JSONDocument, User, UserContributor } from '@gitbook/api'
import { markdownToDocument } from '../../../content'
import { atLeast, type Role } from '../../access/roles'
import { CommentsRepository, type CommentRecord, type ReplyRecord, type StoredBody } from '../../store/comments'
import type { ServiceStore } from '../../store/service-store'
import { UsersRepository } from '../../store/users'
import { apiUrl } from '../urls'
import { userJson } from '../users'

export type BodyFormat = 'markdown' | 'document'

export interface CommentPermissions {
  view: boolean
  edit: boolean
  reply: boolean
  delete: boolean
}

/**
 * What the caller may do with a comment or reply. Handlers enforce exactly these flags, so the
 * `permissions` a response shows are the rules the service applies: reading needs `read`; replying,
 * reacting and resolving need `comment`; editing and deleting are for the author (while they may still
 * comment) and for space admins.
 */
export function commentPermissions(role: Role | null, authorId: string, userId: string): CommentPermissions {
  const reply = atLeast(role, 'comment')
  const own = (reply && authorId === userId) || atLeast(role, 'admin')
  return { view: atLeast(role, 'read'), edit: own, reply, delete: own }
}

/** Where a comment lives: the space itself or one of its change requests. */
export interface CommentScope {
  spaceId: string
  changeRequestId: string | null
}

export const commentsPath = (scope: CommentScope) =>
  scope.changeRequestId === null ? `/spaces/${scope.spaceId}/comments` : `/spaces/${scope.spaceId}/change-requests/${scope.changeRequestId}/comments`

/** Renders comments and replies for one caller; users are looked up once per serializer. */
export class CommentSerializer {
  private readonly users = new Map<string, User>()

  constructor(
    private readonly store: ServiceStore,
    private readonly origin: string,
    private readonly viewer: { userId: string; role: Role | null },
    private readonly format: BodyFormat = 'markdown',
  ) {}

  comment(comment: CommentRecord): Comment {
    const repo = this.store.repo(CommentsRepository)
    const scope: CommentScope = { spaceId: comment.spaceId, changeRequestId: comment.changeRequestId }
    const base = {
      object: 'comment' as const,
      id: comment.id,
      postedBy: this.user(comment.postedBy),
      postedAt: comment.postedAt,
      ...(comment.editedAt ? { editedAt: comment.editedAt } : {}),
      reactions: this.reactions(comment.id),
      replies: repo.replyCount(comment.id),
      repliers: repo.repliers(comment.id).map(
        (r): UserContributor => ({ updatedAt: r.updatedAt, count: r.count, user: this.user(r.userId) }),
      ),
      body: this.body(comment.body),
      target: {
        ...(comment.nodeId ? { node: { id: comment.nodeId } } : {}),
        ...(comment.tableCell ? { tableCell: comment.tableCell } : {}),
        ...(comment.changeRequestId ? { changeRequest: comment.changeRequestId } : {}),
        ...(comment.reviewId ? { review: comment.reviewId } : {}),
        ...(comment.pageId ? { page: { id: comment.pageId } } : {}),
        space: comment.spaceId,
        revision: comment.revisionId,
      },
      urls: { location: apiUrl(this.origin, `${commentsPath(scope)}/${comment.id}`) },
      permissions: commentPermissions(this.viewer.role, comment.postedBy, this.viewer.userId),
    }
    return comment.resolvedAt && comment.resolvedBy
      ? { ...base, status: 'resolved', resolvedAt: comment.resolvedAt, resolvedBy: this.user(comment.resolvedBy) }
      : { ...base, status: 'open' }
  }

  reply(comment: CommentRecord, reply: ReplyRecord): CommentReply {
    const scope: CommentScope = { spaceId: comment.spaceId, changeRequestId: comment.changeRequestId }
    return {
      object: 'comment-reply',
      id: reply.id,
      postedBy: this.user(reply.postedBy),
      postedAt: reply.postedAt,
      ...(reply.editedAt ? { editedAt: reply.editedAt } : {}),
      reactions: this.reactions(reply.id),
      body: this.body(reply.body),
      urls: { location: apiUrl(this.origin, `${commentsPath(scope)}/${comment.id}/replies/${reply.id}`) },
      permissions: commentPermissions(this.viewer.role, reply.postedBy, this.viewer.userId),
    }
  }

  private body(body: StoredBody): Document {
    if (this.format === 'markdown') return { markdown: body.markdown }
    const document: JSONDocument = body.document ?? markdownToDocument(body.markdown)
    return { document }
  }

  /** One entry per emoji, in the order each emoji was first used. */
  private reactions(targetId: string): EmojiReaction[] {
    const byEmoji = new Map<string, EmojiReaction>()
    for (const r of this.store.repo(CommentsRepository).reactions(targetId)) {
      let entry = byEmoji.get(r.emoji)
      if (!entry) {
        entry = { emoji: r.emoji, count: 0, users: [] }
        byEmoji.set(r.emoji, entry)
      }
      entry.users.push({ user: this.user(r.userId), reactedAt: r.reactedAt })
      entry.count = entry.users.length
    }
    return [...byEmoji.values()]
  }

  private user(id: string): User {
    let user = this.users.get(id)
    if (!user) {
      const row = this.store.repo(UsersRepository).get(id)
      if (!row) throw new Error(`user ${id} referenced by a comment does not exist`)
      user = userJson(row, this.origin)
      this.users.set(id, user)
    }
    return user
  }
}

import type Database from 'better-sqlite3'
import type { JSONDocument } from '@gitbook/api'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/**
 * A comment or reply body. `markdown` is always kept (the searchable, plain form); when the author sent
 * a JSON document it is kept verbatim too, so reading it back in `document` format loses nothing.
 */
export interface StoredBody {
  markdown: string
  document?: JSONDocument
}

export interface TableCell {
  record: string
  definition: string
}

export interface CommentRecord {
  id: string
  spaceId: string
  /** Null for comments on the space itself. */
  changeRequestId: string | null
  pageId: string | null
  nodeId: string | null
  tableCell: TableCell | null
  /** The revision the target was seen in when the comment was posted. */
  revisionId: string
  /** The change request review this comment was posted with. */
  reviewId: string | null
  body: StoredBody
  postedBy: string
  postedAt: string
  editedAt: string | null
  resolvedAt: string | null
  resolvedBy: string | null
}

export interface ReplyRecord {
  id: string
  commentId: string
  body: StoredBody
  postedBy: string
  postedAt: string
  editedAt: string | null
}

export interface ReactionRecord {
  emoji: string
  userId: string
  reactedAt: string
}

export interface ReplierSummary {
  userId: string
  count: number
  /** Latest time the user posted or edited a reply. */
  updatedAt: string
}

export type CommentStatusFilter = 'all' | 'open' | 'resolved'

export interface CommentListFilter {
  spaceId: string
  changeRequestId: string | null
  status: CommentStatusFilter
  pageId?: string
  authors?: string[]
  order: 'asc' | 'desc'
}

interface CommentData {
  revision?: string
  review?: string
  tableCell?: TableCell
  document?: JSONDocument
}

interface CommentRow {
  id: string
  space_id: string
  change_request_id: string | null
  page_id: string | null
  node_id: string | null
  body: string
  posted_by: string
  posted_at: string
  edited_at: string | null
  resolved_at: string | null
  resolved_by: string | null
  data: string
}

interface ReplyRow {
  id: string
  comment_id: string
  body: string
  posted_by: string
  posted_at: string
  edited_at: string | null
  data: string
}

const bodyOf = (markdown: string, document: JSONDocument | undefined): StoredBody => (document ? { markdown, document } : { markdown })

function toComment(row: CommentRow): CommentRecord {
  const data = parseJson<CommentData>(row.data, {})
  return {
    id: row.id,
    spaceId: row.space_id,
    changeRequestId: row.change_request_id,
    pageId: row.page_id,
    nodeId: row.node_id,
    tableCell: data.tableCell ?? null,
    revisionId: data.revision ?? '',
    reviewId: data.review ?? null,
    body: bodyOf(row.body, data.document),
    postedBy: row.posted_by,
    postedAt: row.posted_at,
    editedAt: row.edited_at,
    resolvedAt: row.resolved_at,
    resolvedBy: row.resolved_by,
  }
}

function toReply(row: ReplyRow): ReplyRecord {
  const data = parseJson<{ document?: JSONDocument }>(row.data, {})
  return {
    id: row.id,
    commentId: row.comment_id,
    body: bodyOf(row.body, data.document),
    postedBy: row.posted_by,
    postedAt: row.posted_at,
    editedAt: row.edited_at,
  }
}

const commentData = (c: Pick<CommentRecord, 'revisionId' | 'reviewId' | 'tableCell' | 'body'>): string =>
  JSON.stringify({
    revision: c.revisionId,
    ...(c.reviewId ? { review: c.reviewId } : {}),
    ...(c.tableCell ? { tableCell: c.tableCell } : {}),
    ...(c.body.document ? { document: c.body.document } : {}),
  } satisfies CommentData)

const replyData = (body: StoredBody): string => JSON.stringify(body.document ? { document: body.document } : {})

/** Comments on spaces and change requests, their replies, and emoji reactions to either. */
export class CommentsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: {
    spaceId: string
    changeRequestId: string | null
    revisionId: string
    pageId?: string
    nodeId?: string
    tableCell?: TableCell
    reviewId?: string
    body: StoredBody
    postedBy: string
  }): CommentRecord {
    const comment: CommentRecord = {
      id: newId(),
      spaceId: input.spaceId,
      changeRequestId: input.changeRequestId,
      pageId: input.pageId ?? null,
      nodeId: input.nodeId ?? null,
      tableCell: input.tableCell ?? null,
      revisionId: input.revisionId,
      reviewId: input.reviewId ?? null,
      body: input.body,
      postedBy: input.postedBy,
      postedAt: this.store.now(),
      editedAt: null,
      resolvedAt: null,
      resolvedBy: null,
    }
    this.db
      .prepare(
        `INSERT INTO comments (id, space_id, change_request_id, page_id, node_id, body, posted_by, posted_at, edited_at, resolved_at, resolved_by, data)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, NULL, NULL, NULL, ?)`,
      )
      .run(
        comment.id,
        comment.spaceId,
        comment.changeRequestId,
        comment.pageId,
        comment.nodeId,
        comment.body.markdown,
        comment.postedBy,
        comment.postedAt,
        commentData(comment),
      )
    return comment
  }

  get(id: string): CommentRecord | undefined {
    const row = this.db.prepare('SELECT * FROM comments WHERE id = ?').get(id) as CommentRow | undefined
    return row && toComment(row)
  }

  list(filter: CommentListFilter): CommentRecord[] {
    const where = ['space_id = ?', filter.changeRequestId === null ? 'change_request_id IS NULL' : 'change_request_id = ?']
    const args: string[] = [filter.spaceId]
    if (filter.changeRequestId !== null) args.push(filter.changeRequestId)
    if (filter.status === 'open') where.push('resolved_at IS NULL')
    if (filter.status === 'resolved') where.push('resolved_at IS NOT NULL')
    if (filter.pageId !== undefined) {
      where.push('page_id = ?')
      args.push(filter.pageId)
    }
    if (filter.authors && filter.authors.length > 0) {
      where.push(`posted_by IN (${filter.authors.map(() => '?').join(', ')})`)
      args.push(...filter.authors)
    }
    const direction = filter.order === 'asc' ? 'ASC' : 'DESC'
    const rows = this.db
      .prepare(`SELECT * FROM comments WHERE ${where.join(' AND ')} ORDER BY posted_at ${direction}, rowid ${direction}`)
      .all(...args) as CommentRow[]
    return rows.map(toComment)
  }

  setBody(id: string, body: StoredBody): void {
    const current = this.get(id)
    if (!current) throw new Error(`comment ${id} does not exist`)
    this.db
      .prepare('UPDATE comments SET body = ?, edited_at = ?, data = ? WHERE id = ?')
      .run(body.markdown, this.store.now(), commentData({ ...current, body }), id)
  }

  /** Resolving an already resolved comment keeps who resolved it first and when. */
  setResolved(id: string, resolved: boolean, userId: string): void {
    if (resolved) {
      this.db
        .prepare('UPDATE comments SET resolved_at = ?, resolved_by = ? WHERE id = ? AND resolved_at IS NULL')
        .run(this.store.now(), userId, id)
    } else {
      this.db.prepare('UPDATE comments SET resolved_at = NULL, resolved_by = NULL WHERE id = ?').run(id)
    }
  }

  /** Removes the comment with its replies and every reaction to them; false when it did not exist. */
  delete(id: string): boolean {
    return this.store.transaction(() => {
      this.db.prepare('DELETE FROM reactions WHERE target_id IN (SELECT id FROM comment_replies WHERE comment_id = ?)').run(id)
      this.db.prepare('DELETE FROM reactions WHERE target_id = ?').run(id)
      return this.db.prepare('DELETE FROM comments WHERE id = ?').run(id).changes > 0
    })
  }

  /** Open (unresolved) comments of a space itself, or of one of its change requests. */
  openCount(scope: { spaceId: string; changeRequestId?: string | null }): number {
    const row = (
      scope.changeRequestId
        ? this.db
            .prepare('SELECT COUNT(*) AS n FROM comments WHERE space_id = ? AND change_request_id = ? AND resolved_at IS NULL')
            .get(scope.spaceId, scope.changeRequestId)
        : this.db.prepare('SELECT COUNT(*) AS n FROM comments WHERE space_id = ? AND change_request_id IS NULL AND resolved_at IS NULL').get(scope.spaceId)
    ) as { n: number }
    return row.n
  }

  createReply(input: { commentId: string; body: StoredBody; postedBy: string }): ReplyRecord {
    const reply: ReplyRecord = { id: newId(), commentId: input.commentId, body: input.body, postedBy: input.postedBy, postedAt: this.store.now(), editedAt: null }
    this.db
      .prepare('INSERT INTO comment_replies (id, comment_id, body, posted_by, posted_at, edited_at, data) VALUES (?, ?, ?, ?, ?, NULL, ?)')
      .run(reply.id, reply.commentId, reply.body.markdown, reply.postedBy, reply.postedAt, replyData(reply.body))
    return reply
  }

  getReply(commentId: string, replyId: string): ReplyRecord | undefined {
    const row = this.db.prepare('SELECT * FROM comment_replies WHERE id = ? AND comment_id = ?').get(replyId, commentId) as ReplyRow | undefined
    return row && toReply(row)
  }

  /** Oldest first: a thread reads top to bottom. */
  listReplies(commentId: string): ReplyRecord[] {
    return (this.db.prepare('SELECT * FROM comment_replies WHERE comment_id = ? ORDER BY posted_at, rowid').all(commentId) as ReplyRow[]).map(toReply)
  }

  setReplyBody(replyId: string, body: StoredBody): void {
    this.db
      .prepare('UPDATE comment_replies SET body = ?, edited_at = ?, data = ? WHERE id = ?')
      .run(body.markdown, this.store.now(), replyData(body), replyId)
  }

  deleteReply(commentId: string, replyId: string): boolean {
    return this.store.transaction(() => {
      const removed = this.db.prepare('DELETE FROM comment_replies WHERE id = ? AND comment_id = ?').run(replyId, commentId).changes > 0
      if (removed) this.db.prepare('DELETE FROM reactions WHERE target_id = ?').run(replyId)
      return removed
    })
  }

  replyCount(commentId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM comment_replies WHERE comment_id = ?').get(commentId) as { n: number }).n
  }

  /** One entry per user who replied, in the order they first replied. */
  repliers(commentId: string): ReplierSummary[] {
    const rows = this.db
      .prepare(
        `SELECT posted_by, COUNT(*) AS n, MAX(COALESCE(edited_at, posted_at)) AS updated_at, MIN(rowid) AS first
         FROM comment_replies WHERE comment_id = ? GROUP BY posted_by ORDER BY first`,
      )
      .all(commentId) as Array<{ posted_by: string; n: number; updated_at: string }>
    return rows.map((r) => ({ userId: r.posted_by, count: r.n, updatedAt: r.updated_at }))
  }

  /** Users who posted a comment or a reply in the space itself or in one change request, first contribution first. */
  commenters(scope: { spaceId: string; changeRequestId: string | null }): string[] {
    const scoped = scope.changeRequestId === null ? 'c.change_request_id IS NULL' : 'c.change_request_id = ?'
    const args = scope.changeRequestId === null ? [scope.spaceId, scope.spaceId] : [scope.spaceId, scope.changeRequestId, scope.spaceId, scope.changeRequestId]
    // Same-millisecond contributions tie-break on insertion order, comments before replies.
    const rows = this.db
      .prepare(
        `SELECT c.posted_by AS user_id, c.posted_at AS at, 0 AS kind, c.rowid AS seq FROM comments c WHERE c.space_id = ? AND ${scoped}
         UNION ALL
         SELECT r.posted_by, r.posted_at, 1, r.rowid FROM comment_replies r JOIN comments c ON c.id = r.comment_id WHERE c.space_id = ? AND ${scoped}
         ORDER BY at, kind, seq`,
      )
      .all(...args) as Array<{ user_id: string }>
    return [...new Set(rows.map((r) => r.user_id))]
  }

  /** Per user, how many comments and replies they posted in one change request and when they last did. */
  commentContributions(changeRequestId: string): Array<{ userId: string; count: number; updatedAt: string }> {
    const rows = this.db
      .prepare(
        `SELECT user_id, COUNT(*) AS count, MAX(at) AS updated_at, MIN(seq) AS first FROM (
           SELECT c.posted_by AS user_id, COALESCE(c.edited_at, c.posted_at) AS at, c.rowid AS seq FROM comments c WHERE c.change_request_id = ?
           UNION ALL
           SELECT r.posted_by, COALESCE(r.edited_at, r.posted_at), r.rowid FROM comment_replies r JOIN comments c ON c.id = r.comment_id
             WHERE c.change_request_id = ?
         ) GROUP BY user_id ORDER BY MIN(at), first`,
      )
      .all(changeRequestId, changeRequestId) as Array<{ user_id: string; count: number; updated_at: string }>
    return rows.map((r) => ({ userId: r.user_id, count: r.count, updatedAt: r.updated_at }))
  }

  /** A user reacting twice with the same emoji still counts once; the first reaction's time is kept. */
  addReactions(targetId: string, userId: string, emojis: readonly string[]): void {
    const insert = this.db.prepare('INSERT OR IGNORE INTO reactions (target_id, emoji, user_id, reacted_at) VALUES (?, ?, ?, ?)')
    const now = this.store.now()
    for (const emoji of emojis) insert.run(targetId, emoji, userId, now)
  }

  removeReactions(targetId: string, userId: string, emojis: readonly string[]): void {
    const remove = this.db.prepare('DELETE FROM reactions WHERE target_id = ? AND user_id = ? AND emoji = ?')
    for (const emoji of emojis) remove.run(targetId, userId, emoji)
  }

  /** Reactions in the order they were made. */
  reactions(targetId: string): ReactionRecord[] {
    const rows = this.db
      .prepare('SELECT emoji, user_id, reacted_at FROM reactions WHERE target_id = ? ORDER BY reacted_at, rowid')
      .all(targetId) as Array<{ emoji: string; user_id: string; reacted_at: string }>
    return rows.map((r) => ({ emoji: r.emoji, userId: r.user_id, reactedAt: r.reacted_at }))
  }
}

/** The `comments` counter of a Space (no `changeRequestId`) or of a ChangeRequest: open comments only. */
export function openCommentCount(store: ServiceStore, scope: { spaceId: string; changeRequestId?: string | null }): number {
  return store.repo(CommentsRepository).openCount(scope)
}

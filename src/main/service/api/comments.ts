import type { Document, JSONDocument, PostCommentSchema, UpdateCommentSchema } from '@gitbook/api'
import { documentToMarkdown, findPage } from '../../content'
import { atLeast, type Role } from '../access/roles'
import { spaceRole } from '../access/space-access'
import { noContent, ok, type Handler, type HandlerResult, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { ChangeRequestsRepository } from '../store/change-requests'
import { CommentsRepository, type CommentRecord, type CommentStatusFilter, type StoredBody } from '../store/comments'
import { OrganizationsRepository, type OrgMember } from '../store/organizations'
import { RevisionsRepository } from '../store/revisions'
import { SpacesRepository, type Space } from '../store/spaces'
import { UsersRepository } from '../store/users'
import { CommentSerializer, commentPermissions, type BodyFormat, type CommentScope } from './serializers/comment'
import { organizationMemberJson } from './serializers/team-member'
import { deleted } from './serializers/deleted'

/** The spec sets no length limit on comment bodies; this one keeps a single comment a sane size. */
const MAX_BODY_CHARS = 100_000
/** Target ids (node, table record/definition) are short opaque keys. */
const MAX_TARGET_ID_CHARS = 256
const MAX_REACTIONS_PER_REQUEST = 50
const MAX_EMOJI_CHARS = 32

/** A comment thread's home as the caller reaches it: the space or one change request, and the caller's role. */
interface ResolvedScope extends CommentScope {
  space: Space
  role: Role
  /** The content comments posted now refer to: the space's current revision or the change request's head. */
  revisionId: string | null
}

type ScopeResolver = (ctx: RequestContext) => ResolvedScope

/** A space the caller cannot read is reported as absent, like one that does not exist. */
function readableSpace(ctx: RequestContext): { space: Space; role: Role } {
  const space = ctx.store.repo(SpacesRepository).get(ctx.params.spaceId)
  const role = space && !space.deletedAt ? spaceRole(ctx.store, space, ctx.user.id) : null
  if (!space || !role || !atLeast(role, 'read')) throw notFound(`Space ${ctx.params.spaceId} not found`)
  return { space, role }
}

const inSpace: ScopeResolver = (ctx) => {
  const { space, role } = readableSpace(ctx)
  return { space, role, spaceId: space.id, changeRequestId: null, revisionId: space.revisionId }
}

const inChangeRequest: ScopeResolver = (ctx) => {
  const { space, role } = readableSpace(ctx)
  const changeRequest = ctx.store.repo(ChangeRequestsRepository).resolve(space.id, ctx.params.changeRequestId)
  if (!changeRequest) throw notFound(`Change request ${ctx.params.changeRequestId} not found`)
  return { space, role, spaceId: space.id, changeRequestId: changeRequest.id, revisionId: changeRequest.revisionId }
}

function serializer(ctx: RequestContext, scope: ResolvedScope): CommentSerializer {
  const format = ctx.query.format === 'document' ? 'document' : 'markdown'
  return new CommentSerializer(ctx.store, ctx.origin, { userId: ctx.user.id, role: scope.role }, format satisfies BodyFormat)
}

function commentIn(ctx: RequestContext, scope: ResolvedScope): CommentRecord | undefined {
  const comment = ctx.store.repo(CommentsRepository).get(ctx.params.commentId)
  return comment && comment.spaceId === scope.spaceId && comment.changeRequestId === scope.changeRequestId ? comment : undefined
}

function requireComment(ctx: RequestContext, scope: ResolvedScope): CommentRecord {
  const comment = commentIn(ctx, scope)
  if (!comment) throw notFound(`Comment ${ctx.params.commentId} not found`)
  return comment
}

/** A body as stored: markdown always, plus the JSON document when that is what the author sent. */
export function storedBody(body: Document): StoredBody {
  let stored: StoredBody
  if ('markdown' in body && typeof body.markdown === 'string') stored = { markdown: body.markdown }
  else if ('document' in body) {
    const document = body.document as JSONDocument
    stored = { markdown: documentToMarkdown(document), document }
  } else throw badRequest('body/body must not be empty: send {markdown} or {document}')
  if (stored.markdown.trim() === '') throw badRequest('body/body must have some text')
  if (stored.markdown.length > MAX_BODY_CHARS) throw badRequest(`body/body must be at most ${MAX_BODY_CHARS} characters`)
  return stored
}

function targetId(value: string | undefined, field: string): string | undefined {
  if (value === undefined) return undefined
  if (value.trim() === '' || value.length > MAX_TARGET_ID_CHARS) throw badRequest(`body/${field} must be 1 to ${MAX_TARGET_ID_CHARS} characters`)
  return value
}

const EMOJI_CHARS = /^(?:\p{Extended_Pictographic}|\p{Emoji_Component}|\u200d|\ufe0f|\u20e3)+$/u
const EMOJI_CORE = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20e3/u

interface ReactionChanges {
  added: string[]
  removed: string[]
}

/** Reactions are emoji characters (a flag, a keycap or a ZWJ sequence counts as one). */
function reactionChanges(input: { addedReactions?: string[]; removedReactions?: string[] }): ReactionChanges {
  const check = (list: string[] | undefined, field: string): string[] => {
    const unique = [...new Set(list ?? [])]
    if (unique.length > MAX_REACTIONS_PER_REQUEST) throw badRequest(`body/${field} may hold at most ${MAX_REACTIONS_PER_REQUEST} emojis`)
    for (const emoji of unique) {
      if (emoji.length > MAX_EMOJI_CHARS || !EMOJI_CHARS.test(emoji) || !EMOJI_CORE.test(emoji)) {
        throw badRequest(`body/${field} must hold emoji characters only`)
      }
    }
    return unique
  }
  const changes = { added: check(input.addedReactions, 'addedReactions'), removed: check(input.removedReactions, 'removedReactions') }
  if (changes.added.some((emoji) => changes.removed.includes(emoji))) throw badRequest('an emoji cannot be both added and removed in one request')
  return changes
}

const hasReactionChanges = (input: { addedReactions?: string[]; removedReactions?: string[] }) =>
  (input.addedReactions?.length ?? 0) > 0 || (input.removedReactions?.length ?? 0) > 0

function applyReactions(ctx: RequestContext, targetId: string, changes: ReactionChanges) {
  const repo = ctx.store.repo(CommentsRepository)
  repo.addReactions(targetId, ctx.user.id, changes.added)
  repo.removeReactions(targetId, ctx.user.id, changes.removed)
}

/** A page target must exist in the content the comment is posted against. */
function checkPageTarget(ctx: RequestContext, scope: ResolvedScope, revisionId: string, pageId: string) {
  const revision = ctx.store.repo(RevisionsRepository).getInSpace(scope.spaceId, revisionId)
  if (!revision || !findPage(revision.tree, pageId)) throw notFound(`Page ${pageId} not found in the ${scope.changeRequestId ? 'change request' : 'space'}`)
}

const STATUSES: ReadonlySet<string> = new Set(['all', 'open', 'resolved'])

function commentOperations(resolve: ScopeResolver) {
  const list: Handler = (ctx) => {
    const scope = resolve(ctx)
    const status = typeof ctx.query.status === 'string' && STATUSES.has(ctx.query.status) ? (ctx.query.status as CommentStatusFilter) : 'all'
    const comments = ctx.store.repo(CommentsRepository).list({
      spaceId: scope.spaceId,
      changeRequestId: scope.changeRequestId,
      status,
      order: ctx.query.order === 'asc' ? 'asc' : 'desc',
      pageId: typeof ctx.query.targetPage === 'string' ? ctx.query.targetPage : undefined,
      authors: Array.isArray(ctx.query.authors) ? ctx.query.authors.map(String) : undefined,
    })
    const render = serializer(ctx, scope)
    return ok(paginate(comments, ctx.query, (comment) => render.comment(comment)))
  }

  const post: Handler = (ctx) => {
    const scope = resolve(ctx)
    if (!atLeast(scope.role, 'comment')) throw forbidden('Posting a comment needs the comment role')
    const input = ctx.body as PostCommentSchema
    const body = storedBody(input.body)
    const nodeId = targetId(input.node, 'node')
    const tableCell = input.tableCell && {
      record: targetId(input.tableCell.record, 'tableCell/record') ?? '',
      definition: targetId(input.tableCell.definition, 'tableCell/definition') ?? '',
    }
    const revisionId = scope.revisionId
    if (revisionId === null) throw conflict('The space has no content revision to comment on yet')
    if (input.page !== undefined) checkPageTarget(ctx, scope, revisionId, input.page)
    const comment = ctx.store.repo(CommentsRepository).create({
      spaceId: scope.spaceId,
      changeRequestId: scope.changeRequestId,
      revisionId,
      pageId: input.page,
      nodeId,
      tableCell,
      body,
      postedBy: ctx.user.id,
    })
    return ok(serializer(ctx, scope).comment(comment))
  }

  const get: Handler = (ctx) => {
    const scope = resolve(ctx)
    return ok(serializer(ctx, scope).comment(requireComment(ctx, scope)))
  }

  const update: Handler = (ctx) => {
    const scope = resolve(ctx)
    const comment = requireComment(ctx, scope)
    const input = ctx.body as UpdateCommentSchema
    const allowed = commentPermissions(scope.role, comment.postedBy, ctx.user.id)
    if (input.body !== undefined && !allowed.edit) throw forbidden('Only the author or a space admin may edit this comment')
    if ((input.resolved !== undefined || hasReactionChanges(input)) && !allowed.reply) throw forbidden('Resolving or reacting needs the comment role')
    const body = input.body === undefined ? undefined : storedBody(input.body)
    const reactions = reactionChanges(input)
    const repo = ctx.store.repo(CommentsRepository)
    ctx.store.transaction(() => {
      if (body) repo.setBody(comment.id, body)
      if (input.resolved !== undefined) repo.setResolved(comment.id, input.resolved, ctx.user.id)
      applyReactions(ctx, comment.id, reactions)
    })
    return ok(serializer(ctx, scope).comment(requireComment(ctx, scope)))
  }

  /** 205 when the comment was deleted, 204 when there was none: the spec names both outcomes. */
  const remove: Handler = (ctx): HandlerResult => {
    const scope = resolve(ctx)
    const comment = commentIn(ctx, scope)
    if (!comment) return noContent()
    if (!commentPermissions(scope.role, comment.postedBy, ctx.user.id).delete) throw forbidden('Only the author or a space admin may delete this comment')
    ctx.store.repo(CommentsRepository).delete(comment.id)
    return deleted(true)
  }

  const listReplies: Handler = (ctx) => {
    const scope = resolve(ctx)
    const comment = requireComment(ctx, scope)
    const render = serializer(ctx, scope)
    return ok(paginate(ctx.store.repo(CommentsRepository).listReplies(comment.id), ctx.query, (reply) => render.reply(comment, reply)))
  }

  const postReply: Handler = (ctx) => {
    const scope = resolve(ctx)
    const comment = requireComment(ctx, scope)
    if (!commentPermissions(scope.role, comment.postedBy, ctx.user.id).reply) throw forbidden('Replying needs the comment role')
    const body = storedBody((ctx.body as { body: Document }).body)
    const reply = ctx.store.repo(CommentsRepository).createReply({ commentId: comment.id, body, postedBy: ctx.user.id })
    return ok(serializer(ctx, scope).reply(comment, reply))
  }

  const requireReply = (ctx: RequestContext, comment: CommentRecord) => {
    const reply = ctx.store.repo(CommentsRepository).getReply(comment.id, ctx.params.commentReplyId)
    if (!reply) throw notFound(`Reply ${ctx.params.commentReplyId} not found`)
    return reply
  }

  const getReply: Handler = (ctx) => {
    const scope = resolve(ctx)
    const comment = requireComment(ctx, scope)
    return ok(serializer(ctx, scope).reply(comment, requireReply(ctx, comment)))
  }

  const updateReply: Handler = (ctx) => {
    const scope = resolve(ctx)
    const comment = requireComment(ctx, scope)
    const reply = requireReply(ctx, comment)
    const input = ctx.body as UpdateCommentSchema
    if (input.resolved !== undefined) throw badRequest('body/resolved: a reply cannot be resolved; resolve its comment')
    const allowed = commentPermissions(scope.role, reply.postedBy, ctx.user.id)
    if (input.body !== undefined && !allowed.edit) throw forbidden('Only the author or a space admin may edit this reply')
    if (hasReactionChanges(input) && !allowed.reply) throw forbidden('Reacting needs the comment role')
    const body = input.body === undefined ? undefined : storedBody(input.body)
    const reactions = reactionChanges(input)
    const repo = ctx.store.repo(CommentsRepository)
    ctx.store.transaction(() => {
      if (body) repo.setReplyBody(reply.id, body)
      applyReactions(ctx, reply.id, reactions)
    })
    return ok(serializer(ctx, scope).reply(comment, requireReply(ctx, comment)))
  }

  const removeReply: Handler = (ctx): HandlerResult => {
    const scope = resolve(ctx)
    const comment = commentIn(ctx, scope)
    const reply = comment && ctx.store.repo(CommentsRepository).getReply(comment.id, ctx.params.commentReplyId)
    if (!comment || !reply) return noContent()
    if (!commentPermissions(scope.role, reply.postedBy, ctx.user.id).delete) throw forbidden('Only the author or a space admin may delete this reply')
    ctx.store.repo(CommentsRepository).deleteReply(comment.id, reply.id)
    return deleted(true)
  }

  /**
   * Everyone who posted a comment or reply here, as organization members. A commenter who is not a
   * member (a space guest) is shown as a guest (`role: null`) who joined when their user was created.
   */
  const commenters: Handler = (ctx) => {
    const scope = resolve(ctx)
    const userIds = ctx.store.repo(CommentsRepository).commenters(scope)
    const organizations = ctx.store.repo(OrganizationsRepository)
    const users = ctx.store.repo(UsersRepository)
    return ok(
      paginate(userIds, ctx.query, (userId) => {
        const member: OrgMember = organizations.member(scope.space.orgId, userId) ?? {
          userId,
          role: null,
          joinedAt: users.get(userId)?.created_at ?? scope.space.createdAt,
        }
        return organizationMemberJson(ctx.store, scope.space.orgId, member, ctx.origin)
      }),
    )
  }

  return { list, post, get, update, remove, listReplies, postReply, getReply, updateReply, removeReply, commenters }
}

const space = commentOperations(inSpace)
const changeRequest = commentOperations(inChangeRequest)

export const commentRoutes: Route[] = [
  { operationId: 'listCommentsInSpace', handler: space.list },
  { operationId: 'postCommentInSpace', handler: space.post },
  { operationId: 'getCommentInSpace', handler: space.get },
  { operationId: 'updateCommentInSpace', handler: space.update },
  { operationId: 'deleteCommentInSpace', handler: space.remove },
  { operationId: 'listCommentRepliesInSpace', handler: space.listReplies },
  { operationId: 'postCommentReplyInSpace', handler: space.postReply },
  { operationId: 'getCommentReplyInSpace', handler: space.getReply },
  { operationId: 'updateCommentReplyInSpace', handler: space.updateReply },
  { operationId: 'deleteCommentReplyInSpace', handler: space.removeReply },
  { operationId: 'listCommentsInChangeRequest', handler: changeRequest.list },
  { operationId: 'postCommentInChangeRequest', handler: changeRequest.post },
  { operationId: 'getCommentInChangeRequest', handler: changeRequest.get },
  { operationId: 'updateCommentInChangeRequest', handler: changeRequest.update },
  { operationId: 'deleteCommentInChangeRequest', handler: changeRequest.remove },
  { operationId: 'listCommentRepliesInChangeRequest', handler: changeRequest.listReplies },
  { operationId: 'postCommentReplyInChangeRequest', handler: changeRequest.postReply },
  { operationId: 'getCommentReplyInChangeRequest', handler: changeRequest.getReply },
  { operationId: 'updateCommentReplyInChangeRequest', handler: changeRequest.updateReply },
  { operationId: 'deleteCommentReplyInChangeRequest', handler: changeRequest.removeReply },
  { operationId: 'listCommentersInSpace', handler: space.commenters },
  { operationId: 'listCommentersInChangeRequest', handler: changeRequest.commenters },
]

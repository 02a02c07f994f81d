import { ChangeRequestOrderBy, ChangeRequestStatus, GitBookAPIError, type ChangeRequest, type Comment, type CommentReply, type Revision, type RevisionPage } from '@gitbook/api'
import { bodyMarkdown } from '../comments/threads'
import { paginate, type ApiGateway } from '../gateway/api-gateway'
import { batchEvidence } from './batch-evidence'
import { rebuildBatch } from './batch-rebuild'
import { RebuiltBatch, storeRebuild } from './rebuilt-batch'
import { definedRefs, withKnownRefs } from './known-refs'
import type { OutboxRepository } from './outbox-repository'
import type { OutboxOp } from './outbox-types'
import { ChangeRequestGoneError, type ContentOutcome } from './outbox-errors'
import { isReviewOp, reconcileReviewOp } from './review-ops'

/** How many of the change request's revisions since a lost batch are looked through for it. */
const MAX_HISTORY = 50

/** Clocks of this machine and the service may disagree: reconciling looks this far before an op was written. */
const CLOCK_SKEW_MS = 10 * 60 * 1000

/**
 * Did an op whose answer was lost (a crash, a cut answer) reach the service? Each kind is looked for by
 * what only it can have made: the change request by creator, subject and time, a batch by evidence of
 * its own content, comments and replies by author and text. Undefined = it did not: send it.
 */
export class OutboxReconciler {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly outbox: OutboxRepository,
    /** The writer's change request an op is bound to (undefined when its generation is over). */
    private readonly changeRequestOf: (op: OutboxOp) => string | undefined,
    private readonly openChangeRequestOf: (op: OutboxOp) => string,
  ) {}

  private get spaces() {
    return this.gateway.client.spaces
  }

  async reconcile(op: OutboxOp): Promise<unknown> {
    if (isReviewOp(op)) return reconcileReviewOp(this.gateway, op)
    switch (op.kind) {
      case 'create-cr':
        return this.findChangeRequest(op.spaceId, op.payload.userId, op.payload.subject, op.createdAt)
      case 'update-cr':
      case 'resolve':
      case 'update-from-main':
        return undefined // idempotent: sending again is the same request
      case 'content':
        return this.findBatch(op)
      case 'comment':
        return this.findComment(op)
      case 'reply':
        return this.findReply(op)
      case 'merge': {
        const cr = (await this.spaces.getChangeRequestById(op.spaceId, op.payload.changeRequestId)).data
        return cr.status === 'merged' ? { revision: cr.revisionMerged, result: 'merge' } : undefined
      }
    }
  }

  /** The writer's change request created after the op was written, with the op's subject. */
  private async findChangeRequest(spaceId: string, userId: string, subject: string, since: string): Promise<ChangeRequest | undefined> {
    const after = Date.parse(since) - CLOCK_SKEW_MS
    // Merged and archived too: a reviewer may have merged (or closed) it before the lost answer was looked for.
    for (const status of [ChangeRequestStatus.Draft, ChangeRequestStatus.Open, ChangeRequestStatus.Merged, ChangeRequestStatus.Archived]) {
      const list = (page: string | undefined) =>
        this.spaces.listChangeRequestsForSpace(spaceId, { page, status, creator: userId, orderBy: ChangeRequestOrderBy.CreatedAt }).then((r) => r.data)
      for await (const cr of paginate(list)) {
        // A closed one this client already knew is an earlier change request of the writer's, not this one.
        const closed = cr.status === 'merged' || cr.status === 'archived'
        if (cr.subject === subject && Date.parse(cr.createdAt) >= after && !(closed && this.outbox.changeRequest(cr.id))) return cr
      }
    }
    return undefined
  }

  /**
   * Whether a batch whose answer was lost is in the change request, from evidence of its own content
   * (see batch-evidence.ts), now or in any revision of the change request since the head it was sent
   * against (it arrived, then someone edited the page after it). An unmoved head proves it is not: a
   * batch moves the head it is applied to. Not arrived, and someone changed a page it updates inside the
   * change request meanwhile: the batch is rebuilt as the block merge with their version (batch-rebuild.ts)
   * and stored so, never sent again as it was over their edit.
   */
  private async findBatch(op: Extract<OutboxOp, { kind: 'content' }>): Promise<ContentOutcome | RebuiltBatch | undefined> {
    const id = this.changeRequestOf(op)
    if (!id) throw new ChangeRequestGoneError({ id: '', status: 'missing' })
    const cr = (await this.spaces.getChangeRequestById(op.spaceId, id)).data
    if (cr.status === 'merged' || cr.status === 'archived') throw new ChangeRequestGoneError({ id, status: cr.status })
    const sentHead = (op.sentContext as { head?: string } | undefined)?.head
    if (sentHead !== undefined && cr.revision === sentHead) return undefined
    const after = (await this.spaces.getRevisionOfChangeRequestById(op.spaceId, id)).data
    const before = sentHead === undefined ? undefined : await this.revisionIfFound(op.spaceId, sentHead)
    const since = before ? await this.revisionsBetween(op.spaceId, after, before.id) : []
    const markdownOf = await this.pageMarkdown(op, [before, ...since, after])
    const known = new Set(this.outbox.entries(op.spaceId).flatMap((e) => (e.pageId ? [e.pageId] : [])))
    const changes = withKnownRefs(this.outbox, op.spaceId, op.payload.changes, definedRefs(op.payload.defines))
    for (const revision of [after, ...since]) {
      const evidence = batchEvidence({ changes, before, after: revision, markdown: markdownOf, known, idOfRef: (ref) => this.outbox.idOfRef(op.spaceId, ref) })
      if (evidence.arrived) return { refs: evidence.refs, head: cr.revision, changeRequest: cr }
    }
    const rebuild = before && rebuildBatch({ stored: op.payload.changes, resolved: changes, before, after, markdown: markdownOf })
    if (!rebuild) return undefined
    return new RebuiltBatch(storeRebuild(this.outbox, op, rebuild, cr), { refs: {}, head: cr.revision, changeRequest: cr })
  }

  /** The change request's revisions after `stop` up to (not with) `head`, newest first, following its own line (first parents). */
  private async revisionsBetween(spaceId: string, head: Revision, stop: string): Promise<Revision[]> {
    const found: Revision[] = []
    for (let parent = head.parents[0]; parent !== undefined && parent !== stop && found.length < MAX_HISTORY; ) {
      const revision = await this.revisionIfFound(spaceId, parent)
      if (!revision) break
      found.push(revision)
      parent = revision.parents[0]
    }
    return found
  }

  private async revisionIfFound(spaceId: string, revisionId: string): Promise<Revision | undefined> {
    try {
      return (await this.spaces.getRevisionById(spaceId, revisionId)).data
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 404) return undefined
      throw error
    }
  }

  /**
   * Markdown of the pages a batch updates, in each revision: the revision's own copy when it carries
   * one (the local service's does), otherwise fetched page by page.
   */
  private async pageMarkdown(op: Extract<OutboxOp, { kind: 'content' }>, revisions: Array<Revision | undefined>) {
    const found = new Map<string, string>()
    const wanted = new Set(op.payload.changes.flatMap((c) => (c.operation === 'update_page' && c.document ? [c.page] : [])))
    for (const revision of revisions) {
      if (!revision) continue
      const visit = async (pages: readonly RevisionPage[]) => {
        for (const page of pages) {
          if (wanted.has(page.id)) {
            let markdown = 'markdown' in page && typeof page.markdown === 'string' ? page.markdown : undefined
            if (markdown === undefined) {
              const served = (await this.spaces.getPageInRevisionById(op.spaceId, revision.id, page.id, { format: 'markdown' })).data
              markdown = 'markdown' in served && typeof served.markdown === 'string' ? served.markdown : undefined
            }
            if (markdown !== undefined) found.set(`${revision.id}/${page.id}`, markdown)
          }
          if ('pages' in page && Array.isArray(page.pages)) await visit(page.pages)
        }
      }
      await visit(revision.pages)
    }
    return (revision: Revision, page: RevisionPage) => found.get(`${revision.id}/${page.id}`)
  }

  private async findComment(op: Extract<OutboxOp, { kind: 'comment' }>): Promise<Comment | undefined> {
    const after = Date.parse(op.createdAt) - CLOCK_SKEW_MS
    const { pageId, text, userId, target } = op.payload
    const list =
      target === 'space'
        ? (page: string | undefined) => this.spaces.listCommentsInSpace(op.spaceId, { page, targetPage: pageId, authors: [userId], format: 'markdown' }).then((r) => r.data)
        : (page: string | undefined) =>
            this.spaces.listCommentsInChangeRequest(op.spaceId, this.openChangeRequestOf(op), { page, targetPage: pageId, authors: [userId], format: 'markdown' }).then((r) => r.data)
    for await (const comment of paginate(list)) {
      if (comment.postedBy.id === userId && bodyMarkdown(comment.body) === text && Date.parse(comment.postedAt) >= after) return comment
    }
    return undefined
  }

  private async findReply(op: Extract<OutboxOp, { kind: 'reply' }>): Promise<CommentReply | undefined> {
    const after = Date.parse(op.createdAt) - CLOCK_SKEW_MS
    const { commentId, changeRequestId, text, userId } = op.payload
    const list = changeRequestId
      ? (page: string | undefined) => this.spaces.listCommentRepliesInChangeRequest(op.spaceId, changeRequestId, commentId, { page, format: 'markdown' }).then((r) => r.data)
      : (page: string | undefined) => this.spaces.listCommentRepliesInSpace(op.spaceId, commentId, { page, format: 'markdown' }).then((r) => r.data)
    for await (const reply of paginate(list)) {
      if (reply.postedBy.id === userId && bodyMarkdown(reply.body) === text && Date.parse(reply.postedAt) >= after) return reply
    }
    return undefined
  }
}

import { ChangeRequestOrderBy, ChangeRequestStatus, GitBookAPIError, type ChangeRequest, type ChangeRequestContentChange, type ChangeRequestContentUpdate, type Comment, type CommentReply, type Revision, type RevisionPage } from '@gitbook/api'
import { rewriteLinks, type ContentChange } from '../../content'
import type { CommentsRepository } from '../comments/comments-repository'
import { bodyMarkdown, replyOf, threadOf } from '../comments/threads'
import { paginate, ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from './outbox-repository'
import type { OutboxOp } from './outbox-types'

/** Clocks of this machine and the service may disagree: reconciling looks this far before an op was written. */
const CLOCK_SKEW_MS = 10 * 60 * 1000

/** What happened to the change request an op was bound to, when the service refuses the op because of it. */
export type ChangeRequestGone = { id: string; status: 'merged' | 'archived' | 'missing' }

/** Local consequences of an answered op (taking a posted marker out of its file, and so on). */
export interface SenderEffects {
  commentPosted?(op: OutboxOp, id: string): Promise<void>
}

export interface DrainResult {
  sent: number
  failed: Array<{ op: OutboxOp; error: string }>
  /** Why draining stopped before the outbox was empty. */
  stopped?: { reason: 'offline' | 'rate-limited' | 'server-error'; message: string }
  /** The writer's change request was merged or closed under us. */
  gone?: ChangeRequestGone
}

class Offline extends Error {}
class Retry extends Error {}

/**
 * Sends the outbox of one space, oldest first, through the gateway. An op is marked `sending` before it
 * leaves; an op found `sending` (a crash or a lost answer) is first looked for on the service, and only
 * sent again when the service does not have it: no change request and no comment is ever made twice.
 */
export class OutboxSender {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly outbox: OutboxRepository,
    private readonly comments?: CommentsRepository,
    private readonly effects: SenderEffects = {},
  ) {}

  private get spaces() {
    return this.gateway.client.spaces
  }

  async drain(spaceId: string, options: { stopAfter?: number } = {}): Promise<DrainResult> {
    const result: DrainResult = { sent: 0, failed: [] }
    for (;;) {
      if (options.stopAfter !== undefined && result.sent >= options.stopAfter) return result
      const op = this.outbox.next(spaceId)
      if (!op) return result
      try {
        await this.process(op)
        result.sent++
      } catch (error) {
        if (error instanceof Offline) {
          result.stopped = { reason: 'offline', message: error.message }
          return result
        }
        if (error instanceof Retry) {
          result.stopped = { reason: error.message.startsWith('rate') ? 'rate-limited' : 'server-error', message: error.message }
          return result
        }
        if (error instanceof ChangeRequestGoneError) {
          result.gone = error.gone
          this.outbox.supersede(spaceId, op.generation)
          return result
        }
        const message = error instanceof Error ? error.message : String(error)
        this.refuse(op, message)
        result.failed.push({ op, error: message })
      }
    }
  }

  /**
   * The service refused an op for good. A batch of several changes is written again one change per op
   * (in order, after what is queued): the good changes go through, the bad one alone is refused.
   */
  private refuse(op: OutboxOp, message: string) {
    this.outbox.transaction(() => {
      if (op.kind !== 'content') {
        this.outbox.markFailed(op.seq, message)
        return
      }
      this.outbox.dropEntriesOf(op.spaceId, op.seq)
      const { changes, perChange, keys } = op.payload
      if (changes.length <= 1 || !perChange || perChange.length !== changes.length) {
        this.outbox.markFailed(op.seq, message)
        return
      }
      this.outbox.markSplit(op.seq, message)
      changes.forEach((change, i) => {
        const entries = perChange[i]
        const defines = change.operation === 'insert_page' && change.ref ? [change.ref] : change.operation === 'insert_files' ? change.files.flatMap((f) => (f.ref ? [f.ref] : [])) : []
        const { seq, created } = this.outbox.enqueue({
          spaceId: op.spaceId,
          generation: op.generation,
          kind: 'content',
          key: `${op.key}/${i}`,
          payload: { changes: [change], entries, perChange: [entries], keys: [keys[i]], defines: defines.length > 0 ? [defines.join(' ')] : [] },
        })
        if (created) this.outbox.applyEntries(op.spaceId, op.generation, seq, entries)
      })
    })
  }

  private async process(op: OutboxOp): Promise<void> {
    if (op.state === 'sending') {
      const found = await this.guard(op, () => this.reconcile(op))
      if (found !== undefined) {
        await this.finish(op, found)
        return
      }
    }
    const context = op.kind === 'content' ? { head: this.outbox.session(op.spaceId)?.headRevision } : undefined
    this.outbox.markSending(op.seq, context)
    const answer = await this.guard(op, () => this.send(op))
    await this.finish(op, answer)
  }

  /** Turns transport failures into: stop for now (offline, rate limited, unknown outcome) or refused for good. */
  private async guard<T>(op: OutboxOp, run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      if (error instanceof ServiceUnreachableError) {
        this.outbox.noteError(op.seq, error.message)
        throw new Offline(error.message)
      }
      if (error instanceof GitBookAPIError) {
        if (error.code === 429) {
          // A 429 is answered before anything is done: the op is as good as never sent.
          if (op.state !== 'sending') this.outbox.markPending(op.seq, error.message)
          throw new Retry(`rate limited: ${error.errorMessage}`)
        }
        if (error.code >= 500) {
          this.outbox.noteError(op.seq, `HTTP ${error.code}: ${error.errorMessage}`)
          throw new Retry(`server error ${error.code}: ${error.errorMessage}`)
        }
        await this.checkChangeRequest(op)
        throw new Error(`HTTP ${error.code}: ${error.errorMessage}`)
      }
      throw error
    }
  }

  /** A refused op bound to the writer's change request: is that change request still open? */
  private async checkChangeRequest(op: OutboxOp) {
    if (op.kind !== 'content' && op.kind !== 'update-cr' && op.kind !== 'merge') return
    const id = op.kind === 'merge' ? op.payload.changeRequestId : this.sessionChangeRequest(op)
    if (!id) return
    let cr: ChangeRequest | undefined
    try {
      cr = (await this.spaces.getChangeRequestById(op.spaceId, id)).data
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 404) throw new ChangeRequestGoneError({ id, status: 'missing' })
      return
    }
    this.outbox.saveChangeRequest(op.spaceId, cr)
    if (op.kind !== 'merge' && (cr.status === 'merged' || cr.status === 'archived')) throw new ChangeRequestGoneError({ id, status: cr.status })
  }

  private sessionChangeRequest(op: OutboxOp): string | undefined {
    const session = this.outbox.session(op.spaceId)
    if (!session || session.generation !== op.generation) return undefined
    return session.changeRequestId
  }

  private requireChangeRequest(op: OutboxOp): string {
    const id = this.sessionChangeRequest(op)
    if (!id) throw new ChangeRequestGoneError({ id: '', status: 'missing' })
    return id
  }

  /* Sending */

  private async send(op: OutboxOp): Promise<unknown> {
    const spaceId = op.spaceId
    switch (op.kind) {
      case 'create-cr':
        return (await this.spaces.createChangeRequest(spaceId, { subject: op.payload.subject })).data
      case 'update-cr':
        return (await this.spaces.updateChangeRequestById(spaceId, this.requireChangeRequest(op), { subject: op.payload.subject })).data
      case 'content': {
        const changes = this.withKnownRefs(op.spaceId, op.payload.changes, new Set(op.payload.defines.flatMap((d) => d.split(' '))))
        const { data } = await this.spaces.updateChangeRequestContent(
          spaceId,
          this.requireChangeRequest(op),
          { changes: changes as unknown as ChangeRequestContentChange[] },
          { compat: false },
        )
        return contentOutcome(changes, data)
      }
      case 'comment': {
        const body = { page: op.payload.pageId, body: { markdown: op.payload.text } }
        if (op.payload.target === 'space') return (await this.spaces.postCommentInSpace(spaceId, body)).data
        return (await this.spaces.postCommentInChangeRequest(spaceId, this.requireOpenChangeRequest(op), body)).data
      }
      case 'reply': {
        const body = { body: { markdown: op.payload.text } }
        if (op.payload.changeRequestId) return (await this.spaces.postCommentReplyInChangeRequest(spaceId, op.payload.changeRequestId, op.payload.commentId, body)).data
        return (await this.spaces.postCommentReplyInSpace(spaceId, op.payload.commentId, body)).data
      }
      case 'resolve':
        if (op.payload.changeRequestId) return (await this.spaces.updateCommentInChangeRequest(spaceId, op.payload.changeRequestId, op.payload.commentId, { resolved: true })).data
        return (await this.spaces.updateCommentInSpace(spaceId, op.payload.commentId, { resolved: true })).data
      case 'merge':
        return (await this.spaces.mergeChangeRequest(spaceId, op.payload.changeRequestId)).data
    }
  }

  /** A comment on a page that only the change request has goes to the change request (open or not). */
  private requireOpenChangeRequest(op: OutboxOp): string {
    const session = this.outbox.session(op.spaceId)
    if (!session?.changeRequestId) throw new Error('the page is only in a change request that is not open any more')
    return session.changeRequestId
  }

  /**
   * Refs defined by earlier batches are ids by now: `page`/`into` and `./<ref>` links are rewritten to
   * the ids (a batch only resolves its own refs).
   */
  private withKnownRefs(spaceId: string, changes: ContentChange[], local: ReadonlySet<string>): ContentChange[] {
    const idOf = (handle: string): string => {
      if (!handle.startsWith('quire-') || local.has(handle)) return handle
      const id = this.outbox.idOfRef(spaceId, handle)
      if (!id) throw new Error(`this batch depends on ${handle}, which the service never created`)
      return id
    }
    const links = (markdown: string) =>
      rewriteLinks(markdown, (link) => {
        const match = /^\.\/(quire-[A-Za-z0-9-]+?)(\.md)?(#.*)?$/.exec(link.target)
        if (!match || local.has(match[1])) return undefined
        const id = idOf(match[1])
        return `${match[2] ? '/pages/' : '/files/'}${id}${match[3] ?? ''}`
      })
    return changes.map((change) => {
      switch (change.operation) {
        case 'insert_page':
          return {
            ...change,
            ...(change.into !== undefined ? { into: idOf(change.into) } : {}),
            ...('markdown' in change.document && typeof change.document.markdown === 'string' ? { document: { markdown: links(change.document.markdown) } } : {}),
          }
        case 'update_page':
          return {
            ...change,
            page: idOf(change.page),
            ...(typeof change.into === 'string' ? { into: idOf(change.into) } : {}),
            ...(change.document && 'markdown' in change.document && typeof change.document.markdown === 'string' ? { document: { markdown: links(change.document.markdown) } } : {}),
          }
        case 'delete_page':
          return { ...change, page: idOf(change.page) }
        default:
          return change
      }
    })
  }

  /* Answers */

  private async finish(op: OutboxOp, answer: unknown): Promise<void> {
    switch (op.kind) {
      case 'create-cr': {
        const cr = answer as ChangeRequest
        this.outbox.transaction(() => {
          this.outbox.setChangeRequest(op.spaceId, op.generation, { id: cr.id, number: cr.number, headRevision: cr.revision })
          this.outbox.saveChangeRequest(op.spaceId, cr)
          this.outbox.markDone(op.seq, { id: cr.id, number: cr.number, revision: cr.revision })
        })
        return
      }
      case 'update-cr': {
        const cr = answer as ChangeRequest
        this.outbox.transaction(() => {
          this.outbox.saveChangeRequest(op.spaceId, cr)
          this.outbox.markDone(op.seq, { id: cr.id })
        })
        return
      }
      case 'content': {
        const { refs, head, changeRequest } = answer as ContentOutcome
        this.outbox.transaction(() => {
          this.outbox.resolveRefs(op.spaceId, new Map(Object.entries(refs)))
          if (head) this.outbox.setHead(op.spaceId, op.generation, head)
          if (changeRequest) this.outbox.saveChangeRequest(op.spaceId, changeRequest)
          this.outbox.markDone(op.seq, { refs, head })
        })
        return
      }
      case 'comment': {
        const comment = answer as Comment
        this.comments?.save(threadOf(comment, [], new Date().toISOString()))
        this.outbox.markDone(op.seq, { id: comment.id })
        await this.effects.commentPosted?.(op, comment.id)
        return
      }
      case 'reply': {
        const reply = answer as CommentReply
        const thread = this.comments?.thread(op.payload.commentId)
        if (thread && this.comments && !thread.replies.some((r) => r.id === reply.id)) this.comments.save({ ...thread, replies: [...thread.replies, replyOf(reply)] })
        this.outbox.markDone(op.seq, { id: reply.id })
        await this.effects.commentPosted?.(op, reply.id)
        return
      }
      case 'resolve': {
        const thread = this.comments?.thread(op.payload.commentId)
        if (thread && this.comments) this.comments.save({ ...thread, status: 'resolved' })
        this.outbox.markDone(op.seq, { id: op.payload.commentId })
        await this.effects.commentPosted?.(op, op.payload.commentId)
        return
      }
      case 'merge':
        this.outbox.markDone(op.seq, answer)
        return
    }
  }

  /* Reconciling: did an op whose answer was lost reach the service? Undefined = no, send it. */

  private async reconcile(op: OutboxOp): Promise<unknown> {
    switch (op.kind) {
      case 'create-cr':
        return this.findChangeRequest(op.spaceId, op.payload.userId, op.payload.subject, op.createdAt)
      case 'update-cr':
      case 'resolve':
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
    for (const status of [ChangeRequestStatus.Draft, ChangeRequestStatus.Open]) {
      const list = (page: string | undefined) =>
        this.spaces.listChangeRequestsForSpace(spaceId, { page, status, creator: userId, orderBy: ChangeRequestOrderBy.CreatedAt }).then((r) => r.data)
      for await (const cr of paginate(list)) {
        if (cr.subject === subject && Date.parse(cr.createdAt) >= after) return cr
      }
    }
    return undefined
  }

  /**
   * A batch is atomic: its change request either moved past the head it was sent against, or not.
   * When it moved and the batch created pages or files, they are looked up (their ids are needed).
   */
  private async findBatch(op: Extract<OutboxOp, { kind: 'content' }>): Promise<ContentOutcome | undefined> {
    const id = this.sessionChangeRequest(op)
    if (!id) throw new ChangeRequestGoneError({ id: '', status: 'missing' })
    const cr = (await this.spaces.getChangeRequestById(op.spaceId, id)).data
    if (cr.status === 'merged' || cr.status === 'archived') throw new ChangeRequestGoneError({ id, status: cr.status })
    const sentHead = (op.sentContext as { head?: string } | undefined)?.head
    if (sentHead !== undefined && cr.revision === sentHead) return undefined
    const creates = op.payload.changes.filter((c) => c.operation === 'insert_page' || c.operation === 'insert_files')
    if (creates.length === 0) return sentHead === undefined ? undefined : { refs: {}, head: cr.revision, changeRequest: cr }
    const revision = (await this.spaces.getRevisionOfChangeRequestById(op.spaceId, id)).data
    const refs = this.findCreated(op, revision)
    if (refs === undefined) return undefined
    return { refs, head: cr.revision, changeRequest: cr }
  }

  /** Ids of what the batch created, found in the change request's content; undefined when none is there. */
  private findCreated(op: Extract<OutboxOp, { kind: 'content' }>, revision: Revision): Record<string, string> | undefined {
    const refs: Record<string, string> = {}
    const knownIds = new Set<string>()
    const parents = new Map<string, RevisionPage[]>()
    const visit = (pages: readonly RevisionPage[], parent: string) => {
      parents.set(parent, [...pages])
      for (const p of pages) {
        knownIds.add(p.id)
        if ('pages' in p && Array.isArray(p.pages)) visit(p.pages, p.id)
      }
    }
    visit(revision.pages, '')
    const existing = new Set(this.outbox.entries(op.spaceId).flatMap((e) => (e.pageId ? [e.pageId] : [])))
    let found = 0
    let wanted = 0
    for (const change of op.payload.changes) {
      if (change.operation === 'insert_files') {
        for (const file of change.files) {
          wanted++
          const match = revision.files.find((f) => f.name === file.name && !existing.has(f.id) && !Object.values(refs).includes(f.id))
          if (match && file.ref) {
            refs[file.ref] = match.id
            found++
          }
        }
      }
      if (change.operation !== 'insert_page') continue
      wanted++
      const parent = change.into === undefined ? '' : (refs[change.into] ?? this.outbox.idOfRef(op.spaceId, change.into) ?? change.into)
      const siblings = parents.get(parent) ?? []
      const markdown = 'markdown' in change.document && typeof change.document.markdown === 'string' ? change.document.markdown : ''
      const match = siblings.find((p) => (change.slug !== undefined ? 'slug' in p && p.slug === change.slug : p.title === titleOf(markdown)) && !existing.has(p.id))
      if (match && change.ref) {
        refs[change.ref] = match.id
        found++
      }
    }
    if (found === 0 && wanted > 0) return undefined
    return refs
  }

  private async findComment(op: Extract<OutboxOp, { kind: 'comment' }>): Promise<Comment | undefined> {
    const after = Date.parse(op.createdAt) - CLOCK_SKEW_MS
    const { pageId, text, userId, target } = op.payload
    const list =
      target === 'space'
        ? (page: string | undefined) => this.spaces.listCommentsInSpace(op.spaceId, { page, targetPage: pageId, authors: [userId], format: 'markdown' }).then((r) => r.data)
        : (page: string | undefined) =>
            this.spaces.listCommentsInChangeRequest(op.spaceId, this.requireOpenChangeRequest(op), { page, targetPage: pageId, authors: [userId], format: 'markdown' }).then((r) => r.data)
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

/** A content batch's outcome as kept: ids of what it created by ref, the change request's new head. */
interface ContentOutcome {
  refs: Record<string, string>
  head?: string
  changeRequest?: ChangeRequest
}

export class ChangeRequestGoneError extends Error {
  constructor(readonly gone: ChangeRequestGone) {
    super(`change request ${gone.id} is ${gone.status}`)
  }
}

function titleOf(markdown: string): string | undefined {
  return /^(?:---[\s\S]*?\n---\s*\n)?\s*#\s+(.+)$/m.exec(markdown)?.[1]?.trim()
}

/** Maps the content endpoint's answer to what the outbox keeps. */
export function contentOutcome(changes: readonly ContentChange[], data: ChangeRequestContentUpdate | ChangeRequest): ContentOutcome {
  if (!('changeRequest' in data)) return { refs: {}, head: data.revision, changeRequest: data }
  const refs: Record<string, string> = {}
  for (const change of data.changes) if (change.object === 'created_page' && change.ref) refs[change.ref] = change.page.id
  const wanted = changes.flatMap((c) => (c.operation === 'insert_files' ? c.files : []))
  const inserted = data.insertedFiles ?? []
  wanted.forEach((file, index) => {
    const match = inserted[index]
    if (file.ref && match) refs[file.ref] = match.id
  })
  return { refs, head: data.changeRequest.revision, changeRequest: data.changeRequest }
}

import { GitBookAPIError, type ChangeRequest, type ChangeRequestContentUpdate, type Comment, type CommentReply } from '@gitbook/api'
import type { ContentChange } from '../../content'
import type { CommentsRepository } from '../comments/comments-repository'
import { replyOf, threadOf } from '../comments/threads'
import { ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import { ChangeRequestGoneError, UnsendableError, type ChangeRequestGone, type ContentOutcome } from './outbox-errors'
import { dropForNextPlan, eachChange, halves, namesOf, splitBatch } from './batch-split'
import { contentRequestBody, FileChangedError } from './file-references'
import { definedRefs, withKnownRefs } from './known-refs'
import { ClaimLostError, type OutboxRepository } from './outbox-repository'
import type { OutboxOp } from './outbox-types'

export { ChangeRequestGoneError, type ChangeRequestGone } from './outbox-errors'
import { OutboxReconciler } from './reconciler'
import { RebuiltBatch } from './rebuilt-batch'
import { finishReviewOp, isReviewOp, sendReviewOp } from './review-ops'

/** Local consequences of an answered op (taking a posted marker out of its file, and so on). */
export interface SenderEffects {
  commentPosted?(op: OutboxOp, id: string): Promise<void>
  /**
   * An op is done: `sentHead` is the change request's head a content batch was sent against (this
   * drain's own request, answered), undefined when its outcome was found by reconciling a lost answer
   * (someone may have written the change request in between). The pusher keeps from it whether the
   * change request holds only the writer's own batches (see push/change-request-trust.ts).
   */
  answered?(op: OutboxOp, outcome: { sentHead?: string; reconciled: boolean; answer: unknown }): void
}

export interface DrainResult {
  sent: number
  failed: Array<{ op: OutboxOp; error: string }>
  /** Why draining stopped before the outbox was empty. */
  stopped?: { reason: 'offline' | 'signed-out' | 'rate-limited' | 'server-error' | 'local-error' | 'lease-lost'; message: string }
  /** The writer's change request was merged or closed under us. */
  gone?: ChangeRequestGone
}

class Offline extends Error {
  constructor(
    message: string,
    /** The connection broke before any answer (a stale keep-alive socket): worth one more try at once. */
    readonly brokenBeforeAnswer = false,
  ) {
    super(message)
  }
}
class Retry extends Error {}
class LocalFailure extends Error {}
class SignedOut extends Error {}
/** The service's 4xx answer to the op itself: the only thing that refuses an op. */
class Refused extends Error {}
/** A 413: the request body was over the service's limit; nothing was applied. */
class TooLarge extends Error {
  constructor(
    message: string,
    readonly bodyBytes?: number,
  ) {
    super(message)
  }
}

/**
 * Sends the outbox of one space, oldest first, through the gateway. An op is marked `sending` before it
 * leaves; an op found `sending` (a crash or a lost answer) is first looked for on the service, and only
 * sent again when the service does not have it: no change request and no comment is ever made twice.
 */
/** Refusals that mean the change request's base is behind the main a batch was planned against. */
const BEHIND_MAIN = [/no page '[^']+' in the revision/, /slug '[^']+' is already used by page '[^']+'/]

export class OutboxSender {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly outbox: OutboxRepository,
    private readonly comments?: CommentsRepository,
    private readonly effects: SenderEffects = {},
  ) {
    this.reconciler = new OutboxReconciler(
      gateway,
      outbox,
      (op) => this.sessionChangeRequest(op),
      (op) => this.requireOpenChangeRequest(op),
    )
  }

  private readonly reconciler: OutboxReconciler

  private get spaces() {
    return this.gateway.client.spaces
  }

  async drain(spaceId: string, options: { stopAfter?: number } = {}): Promise<DrainResult> {
    const result: DrainResult = { sent: 0, failed: [] }
    /** Ops tried again at once after their connection broke before any answer (once each per drain). */
    const triedAgain = new Set<number>()
    for (;;) {
      if (options.stopAfter !== undefined && result.sent >= options.stopAfter) return result
      let op: OutboxOp | undefined
      try {
        // Claimed only while this process holds the workspace lease (when the repository has a claim).
        op = this.outbox.claimNext(spaceId)
      } catch (error) {
        if (!(error instanceof ClaimLostError)) throw error
        result.stopped = { reason: 'lease-lost', message: error.message }
        return result
      }
      if (!op) return result
      try {
        await this.process(op)
        result.sent++
      } catch (error) {
        if (error instanceof Offline && error.brokenBeforeAnswer && !triedAgain.has(op.seq)) {
          // Left `sending`: the next claim reconciles it (sent again only if it did not arrive), on a new connection.
          triedAgain.add(op.seq)
          continue
        }
        if (error instanceof Offline) {
          result.stopped = { reason: 'offline', message: error.message }
          return result
        }
        if (error instanceof Retry) {
          result.stopped = { reason: error.message.startsWith('rate') ? 'rate-limited' : 'server-error', message: error.message }
          return result
        }
        if (error instanceof SignedOut) {
          result.stopped = { reason: 'signed-out', message: error.message }
          return result
        }
        if (error instanceof ClaimLostError) {
          result.stopped = { reason: 'lease-lost', message: error.message }
          return result
        }
        if (error instanceof LocalFailure) {
          result.stopped = { reason: 'local-error', message: error.message }
          return result
        }
        if (error instanceof ChangeRequestGoneError) {
          result.gone = error.gone
          this.outbox.supersede(spaceId, op.generation)
          return result
        }
        if (error instanceof TooLarge && op.kind === 'content' && splitBatch(this.outbox, op, halves(op), error.message)) continue
        const message = error instanceof TooLarge ? tooLargeMessage(op, error) : error instanceof Error ? error.message : String(error)
        if (!(error instanceof Refused) && !(error instanceof UnsendableError) && !(error instanceof TooLarge)) {
          // Not the service's word on the op (a local failure: the database, the disk): the op stays as
          // it was recorded and is tried again, never taken for a refusal.
          result.stopped = { reason: 'local-error', message }
          return result
        }
        if (error instanceof FileChangedError && op.kind === 'content') dropForNextPlan(this.outbox, op, message)
        else this.refuse(op, message)
        result.failed.push({ op, error: message })
      }
    }
  }

  /**
   * The service refused an op for good. A batch of several changes is written again one change per op
   * (in order, after what is queued): the good changes go through, the bad one alone is refused.
   */
  private refuse(op: OutboxOp, message: string) {
    if (op.kind === 'content' && splitBatch(this.outbox, op, eachChange(op), message)) return
    this.outbox.transaction(() => {
      if (op.kind === 'content') this.outbox.dropEntriesOf(op.spaceId, op.seq)
      this.outbox.markFailed(op.seq, message)
    })
  }

  private async process(op: OutboxOp): Promise<void> {
    if (op.state === 'sending') {
      const found = await this.guard(op, 'reconcile', () => this.reconciler.reconcile(op))
      if (found instanceof RebuiltBatch) {
        // Merged with what the change request holds now (someone edited it since): what is left is sent.
        op = found.op
        this.effects.answered?.(op, { reconciled: true, answer: found.outcome })
        if (op.payload.changes.length === 0) return this.finish(op, found.outcome)
      } else if (found !== undefined) {
        await this.finish(op, found)
        this.effects.answered?.(op, { reconciled: true, answer: found })
        return
      }
    }
    // A batch found not to have arrived is sent again; should that request never leave either, it stays
    // `sending` (not `pending`): the next claim reconciles it again, so a page someone changed in the change
    // request meanwhile is merged with theirs, never overwritten by the stored text.
    const phase = op.kind === 'content' && op.state === 'sending' ? 'resend' : 'send'
    const context = op.kind === 'content' ? { head: this.outbox.session(op.spaceId)?.headRevision } : undefined
    this.outbox.markSending(op.seq, context)
    let updatedFromMain = false
    const answer = await this.guard(op, phase, () => this.send(op)).catch((error: unknown) => {
      updatedFromMain = true
      return this.afterUpdateFromMain(op, error)
    })
    try {
      await this.finish(op, answer)
      // A batch sent again after the update from main it needed went over main's changes, not the head it was planned on.
      this.effects.answered?.(op, { reconciled: phase === 'resend' || updatedFromMain, sentHead: updatedFromMain ? undefined : context?.head, answer })
    } catch (error) {
      // The service acted; only recording it here failed (a full disk, a locked database). The op stays
      // as it was recorded (`sending`, or done with an effect left to do): never taken for a refusal.
      throw new LocalFailure(error instanceof Error ? error.message : String(error))
    }
  }

  /**
   * Turns failures into: stop for now (offline, rate limited, outcome unknown) or refused for good. Only
   * the service's 4xx answer to the request itself (or a request that cannot be made at all) is a
   * refusal: a cut or unreadable answer leaves the op `sending`, to be reconciled before it is sent again.
   * An op whose request certainly never left (refused connection, 429) goes back to `pending`.
   */
  private async guard<T>(op: OutboxOp, phase: 'reconcile' | 'send' | 'resend', run: () => Promise<T>): Promise<T> {
    try {
      return await run()
    } catch (error) {
      if (error instanceof ChangeRequestGoneError || error instanceof UnsendableError) throw error
      if (error instanceof ServiceUnreachableError) {
        if (phase === 'send' && error.notSent) this.outbox.markPending(op.seq, error.message)
        else this.outbox.noteError(op.seq, error.message)
        throw new Offline(error.message, error.beforeAnswer)
      }
      if (error instanceof TooLarge) throw error
      if (error instanceof GitBookAPIError) {
        if (error.code === 413) throw new TooLarge(`HTTP 413: ${error.errorMessage}`)
        if (error.code === 429) {
          // A 429 is answered before anything is done: the request is as good as never sent.
          if (phase === 'send') this.outbox.markPending(op.seq, error.message)
          throw new Retry(`rate limited: ${error.errorMessage}`)
        }
        if (error.code === 401) {
          // The token, not the request, was refused: nothing was done, and the op waits for a new sign-in.
          if (phase === 'send') this.outbox.markPending(op.seq, error.message)
          throw new SignedOut(`the service refused the token (HTTP 401: ${error.errorMessage})`)
        }
        if (error.code >= 500) {
          this.outbox.noteError(op.seq, `HTTP ${error.code}: ${error.errorMessage}`)
          throw new Retry(`server error ${error.code}: ${error.errorMessage}`)
        }
        await this.checkChangeRequest(op)
        throw new Refused(`HTTP ${error.code}: ${error.errorMessage}`)
      }
      // An answer that could not be read or understood: the service may well have acted on the request.
      const message = `unreadable answer from the service: ${error instanceof Error ? error.message : String(error)}`
      this.outbox.noteError(op.seq, message)
      throw new Retry(message)
    }
  }

  /**
   * A batch refused because the change request's base is older than the main it was planned against:
   * a page it edits was created on main after the change request was opened, or a page it brings back
   * (edited here, deleted there) still holds its slug in the change request. The change request is
   * updated from main, as a writer would, and the batch sent again once. Any other refusal stands.
   */
  private async afterUpdateFromMain(op: OutboxOp, error: unknown): Promise<unknown> {
    if (!(error instanceof Refused) || op.kind !== 'content' || !BEHIND_MAIN.some((re) => re.test(error.message))) throw error
    const id = this.requireChangeRequest(op)
    const updated = await this.guard(op, 'send', () => this.spaces.updateChangeRequest(op.spaceId, id))
    this.outbox.markSending(op.seq, { head: updated.data.revision ?? undefined })
    return this.guard(op, 'send', () => this.send(op))
  }

  /** A refused op bound to the writer's change request: is that change request still open? */
  private async checkChangeRequest(op: OutboxOp) {
    if (op.kind !== 'content' && op.kind !== 'update-cr' && op.kind !== 'merge' && op.kind !== 'update-from-main') return
    const id = op.kind === 'merge' || op.kind === 'update-from-main' ? op.payload.changeRequestId : this.sessionChangeRequest(op)
    if (!id) return
    let cr: ChangeRequest | undefined
    try {
      cr = (await this.spaces.getChangeRequestById(op.spaceId, id)).data
    } catch (error) {
      if (error instanceof GitBookAPIError && error.code === 404) throw new ChangeRequestGoneError({ id, status: 'missing' })
      return
    }
    this.outbox.saveChangeRequest(op.spaceId, cr)
    if (op.kind !== 'merge' && op.kind !== 'update-from-main' && (cr.status === 'merged' || cr.status === 'archived')) throw new ChangeRequestGoneError({ id, status: cr.status })
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
    if (isReviewOp(op)) return sendReviewOp(this.gateway, op)
    const spaceId = op.spaceId
    switch (op.kind) {
      case 'create-cr':
        return (await this.spaces.createChangeRequest(spaceId, { subject: op.payload.subject })).data
      case 'update-cr':
        return (await this.spaces.updateChangeRequestById(spaceId, this.requireChangeRequest(op), { subject: op.payload.subject })).data
      case 'content': {
        const changes = withKnownRefs(this.outbox, op.spaceId, op.payload.changes, definedRefs(op.payload.defines))
        // Uploads are read now, one file at a time, and only when still the bytes planned, straight into
        // the request's bytes (updateChangeRequestContent, sent without the typed client's JSON.stringify).
        const body = await contentRequestBody(changes, op.payload)
        const route = `/spaces/${encodeURIComponent(spaceId)}/change-requests/${encodeURIComponent(this.requireChangeRequest(op))}/content?compat=false`
        try {
          return contentOutcome(changes, await this.gateway.sendJson<ChangeRequestContentUpdate | ChangeRequest>('POST', route, body))
        } catch (error) {
          if (error instanceof GitBookAPIError && error.code === 413) throw new TooLarge(`HTTP 413: ${error.errorMessage}`, body.byteLength)
          throw error
        }
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
      case 'update-from-main':
        return (await this.spaces.updateChangeRequest(spaceId, op.payload.changeRequestId)).data
    }
  }

  /** A comment on a page that only the change request has goes to the change request (open or not). */
  private requireOpenChangeRequest(op: OutboxOp): string {
    const session = this.outbox.session(op.spaceId)
    if (!session?.changeRequestId) throw new UnsendableError('the page is only in a change request that is not open any more')
    return session.changeRequestId
  }


  /* Answers */

  private async finish(op: OutboxOp, answer: unknown): Promise<void> {
    if (isReviewOp(op)) return finishReviewOp(this.outbox, op, answer, this.comments)
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
          this.outbox.retireRefusals(op.spaceId, new Set(op.payload.entries.map((e) => e.path)))
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
      case 'update-from-main':
        this.outbox.markDone(op.seq, answer)
        return
    }
  }

}

/** A single change the service found too large: which files, how large the request was, the service's limit. */
function tooLargeMessage(op: OutboxOp, error: TooLarge): string {
  const names = op.kind === 'content' ? namesOf(op) : []
  const size = error.bodyBytes !== undefined ? ` a request of ${error.bodyBytes} bytes` : ' the request'
  const what = names.length > 0 ? `${names.join(', ')}: ` : ''
  return `${what}the service refused${size} as too large (${error.message}); it is sent again once the file is smaller`
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

import { createHash } from 'node:crypto'
import type { CommentsRepository } from '../comments/comments-repository'
import type { OutboxRepository } from './outbox-repository'
import type { NewOutboxOp, OutboxKind, OutboxOp, PayloadOf } from './outbox-types'

/**
 * Idempotency keys of the operations a writer asks for (CLI, app, comment markers): derived from what the
 * operation is, never random, so the same action asked twice (a command run again after it failed, a
 * button pressed twice, a marker and a command with the same text) is one operation in the outbox.
 *
 *   comment   marker:<space>:<page>:<h(comment, "", text, writer)>    the same key a marker gets
 *   reply     marker:<space>:<thread>:<h(reply, thread, text, writer)>
 *   resolve   marker:<space>:<thread>:<h(resolve, thread, "", "")>
 *   others    <kind>:<space>:<writer>:<change request>[:<what>]       (review: revision, verdict, text)
 *
 * h is the first 32 hex digits of SHA-256 over the parts joined by NUL; text is normalized (NFC, runs of
 * whitespace as one space, trimmed). A later ask of an operation already sent makes a new operation only
 * when the world moved since (see `askAgain`): then its key is the base key plus `+<seq>` of the op it
 * follows, still deterministic, so that second ask is itself posted once.
 */

/** What a key hashes of a text: Unicode composed, every run of whitespace one space, ends trimmed. */
export function normalizedText(text: string): string {
  return text.normalize('NFC').replace(/\s+/g, ' ').trim()
}

function digest(...parts: string[]): string {
  return createHash('sha256').update(parts.join('\0')).digest('hex').slice(0, 32)
}

export function commentKey(spaceId: string, pageId: string, text: string, userId: string): string {
  return `marker:${spaceId}:${pageId}:${digest('comment', '', normalizedText(text), userId)}`
}

/** A reply is the thread's, wherever it was typed: the same reply in two pages is one. */
export function replyKey(spaceId: string, commentId: string, text: string, userId: string): string {
  return `marker:${spaceId}:${commentId}:${digest('reply', commentId, normalizedText(text), userId)}`
}

/** Resolving is a state of the thread, not something said: whoever asks, it is one operation. */
export function resolveKey(spaceId: string, commentId: string): string {
  return `marker:${spaceId}:${commentId}:${digest('resolve', commentId, '', '')}`
}

/** An operation as asked: its kind and payload, discriminated. */
export type Ask = { [K in OutboxKind]: { spaceId: string; kind: K; payload: PayloadOf[K] } }[OutboxKind]

/** The key of a marker-kind op from its payload (also how keys written by older versions are read again). */
export function threadOpKey(op: Ask): string | undefined {
  switch (op.kind) {
    case 'comment':
      return commentKey(op.spaceId, op.payload.pageId, op.payload.text, op.payload.userId)
    case 'reply':
      return replyKey(op.spaceId, op.payload.commentId, op.payload.text, op.payload.userId)
    case 'resolve':
      return resolveKey(op.spaceId, op.payload.commentId)
    default:
      return undefined
  }
}

export interface KeyContext {
  outbox: OutboxRepository
  /** The thread mirror: whether a thread was resolved or answered since decides a repeat. */
  comments?: CommentsRepository
  /** The acting account's user id. */
  userId: string
}

/** The key of the first ask of an action. */
export function actionKey<K extends OutboxKind>(spaceId: string, kind: K, payload: PayloadOf[K], c: Pick<KeyContext, 'outbox' | 'userId'>): string {
  const op = { spaceId, kind, payload } as Ask
  const thread = threadOpKey(op)
  if (thread) return thread
  const cr = (payload as { changeRequestId?: string }).changeRequestId ?? ''
  const base = `${kind}:${spaceId}:${c.userId}:${cr}`
  switch (op.kind) {
    case 'submit-for-review':
      return `${base}:${digest(normalizedText(op.payload.description ?? ''))}`
    case 'request-reviewers':
      return `${base}:${digest(...[...op.payload.users].sort())}`
    case 'remove-reviewer':
      return `${base}:${op.payload.userId}`
    case 'describe-cr':
      return `${base}:${digest(normalizedText(op.payload.description))}`
    case 'reopen-comment':
      return `${base}:${op.payload.commentId}`
    case 'review': {
      // A verdict is on a revision: approving again after the writer's next push is a new review.
      const revision = String(c.outbox.changeRequest(cr)?.data.revision ?? '')
      return `${base}:${revision}:${op.payload.verdict}:${digest(normalizedText(op.payload.comment ?? ''))}`
    }
    default:
      return base
  }
}

/**
 * Whether a new ask of an action whose op was sent (`done`) is a new operation, not the same one again:
 * - comment: its thread was resolved since (a new conversation);
 * - reply: its thread was resolved, or someone else replied after it;
 * - resolve: the thread is open again; reopen: the thread was resolved again;
 * - merge: the service did not merge (conflicts), so asking again (after an update from main) is a retry;
 * - submit for review, a new description, update from main, reviewers asked or removed: always (each depends on what moved
 *   since, which the cache may not know yet: a change request merged or made a draft by someone else; the
 *   service takes a repeat as a no-op, or says why it cannot);
 * - a review verdict, archive: never under the same key (a verdict is per revision, which its key holds;
 *   `sameVerdict` finds the same verdict asked when the cache knew another revision or none).
 */
function askAgain(op: OutboxOp, c: KeyContext): boolean {
  const threadOf = (id: string | undefined) => (id ? c.comments?.thread(id) : undefined)
  switch (op.kind) {
    case 'comment':
      return threadOf((op.result as { id?: string } | undefined)?.id)?.status === 'resolved'
    case 'reply': {
      const thread = threadOf(op.payload.commentId)
      if (!thread) return false
      if (thread.status === 'resolved') return true
      const mine = thread.replies.findIndex((r) => r.id === (op.result as { id?: string } | undefined)?.id)
      return mine !== -1 && thread.replies.slice(mine + 1).some((r) => r.authorId !== c.userId)
    }
    case 'resolve':
      return threadOf(op.payload.commentId)?.status === 'open'
    case 'reopen-comment':
      return threadOf(op.payload.commentId)?.status === 'resolved'
    case 'merge':
      return (op.result as { result?: string } | undefined)?.result !== 'merge'
    case 'submit-for-review':
    case 'describe-cr':
    case 'update-from-main':
    case 'request-reviewers':
    case 'remove-reviewer':
      return true
    default:
      return false
  }
}

/** A second ask of something already in the outbox: still waiting to go out, or already sent. */
export type Repeat = 'queued' | 'sent'

const WAITING = new Set<OutboxOp['state']>(['pending', 'sending'])
/** Bounds the walk along `+<seq>` keys (each link is an op the writer asked for again). */
const MAX_LINKS = 1000

/**
 * Writes an action to the outbox under its deterministic key, unless the same action is there: waiting
 * (`repeat: 'queued'`) or sent and not to be asked again (`repeat: 'sent'`); either way the answer is
 * that op. An op the service refused, or that was superseded, does not stand in the way: asking again is
 * a retry, under the next key of the chain.
 */
export function enqueueAction(op: Omit<NewOutboxOp, 'key'>, c: KeyContext): { seq: number; created: boolean; repeat?: Repeat } {
  const base = actionKey(op.spaceId, op.kind, op.payload, c)
  c.outbox.rekeyThreadOps(op.spaceId)
  return c.outbox.transaction(() => {
    const verdict = sameVerdict(op, c)
    if (verdict) return verdict
    let key = base
    for (let link = 0; link < MAX_LINKS; link++) {
      const existing = c.outbox.byKey(key)
      if (!existing) {
        const written = c.outbox.enqueue({ ...op, key } as NewOutboxOp)
        return written.created ? written : { ...written, repeat: 'queued' as const }
      }
      if (WAITING.has(existing.state)) return { seq: existing.seq, created: false, repeat: 'queued' as const }
      if (existing.state === 'done' && !askAgain(existing, c)) return { seq: existing.seq, created: false, repeat: 'sent' as const }
      key = `${base}+${existing.seq}`
    }
    throw new Error(`the action ${base} was asked more than ${MAX_LINKS} times`)
  })
}

/**
 * The same verdict (and comment) on the same change request asked before, whatever revision the cache
 * knew then (the key holds it, and a mirror refresh or the writer's next push moves it): still waiting to
 * go out, it is the same review (posted on the revision the change request has when it goes out); sent,
 * it is the same review unless the change request is known to have moved past the revision the service
 * said it was made on. Undefined: no such verdict, or a new review is due.
 */
function sameVerdict(op: Omit<NewOutboxOp, 'key'>, c: KeyContext): { seq: number; created: false; repeat: Repeat } | undefined {
  if (op.kind !== 'review') return undefined
  const asked = op.payload as PayloadOf['review']
  const same = (other: OutboxOp) =>
    other.kind === 'review' &&
    other.payload.changeRequestId === asked.changeRequestId &&
    other.payload.verdict === asked.verdict &&
    normalizedText(other.payload.comment ?? '') === normalizedText(asked.comment ?? '') &&
    other.key.startsWith(`review:${op.spaceId}:${c.userId}:`)
  const waiting = c.outbox.unfinished(op.spaceId).find(same)
  if (waiting) return { seq: waiting.seq, created: false, repeat: 'queued' }
  const sent = c.outbox.ops(op.spaceId, 1000).find((other) => other.state === 'done' && same(other))
  if (!sent) return undefined
  const madeOn = (sent.result as { review?: { revision?: string } } | undefined)?.review?.revision
  const now = c.outbox.changeRequest(asked.changeRequestId)?.data.revision
  return madeOn === undefined || now === undefined || now === madeOn ? { seq: sent.seq, created: false, repeat: 'sent' } : undefined
}

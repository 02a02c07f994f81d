import type { ChangeRequest } from '@gitbook/api'
import type { ContentOutcome } from '../outbox/outbox-errors'
import type { ContentChange } from '../../content'
import type { OutboxOp } from '../outbox/outbox-types'

/**
 * Whether the writer's change request holds nothing but the writer's own batches, known from this
 * process's own answers (issue 29: a save is one round trip when nobody else wrote).
 *
 * A change request this process created holds main's content and nothing else; each batch this process
 * sent against the head it knew, and whose answer it read, moves the head to a revision that again holds
 * only the writer's edits. So while every head is one of those answers, the change request's copy of
 * a page the writer carried is the writer's carried text: a plan need not read it back to merge with
 * someone else's edit there (push/main-view.ts `changeRequestTexts`). The chain breaks, for the rest of
 * the change request in this process, at anything else: a head read from the service that is not the
 * last answer's (someone wrote the change request), an outcome found by reconciling a lost answer, a
 * batch sent again after an update from main, an update from main, a merge. Nothing is kept on disk: a
 * new process starts without trust and reads as before.
 *
 * The chain vouches for the head, not for every page in it: the content endpoint takes a batch on top of
 * whatever the head is when it arrives, so an edit someone makes inside the change request between the
 * read before a batch and the batch's arrival is under the answered head too, and no answer says so (the
 * head's parents are not in it). Only the pages the last batch wrote whole (a document sent, or created)
 * are known to hold the writer's text; any other page is read back before the writer's edit goes over it
 * (randomized seed 26073: an edit of faq.md slipped in before a batch about other pages, and a later save
 * of faq.md was sent over it).
 */
export class ChangeRequestTrust {
  /** The head that holds only the writer's batches; undefined when that is not known. */
  private head?: string
  private changeRequestId?: string
  /** Ids of the pages the last chained batch wrote whole: the change request's copy of these is the writer's. */
  private written = new Set<string>()

  /** Whether `cr` as just read from the service (or answered) is still the writer's alone. */
  trusts(cr: { id: string; revision?: string } | undefined): boolean {
    return cr !== undefined && cr.revision !== undefined && cr.id === this.changeRequestId && cr.revision === this.head
  }

  /** Whether the page's copy in `cr` is the writer's own text (the head is trusted and the last batch wrote the page whole). */
  trustsPage(cr: { id: string; revision?: string } | undefined, pageId: string): boolean {
    return this.trusts(cr) && this.written.has(pageId)
  }

  /** A head read from the service (GET change request): anything but the last answer's ends the trust. */
  seen(cr: { id: string; revision?: string } | undefined) {
    if (!this.trusts(cr)) this.forget()
  }

  forget() {
    this.head = undefined
    this.changeRequestId = undefined
    this.written = new Set()
  }

  /** An op of the outbox is done (OutboxSender's `answered` effect). */
  answered(op: OutboxOp, outcome: { sentHead?: string; reconciled: boolean; answer: unknown }) {
    switch (op.kind) {
      case 'create-cr': {
        const cr = outcome.answer as ChangeRequest
        if (outcome.reconciled) this.forget()
        else {
          this.changeRequestId = cr.id
          this.head = cr.revision
          this.written = new Set()
        }
        return
      }
      case 'content': {
        const { head, changeRequest, refs } = outcome.answer as ContentOutcome
        const chained = !outcome.reconciled && outcome.sentHead !== undefined && outcome.sentHead === this.head && changeRequest?.id === this.changeRequestId
        if (chained && head) {
          this.head = head
          this.written = writtenWhole(op.payload.changes, refs)
        } else this.forget()
        return
      }
      case 'update-cr': {
        // A new subject does not change the content; a head other than the known one means someone wrote.
        const cr = outcome.answer as ChangeRequest
        if (!this.trusts(cr)) this.forget()
        return
      }
      case 'merge':
      case 'update-from-main':
        this.forget()
        return
      default:
        return
    }
  }
}

/** Pages a batch wrote whole: an update with a document (a move or metadata alone leaves the body as it was), an insert (by its ref's id). */
function writtenWhole(changes: readonly ContentChange[], refs: Record<string, string>): Set<string> {
  const ids = new Set<string>()
  for (const change of changes) {
    if (change.operation === 'update_page' && change.document !== undefined && typeof change.page === 'string') ids.add(change.page)
    else if (change.operation === 'insert_page' && change.ref && refs[change.ref]) ids.add(refs[change.ref])
  }
  return ids
}

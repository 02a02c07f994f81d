import type { ChangeRequest } from '@gitbook/api'
import { gitBlobOid } from '../../content'
import type { Rebuild, RebuiltPage } from './batch-rebuild'
import type { ContentOutcome } from './outbox-errors'
import type { OutboxRepository } from './outbox-repository'
import type { ContentPayload, OutboxOp } from './outbox-types'
import type { EntryUpdate } from './pushed-entries'

type ContentOp = Extract<OutboxOp, { kind: 'content' }>

/**
 * A batch rebuilt before it is sent again: `op` as stored now. `outcome` is its outcome when nothing is
 * left to send (every page it updated already holds the writer's text, or goes to a conflicted copy).
 */
export class RebuiltBatch {
  constructor(
    readonly op: ContentOp,
    readonly outcome: ContentOutcome,
  ) {}
}

/**
 * Stores a rebuilt batch (batch-rebuild.ts) in place of the one found unsent, in one transaction, with
 * what the writer's side must know of it:
 *
 * - A merged page, or one whose text the change request already holds: its pushed entry still names the
 *   writer's text (the file holds it), kept in `carried` so a later save merges from it with theirs.
 * - A conflicted page: nothing is sent for it, and its entry names the change request's version the batch
 *   was sent against (kept in `carried`). The file, which differs from that, is then the writer's edit of
 *   it: the next plan merges it with what the change request holds (push/known-pages.ts,
 *   mergeWithChangeRequest), which is the push's own same-block case: theirs stays in the change request
 *   and the file, the writer's version goes to a conflicted copy.
 * - The session's head becomes the head merged against: a rebuilt batch whose answer is lost again is
 *   reconciled from there.
 */
export function storeRebuild(outbox: OutboxRepository, op: ContentOp, rebuild: Rebuild, cr: ChangeRequest): ContentOp {
  const payload = op.payload
  const handles = new Map(rebuild.pages.map((p) => [p, (payload.changes[p.index] as { page: string }).page]))
  const conflictOf = (entry: EntryUpdate): RebuiltPage | undefined =>
    entry.op !== 'set' || entry.kind !== 'page'
      ? undefined
      : rebuild.pages.find((p) => p.outcome === 'conflict' && (entry.pageId === p.pageId || (entry.ref !== undefined && entry.ref === handles.get(p))))
  const retag = (entry: EntryUpdate): EntryUpdate => {
    const conflict = conflictOf(entry)
    return conflict && entry.op === 'set' ? { ...entry, hash: gitBlobOid(conflict.base) } : entry
  }
  const rebuilt = new Set(rebuild.pages.map((p) => p.pageId))
  const next: ContentPayload = {
    ...payload,
    changes: rebuild.changes,
    entries: payload.entries.map(retag),
    ...(payload.perChange ? { perChange: rebuild.kept.map((i) => payload.perChange![i].map(retag)) } : {}),
    keys: rebuild.kept.map((i) => payload.keys[i]),
    carried: [
      ...(payload.carried ?? []).filter((c) => !rebuilt.has(c.pageId)),
      ...rebuild.pages.map((p) => ({ pageId: p.pageId, markdown: p.outcome === 'conflict' ? p.base : p.written })),
    ],
  }
  outbox.transaction(() => {
    outbox.rewritePayload(op.seq, next)
    const retagged = payload.entries.filter((e) => conflictOf(e) !== undefined).map(retag)
    if (retagged.length > 0) outbox.applyEntries(op.spaceId, op.generation, op.seq, retagged)
    outbox.setHead(op.spaceId, op.generation, cr.revision)
    outbox.saveChangeRequest(op.spaceId, cr)
  })
  return outbox.op(op.seq) as ContentOp
}

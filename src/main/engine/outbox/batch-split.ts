import type { ContentChange } from '../../content'
import { referencedPaths, referencesFor } from './file-references'
import type { OutboxRepository } from './outbox-repository'
import type { ContentPayload, OutboxOp } from './outbox-types'

type ContentOp = Extract<OutboxOp, { kind: 'content' }>

/**
 * A content batch written again as several smaller ones (a refusal: one change per op, so one bad change
 * does not hold back the others; a body too large: halves). The parts take the batch's place in the
 * queue: the pending content batches after it are written again after the parts, in their order, so a
 * batch that links to what a part creates still goes after it. Answers false when the batch cannot be
 * split (one change, or an op written before changes kept their own entries).
 */
export function splitBatch(outbox: OutboxRepository, op: ContentOp, groups: number[][], message: string): boolean {
  const { changes, perChange, keys } = op.payload
  if (changes.length <= 1 || groups.length <= 1 || !perChange || perChange.length !== changes.length) return false
  outbox.transaction(() => {
    outbox.dropEntriesOf(op.spaceId, op.seq)
    outbox.markSplit(op.seq, message)
    for (const group of groups) {
      const part = group.map((i) => changes[i])
      const entries = group.flatMap((i) => perChange[i])
      const suffix = group.length === 1 ? `${group[0]}` : `${group[0]}-${group[group.length - 1]}`
      const payload: ContentPayload = {
        changes: part,
        entries,
        perChange: group.map((i) => perChange[i]),
        keys: group.map((i) => keys[i]),
        defines: part.flatMap(definesOf),
        ...referencesFor(op.payload, part),
      }
      const { seq, created } = outbox.enqueue({ spaceId: op.spaceId, generation: op.generation, kind: 'content', key: `${op.key}/${suffix}`, payload })
      if (created) outbox.applyEntries(op.spaceId, op.generation, seq, entries)
    }
    moveBehind(outbox, op)
  })
  return true
}

/**
 * A batch that uploads a file changed (or gone) since the plan: it and the content batches queued after
 * it (the rest of that plan, which may link to its uploads) are not sent and their entries are dropped,
 * so the next plan carries all of it as the files are now. Not a refusal: nothing is held back.
 */
export function dropForNextPlan(outbox: OutboxRepository, op: ContentOp, message: string) {
  outbox.transaction(() => {
    const later = outbox.unfinished(op.spaceId).filter((o) => o.kind === 'content' && o.state === 'pending' && o.seq > op.seq)
    for (const dropped of [op, ...later]) {
      outbox.dropEntriesOf(op.spaceId, dropped.seq)
      outbox.markSplit(dropped.seq, dropped === op ? message : `not sent: planned with batch #${op.seq}, whose file changed since; planned again`)
    }
  })
}

/** One group per change. */
export function eachChange(op: ContentOp): number[][] {
  return op.payload.changes.map((_, i) => [i])
}

/** Two groups: the first half of the changes and the rest. */
export function halves(op: ContentOp): number[][] {
  const indices = op.payload.changes.map((_, i) => i)
  const middle = Math.ceil(indices.length / 2)
  return [indices.slice(0, middle), indices.slice(middle)]
}

/** The files a batch uploads and the pages it writes, to name them in a message. */
export function namesOf(op: ContentOp): string[] {
  const uploads = op.payload.changes.flatMap(referencedPaths)
  const names = new Set([...uploads, ...op.payload.entries.map((e) => e.path)])
  if (names.size === 0) for (const c of op.payload.changes) if (c.operation === 'insert_files') for (const f of c.files) names.add(f.name)
  return [...names]
}

/** The pending content batches queued after a split one are queued again after its parts, in order. */
function moveBehind(outbox: OutboxRepository, split: ContentOp) {
  const later = outbox.unfinished(split.spaceId).filter((o): o is ContentOp => o.kind === 'content' && o.state === 'pending' && o.seq > split.seq)
  const parts = new Set(later.filter((o) => o.key.startsWith(`${split.key}/`)).map((o) => o.seq))
  for (const op of later) {
    if (parts.has(op.seq)) continue
    outbox.dropEntriesOf(op.spaceId, op.seq)
    outbox.markSplit(op.seq, `moved behind the parts of batch #${split.seq}`)
    const { seq, created } = outbox.enqueue({ spaceId: op.spaceId, generation: op.generation, kind: 'content', key: `${op.key}>${split.seq}`, payload: op.payload })
    if (created) outbox.applyEntries(op.spaceId, op.generation, seq, op.payload.entries)
  }
}

function definesOf(change: ContentChange): string[] {
  const refs = change.operation === 'insert_page' && change.ref ? [change.ref] : change.operation === 'insert_files' ? change.files.flatMap((f) => (f.ref ? [f.ref] : [])) : []
  return refs.length > 0 ? [refs.join(' ')] : []
}

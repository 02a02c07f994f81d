import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import type { ContentChange } from '../../content'
import { referencedPaths } from '../outbox/file-references'
import type { PushSession } from '../outbox/outbox-repository'
import type { FileReference } from '../outbox/outbox-types'
import { batchChanges } from './batches'
import { resolveIn, type SpacePusherOptions } from './pusher-context'
import type { PlannedChange, PushPlan } from './push-types'
import { mergeTitles, subjectFor } from './subject'

/** Writes a plan to the outbox in one transaction: change request, batches, subject, comments, conflicts. */
export async function enqueuePlan(o: SpacePusherOptions, plan: PushPlan): Promise<number> {
  const { outbox, spaceId, userId } = o
  const uploads = await uploadReferences(o, plan.changes)
  const batches = batchChanges(
    plan.changes.filter((c) => !isNoop(c.change)),
    { fileSize: (path) => Math.max(uploads.get(path)?.size ?? 0, 0) },
  )
  const markerOps = plan.markers.filter((m) => m.post)
  const threads = new Map(markerOps.flatMap((m) => (m.marker.commentId ? [[m.marker.commentId, o.comments.thread(m.marker.commentId)]] : [])))
  outbox.transaction(() => {
    const session = outbox.session(spaceId)!
    const generation = session.generation
    if (batches.length > 0) {
      const titles = mergeTitles(session.titles, plan.changes.map((c) => c.title))
      const subject = subjectFor(titles)
      const create = !session.changeRequestId && !pendingCreate(o, session)
      if (create) outbox.enqueue({ spaceId, generation, kind: 'create-cr', key: `create-cr:${spaceId}:${generation}`, payload: { subject, userId } })
      const renamed = !create && subject !== session.subject
      outbox.setSubject(spaceId, generation, subject, titles)
      for (const batch of batches) {
        const changes = batch.map((c) => c.change)
        const keys = batch.map((c) => c.key)
        // What the change request carries at those paths now is part of the key: the same change sent
        // again after a revert (a conflict kept main's version, then "keep mine") is a new operation,
        // not one the outbox already has.
        const carried = new Map(outbox.entries(spaceId).map((e) => [e.path, `${e.state}:${e.hash}`]))
        const before = batch.flatMap((c) => c.entries.map((e) => carried.get(e.path) ?? '-'))
        const files = changes.flatMap(referencedPaths).flatMap((path) => uploads.get(path) ?? [])
        const { seq, created } = outbox.enqueue({
          spaceId,
          generation,
          kind: 'content',
          key: `content:${spaceId}:${generation}:${createHash('sha256').update(`${keys.join(',')}|${before.join(',')}`).digest('hex')}`,
          payload: {
            changes,
            entries: batch.flatMap((c) => c.entries),
            perChange: batch.map((c) => c.entries),
            keys,
            defines: batch.flatMap((c) => (c.defines ? [c.defines] : [])),
            ...(files.length > 0 ? { files, folder: o.folder } : {}),
          },
        })
        if (created) outbox.applyEntries(spaceId, generation, seq, batch.flatMap((c) => c.entries))
      }
      // The new subject after the content: the edit reaches the change request one round trip sooner.
      if (renamed) outbox.enqueue({ spaceId, generation, kind: 'update-cr', key: `update-cr:${spaceId}:${generation}:${subject}`, payload: { subject } })
    }
    if (plan.bookkeeping.length > 0) outbox.applyEntries(spaceId, generation, 0, plan.bookkeeping)
    for (const m of markerOps) {
      const origin = { path: m.path, source: m.marker.source }
      if (m.marker.kind === 'comment') {
        outbox.enqueue({ spaceId, generation, kind: 'comment', key: m.key, payload: { pageId: m.pageId, text: m.marker.text, target: m.target, userId, marker: origin } })
      } else {
        const changeRequestId = threads.get(m.marker.commentId!)?.changeRequestId
        const scope = changeRequestId ? { changeRequestId } : {}
        if (m.marker.kind === 'reply') {
          outbox.enqueue({ spaceId, generation, kind: 'reply', key: m.key, payload: { commentId: m.marker.commentId!, text: m.marker.text, userId, marker: origin, ...scope } })
        } else {
          outbox.enqueue({ spaceId, generation, kind: 'resolve', key: m.key, payload: { commentId: m.marker.commentId!, marker: origin, ...scope } })
        }
      }
    }
    for (const c of plan.conflicts) {
      outbox.addConflict({ spaceId, ...c })
      const entry = outbox.entries(spaceId).find((e) => e.path === c.path)
      if (entry && entry.state !== 'conflict') outbox.applyEntries(spaceId, generation, 0, [{ op: 'set', ...entry, state: 'conflict' }])
    }
  })
  return batches.reduce((n, b) => n + b.length, 0)
}

function pendingCreate(o: SpacePusherOptions, session: PushSession): boolean {
  return o.outbox.unfinished(o.spaceId).some((op) => op.kind === 'create-cr' && op.generation === session.generation)
}

/**
 * What the outbox keeps of each file the plan uploads: its path, and the hash and size the plan saw (the
 * bytes are read when the batch is sent, and sent only if they are still these).
 */
async function uploadReferences(o: SpacePusherOptions, changes: readonly PlannedChange[]): Promise<Map<string, FileReference>> {
  const references = new Map<string, FileReference>()
  for (const c of changes) {
    const planned = new Map(c.entries.flatMap((e) => (e.op === 'set' && e.kind === 'file' ? [[e.path, e.hash]] : [])))
    for (const path of referencedPaths(c.change)) {
      const hash = planned.get(path)
      if (hash === undefined) throw new Error(`the plan uploads ${path} without its hash`)
      references.set(path, { path, hash, size: await sizeOf(resolveIn(o, path)) })
    }
  }
  return references
}

/** A file's size; -1 when it is gone (the sender then refuses its upload, naming it). */
async function sizeOf(full: string): Promise<number> {
  try {
    return (await fs.stat(full)).size
  } catch {
    return -1
  }
}

function isNoop(change: ContentChange): boolean {
  return change.operation === 'update_page' && Object.keys(change).length === 2
}

import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import type { ContentChange } from '../../content'
import type { PushSession } from '../outbox/outbox-repository'
import { FILE_BYTES_PLACEHOLDER } from './asset-uploads'
import { batchChanges } from './batches'
import { resolveIn, type SpacePusherOptions } from './pusher-context'
import type { PlannedChange, PushPlan } from './push-types'
import { mergeTitles, subjectFor } from './subject'

/** Writes a plan to the outbox in one transaction: change request, batches, subject, comments, conflicts. */
export async function enqueuePlan(o: SpacePusherOptions, plan: PushPlan): Promise<number> {
  const { outbox, spaceId, userId } = o
  const batches = batchChanges(plan.changes.filter((c) => !isNoop(c.change)))
  const bytes = await readUploads(o, plan.changes)
  const markerOps = plan.markers.filter((m) => m.post)
  const threads = new Map(markerOps.flatMap((m) => (m.marker.commentId ? [[m.marker.commentId, o.comments.thread(m.marker.commentId)]] : [])))
  outbox.transaction(() => {
    const session = outbox.session(spaceId)!
    const generation = session.generation
    if (batches.length > 0) {
      const titles = mergeTitles(session.titles, plan.changes.map((c) => c.title))
      const subject = subjectFor(titles)
      if (!session.changeRequestId && !pendingCreate(o, session)) {
        outbox.enqueue({ spaceId, generation, kind: 'create-cr', key: `create-cr:${spaceId}:${generation}`, payload: { subject, userId } })
      } else if (subject !== session.subject) {
        outbox.enqueue({ spaceId, generation, kind: 'update-cr', key: `update-cr:${spaceId}:${generation}:${subject}`, payload: { subject } })
      }
      outbox.setSubject(spaceId, generation, subject, titles)
      for (const batch of batches) {
        const changes = batch.map((c) => withBytes(c.change, bytes))
        const keys = batch.map((c) => c.key)
        const { seq, created } = outbox.enqueue({
          spaceId,
          generation,
          kind: 'content',
          key: `content:${spaceId}:${generation}:${createHash('sha256').update(keys.join(',')).digest('hex')}`,
          payload: {
            changes,
            entries: batch.flatMap((c) => c.entries),
            perChange: batch.map((c) => c.entries),
            keys,
            defines: batch.flatMap((c) => (c.defines ? [c.defines] : [])),
          },
        })
        if (created) outbox.applyEntries(spaceId, generation, seq, batch.flatMap((c) => c.entries))
      }
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

/** Bytes of the files the plan uploads, base64, read now so the outbox holds exactly what is sent. */
async function readUploads(o: SpacePusherOptions, changes: readonly PlannedChange[]): Promise<Map<string, string>> {
  const bytes = new Map<string, string>()
  for (const c of changes) {
    if (c.change.operation !== 'insert_files') continue
    for (const file of c.change.files) {
      const placeholder = file.base64 ?? ''
      if (!placeholder.startsWith(FILE_BYTES_PLACEHOLDER)) continue
      const rel = placeholder.slice(FILE_BYTES_PLACEHOLDER.length)
      bytes.set(placeholder, (await fs.readFile(resolveIn(o, rel))).toString('base64'))
    }
  }
  return bytes
}

function isNoop(change: ContentChange): boolean {
  return change.operation === 'update_page' && Object.keys(change).length === 2
}

function withBytes(change: ContentChange, bytes: ReadonlyMap<string, string>): ContentChange {
  if (change.operation !== 'insert_files') return change
  return { ...change, files: change.files.map((f) => (f.base64 !== undefined && bytes.has(f.base64) ? { ...f, base64: bytes.get(f.base64)! } : f)) }
}

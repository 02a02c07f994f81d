import { openCacheDatabase } from '../cache/open-cache'
import { OutboxRepository } from '../outbox/outbox-repository'
import type { OutboxOp } from '../outbox/outbox-types'

/** What sync up adds to a space's status: its conflicts, its outbox, the writer's change request. */
export interface SyncUpStatus {
  /** `conflict` while a conflicted copy waits for the writer; otherwise undefined (sync down's state stands). */
  state?: 'conflict'
  conflicts: Array<{ path: string; copy: string; detectedAt: string }>
  /** Operations written but not yet answered by the service. */
  outbox: number
  /** Operations the service refused (each is reported once its file changes again). */
  refused: Array<{ kind: string; error: string; files: string[] }>
  /** Operations whose stored data could not be read (a damaged cache): kept, never sent. */
  setAside: Array<{ seq: number; kind: string; error: string }>
  changeRequest?: { id: string; number?: number; subject?: string }
}

export function syncUpStatus(outbox: OutboxRepository, spaceId: string): SyncUpStatus {
  const conflicts = outbox.conflicts(spaceId).map((c) => ({ path: c.path, copy: c.copyPath, detectedAt: c.detectedAt }))
  const session = outbox.session(spaceId)
  return {
    ...(conflicts.length > 0 ? { state: 'conflict' as const } : {}),
    conflicts,
    outbox: outbox.unfinished(spaceId).length,
    refused: outbox.failures(spaceId, 5).map((op) => ({ kind: op.kind, error: op.lastError ?? '', files: filesOf(op) })),
    setAside: outbox.setAside(spaceId).map(({ seq, kind, error }) => ({ seq, kind, error })),
    ...(session?.changeRequestId ? { changeRequest: { id: session.changeRequestId, number: session.number, subject: session.subject } } : {}),
  }
}

/** The sync-up status of several spaces, read from the cache file (for `quire status`, offline too). */
export function readSyncUpStatuses(cacheFile: string, spaceIds: readonly string[]): Map<string, SyncUpStatus> {
  const db = openCacheDatabase(cacheFile)
  try {
    const outbox = new OutboxRepository(db)
    return new Map(spaceIds.map((id) => [id, syncUpStatus(outbox, id)]))
  } finally {
    db.close()
  }
}

/** Lines for the text status. */
export function describeSyncUp(status: SyncUpStatus | undefined): string[] {
  if (!status) return []
  const lines: string[] = []
  if (status.changeRequest) lines.push(`  change request${status.changeRequest.number !== undefined ? ` #${status.changeRequest.number}` : ''}: ${status.changeRequest.subject ?? ''}`.trimEnd())
  if (status.outbox > 0) lines.push(`  outbox: ${status.outbox} operation${status.outbox === 1 ? '' : 's'} waiting to be sent`)
  for (const c of status.conflicts) lines.push(`  conflict: ${c.path} — your version is in ${c.copy}`)
  for (const r of status.refused) lines.push(`  refused ${r.kind}${r.files.length > 0 ? ` of ${r.files.join(', ')}` : ''}: ${r.error}`)
  for (const r of status.setAside ?? []) lines.push(`  outbox operation #${r.seq} (${r.kind}) ${r.error}`)
  return lines
}

/** The workspace files an op comes from, so a refusal names what the writer should look at. */
export function filesOf(op: OutboxOp): string[] {
  switch (op.kind) {
    case 'content':
      return [...new Set(op.payload.entries.map((e) => e.path))]
    case 'comment':
    case 'reply':
    case 'resolve':
      return op.payload.marker ? [op.payload.marker.path] : []
    default:
      return []
  }
}

import type { PushedEntry } from './pushed-entries'
import type { OutboxKind, OutboxOp, OutboxState } from './outbox-types'
import type { PushSession } from './outbox-repository'

/**
 * The outbox's rows as objects: the decoding of outbox-repository.ts's SELECTs. A JSON column that does
 * not parse throws BadRowError (the repository sets such a row aside); mirrors that can go on without
 * their value read it as undefined.
 */

export type Row = Record<string, unknown>
const str = (v: unknown): string | undefined => (v === null || v === undefined ? undefined : String(v))

/** A JSON column of an outbox row that does not parse. */
export class BadRowError extends Error {
  constructor(
    readonly field: string,
    cause: unknown,
  ) {
    super(cause instanceof Error ? cause.message : String(cause))
  }
}

function parsed(row: Row, field: string): unknown {
  try {
    return JSON.parse(String(row[field]))
  } catch (error) {
    throw new BadRowError(field, error)
  }
}

/** For reads that can go on without the value (a mirror, a list of keys). */
export function parsedOrUndefined(value: unknown): unknown {
  try {
    return JSON.parse(String(value))
  } catch {
    return undefined
  }
}

export function opOf(row: Row): OutboxOp {
  const payload = parsed(row, 'payload')
  if (payload === null || typeof payload !== 'object') throw new BadRowError('payload', new Error('not an object'))
  return {
    seq: Number(row.seq),
    spaceId: String(row.space_id),
    generation: Number(row.generation),
    kind: String(row.kind) as OutboxKind,
    key: String(row.op_key),
    payload,
    state: String(row.state) as OutboxState,
    attempts: Number(row.attempts),
    result: row.result === null || row.result === undefined ? undefined : parsed(row, 'result'),
    lastError: str(row.last_error),
    sentContext: row.sent_context === null || row.sent_context === undefined ? undefined : parsed(row, 'sent_context'),
    createdAt: String(row.created_at),
    sentAt: str(row.sent_at),
  } as OutboxOp
}

export function sessionOf(row: Row): PushSession {
  return {
    spaceId: String(row.space_id),
    generation: Number(row.generation),
    userId: String(row.user_id),
    changeRequestId: str(row.change_request_id),
    number: row.number === null || row.number === undefined ? undefined : Number(row.number),
    headRevision: str(row.head_revision),
    subject: str(row.subject),
    titles: (parsedOrUndefined(row.titles ?? '[]') ?? []) as string[],
    openedAt: String(row.opened_at),
  }
}

export function entryOf(row: Row): PushedEntry {
  return {
    path: String(row.path),
    kind: String(row.kind) as PushedEntry['kind'],
    pageId: str(row.page_id),
    ref: str(row.ref),
    hash: String(row.hash),
    state: String(row.state) as PushedEntry['state'],
  }
}

import { GitBookAPIError } from '@gitbook/api'
import type { Repeat } from '../outbox/action-keys'
import type { OutboxOp } from '../outbox/outbox-types'

/** What an explicit action (comment, merge...) came to: sent now, or waiting in the outbox. */
export interface ActionOutcome {
  op: OutboxOp
  sent: boolean
  /** Why it waits (offline, rate limited...) when it was not sent. */
  waiting?: string
  /** The same action was asked before: its op was already in the outbox (`queued`) or already sent. */
  repeat?: Repeat
}

/** The service refused an action for good (its reason is the op's last error). */
export class ActionRefusedError extends Error {
  constructor(readonly op: OutboxOp) {
    super(`the service refused it: ${op.lastError ?? 'no reason given'}`)
  }
}

/**
 * The service refused "update from main" because main and the change request changed the same places
 * (a 409 naming the pages; see the service's change-request-merge.ts). Nothing was changed there: the
 * writer's push then turns those pages into conflicted copies, after which the update goes through.
 */
export function isUpdateConflict(reason: string | undefined): boolean {
  return reason !== undefined && /^HTTP 409\b.*cannot be updated from main/s.test(reason)
}

export function isAuthError(error: unknown): boolean {
  return error instanceof GitBookAPIError && error.code === 401
}

export function authMessage(error: unknown): string {
  return error instanceof GitBookAPIError ? `the service refused the token (HTTP 401: ${error.errorMessage})` : 'the service refused the token'
}

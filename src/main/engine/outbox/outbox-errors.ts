import type { ChangeRequest } from '@gitbook/api'

/** What happened to the change request an op was bound to, when the service refuses the op because of it. */
export type ChangeRequestGone = { id: string; status: 'merged' | 'archived' | 'missing' }

export class ChangeRequestGoneError extends Error {
  constructor(readonly gone: ChangeRequestGone) {
    super(`change request ${gone.id} is ${gone.status}`)
  }
}

/** An op that cannot be turned into a request at all: refused here, before anything leaves. */
export class UnsendableError extends Error {}

/** A content batch's outcome as kept: ids of what it created by ref, the change request's new head. */
export interface ContentOutcome {
  refs: Record<string, string>
  head?: string
  changeRequest?: ChangeRequest
}

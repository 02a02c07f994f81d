import { GitBookAPIError } from '@gitbook/api'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { isUpdateConflict } from '../session/session-outcomes'

/** What became of "update from main" asked directly of the service (quire cr update). */
export type OwnUpdate =
  /** The service took it; `refused` is its 409 when it had first refused and the push made conflicted copies. */
  | { result: 'update' | 'conflicts'; copies: string[]; refused?: string }
  /** Refused for conflicts, and this process may not push (another one syncs the workspace): nothing done. */
  | { result: 'refused'; refused: string }

/**
 * "Update from main" of a change request, as the CLI asks it (straight to the service, not through the
 * outbox). The service refuses an update that would drop one side's text (409 naming the pages). On the
 * writer's own change request the push turns those places into conflicted copies (main's version in the
 * change request and the file, the writer's in the copy) and the update is asked once more; `push`
 * undefined (another process syncs the workspace) leaves that to its next push. Any other refusal, and
 * this one on someone else's change request, is thrown as the service's error.
 */
export async function updateFromMainOrConflicts(options: {
  gateway: ApiGateway
  outbox: OutboxRepository
  spaceId: string
  changeRequestId: string
  push: (() => Promise<{ conflicts: string[] }>) | undefined
}): Promise<OwnUpdate> {
  const { gateway, outbox, spaceId, changeRequestId } = options
  const spaces = gateway.client.spaces
  try {
    const answer = (await spaces.updateChangeRequest(spaceId, changeRequestId)).data
    return { result: answer.result === 'conflicts' ? 'conflicts' : 'update', copies: [] }
  } catch (error) {
    const own = outbox.session(spaceId)?.changeRequestId === changeRequestId
    if (!(error instanceof GitBookAPIError) || !own || !isUpdateConflict(`HTTP ${error.code}: ${error.errorMessage}`)) throw error
    if (!options.push) return { result: 'refused', refused: error.errorMessage }
    const pushed = await options.push()
    await spaces.updateChangeRequest(spaceId, changeRequestId)
    return { result: 'conflicts', copies: pushed.conflicts, refused: error.errorMessage }
  }
}

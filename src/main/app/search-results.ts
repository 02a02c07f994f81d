import type { SearchResults } from '../../shared/contract'
import { EmptyQueryError, UnknownSpaceError, type WorkspaceSession } from '../engine'
import { AppError } from './errors'

/**
 * The search box's answer: the session's search (its index kept by the watcher, the service asked
 * unless it is known to be away), as the contract carries it. The last word is a prefix, so results
 * come while the writer types.
 */
export async function searchResults(session: WorkspaceSession, query: string, spaceId?: string): Promise<SearchResults> {
  let answer
  try {
    answer = await session.search(query, { spaceId, prefixLast: true, limit: 30, remoteTimeoutMs: 4_000 })
  } catch (error) {
    if (error instanceof EmptyQueryError || error instanceof UnknownSpaceError) throw new AppError('invalid', `${error.message.charAt(0).toUpperCase()}${error.message.slice(1)}.`)
    throw error
  }
  const remote = answer.remote
  return {
    results: answer.results,
    remote: !remote.asked
      ? { asked: false, note: `The service was not asked: ${remote.reason}.` }
      : 'failed' in remote
        ? { asked: true, note: `The service's search failed: ${remote.failed}. Local results only.` }
        : { asked: true, found: remote.found },
  }
}

import { deriveSpaceState, type SpaceSyncState } from '../../shared/space-state'
import { type AccountRow, authErrorKey, authMessage, type CacheRepository, isAuthError, type OutboxRepository, storedSpaceFacts } from '../engine/sync-entry'

/** What every command says when the saved token is missing or refused: what to run, never a URL or the token. */
export const SIGN_IN_HINT = 'run quire login to sign in again'

/** Why nothing can reach the service as the user: no account signed in, or the service refused its token. */
export function signedOutReason(cache: CacheRepository, account: AccountRow | undefined): string | undefined {
  if (!account) return 'no account is signed in'
  // The refusal any process met (the session keeps it in the cache), until a pass or a login succeeds.
  return cache.setting(authErrorKey(account.id)) || undefined
}

/**
 * The one state of each space, as `quire status`, `quire spaces`, the app and the tray derive it: the
 * stored facts (cache and outbox) through `deriveSpaceState`. With no account signed in, every space
 * is signed out, like a refused token.
 */
export function spaceStateReader(cache: CacheRepository, outbox: OutboxRepository, account: AccountRow | undefined): (spaceId: string) => SpaceSyncState {
  const paused = cache.setting('paused') === 'true'
  return (spaceId) => {
    const facts = storedSpaceFacts(cache, outbox, spaceId, { paused, pushesEdits: true, accountId: account?.id })
    return deriveSpaceState(account ? facts : { ...facts, authError: 'no account is signed in' })
  }
}

/** A 401 from the service: kept as the session keeps it (so `quire status` says signed out too), and said plainly. */
export function refusedToken(cache: CacheRepository, account: AccountRow, error: unknown): string | undefined {
  if (!isAuthError(error)) return undefined
  cache.setSetting(authErrorKey(account.id), authMessage(error))
  return `the service refused the saved token (HTTP 401); ${SIGN_IN_HINT}`
}

/** The service accepted the token (a login's GET /user, a listing): an earlier refusal no longer stands. */
export function clearRefusal(cache: CacheRepository, account: AccountRow) {
  cache.setSetting(authErrorKey(account.id), '')
}

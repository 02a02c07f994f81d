import type { SpaceFacts } from '../../../shared/space-state'
import type { CacheRepository } from '../cache/cache-repository'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { waitingRemovals } from '../push/missing-pages'
import { filesOf } from '../push/sync-up-status'
import { unsentSummaryEdits } from '../push/summary-state'

/** The cache setting that keeps an account's refused token, so every process (the CLI's status too) says signed out. */
export const authErrorKey = (accountId: string) => `auth_error:${accountId}`

/**
 * The cache setting that keeps why the service cannot be reached, as the syncing session last found it, so
 * `quire status` in another process says offline with it (cleared by the session's next answer).
 */
export const unreachableKey = (accountId: string) => `unreachable:${accountId}`

/**
 * What the stores (cache and outbox) know of a space, for `deriveSpaceState`. A running session adds
 * what only it knows (work running now, why its last push stopped); `quire status` reads the same facts
 * from the cache file, so both say the same state.
 */
export function storedSpaceFacts(
  cache: CacheRepository,
  outbox: OutboxRepository,
  spaceId: string,
  now: { paused: boolean; pushesEdits: boolean; accountId?: string; running?: SpaceFacts['running']; pushStopped?: SpaceFacts['pushStopped']; unreachable?: string },
): SpaceFacts {
  const row = cache.space(spaceId)
  const authError = now.accountId ? cache.setting(authErrorKey(now.accountId)) : undefined
  // A running session knows (now.unreachable); another process reads what the syncing one kept.
  const unreachable = 'unreachable' in now ? now.unreachable : now.accountId ? cache.setting(unreachableKey(now.accountId)) || undefined : undefined
  return {
    folder: row?.state ?? 'idle',
    lastError: row?.lastError,
    issues: row?.issues ?? [],
    running: now.running,
    ...(unreachable !== undefined ? { unreachable } : {}),
    paused: now.paused,
    ...(authError ? { authError } : {}),
    pushesEdits: now.pushesEdits,
    // A removal waiting for the quiet interval, and SUMMARY.md edits the content API cannot represent
    // (they wait in the file, reported by the push), are edits not sent yet: pending, never "in sync".
    pendingEdits: outbox.unfinished(spaceId).length + waitingRemovals(cache, spaceId) + unsentSummaryEdits(cache, spaceId),
    pushStopped: now.pushStopped,
    refused: outbox.openRefusals(spaceId).map((op) => ({ files: filesOf(op), error: op.lastError ?? '' })),
    conflicts: outbox
      .conflicts(spaceId)
      .filter((c) => c.state === 'open')
      .map((c) => ({ path: c.path, copy: c.copyPath })),
  }
}

/**
 * The engine's light public entry point: paths, accounts and tokens, the cache file and its health, and
 * what keeps tokens out of text. For what runs no sync (quire's entry, login, logout, doctor, service):
 * importing engine/index.ts would load the whole engine (its modules' top-level code runs on import,
 * so the bundle keeps them), this does not. engine/index.ts re-exports all of it.
 */
export { accountToken, keepToken, login, logout, normalizeEndpoint, NotSignedInError, openCache, quirePaths, removeToken, signedIn, type QuirePaths } from './account/account'
export { candidateTokenStores, describeTokenStore, findToken, tokenStoreOfKind, type StoredToken, type TokenStore } from './account/token-store'
export { inspectCacheFile, openCacheDatabase } from './cache/open-cache'
export { healedCacheLine, isCacheDamage, onCacheHealed, type HealedCache } from './cache/cache-health-events'
export { cacheDiskFull, isStorageError } from './cache/disk-space'
export { checkTokenShape, redactedMessage, redactSecrets, registerSecret } from './gateway/secrets'
export { OutboxRepository, type ChangeRequestRow, type ConflictRow } from './outbox/outbox-repository'
export { authMessage, isAuthError } from './session/session-outcomes'
export type { AccountRow, CacheRepository, CollectionRow, SpaceRow, TokenStoreKind } from './cache/cache-repository'

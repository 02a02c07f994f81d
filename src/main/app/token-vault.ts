import type { TokenStore } from '../engine'

/**
 * Where an account's token is kept: the engine's token stores have exactly this shape (the OS keychain
 * through the keyring library, or a 0600 file); the Electron shell passes one over `safeStorage`. Tokens
 * never go to the cache, a log or an event.
 */
export type TokenVault = TokenStore

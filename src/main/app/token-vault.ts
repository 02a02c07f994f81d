import { candidateTokenStores, type TokenStore, type TokenStoreKind, tokenStoreOfKind } from '../engine'

/**
 * Where an account's token is kept: the engine's token stores have exactly this shape (keychain,
 * secret-tool, or a 0600 file); the Electron shell passes one over `safeStorage`. Tokens never go to
 * the cache, a log or an event.
 */
export type TokenVault = TokenStore

/** The best store available here (QUIRE_TOKEN_STORE=file forces the file store), as the CLI picks it. */
export async function defaultTokenVault(tokenFolder: string, prefer = process.env.QUIRE_TOKEN_STORE): Promise<TokenVault> {
  const [best] = await candidateTokenStores({ fileFolder: tokenFolder, prefer })
  return best
}

/** The store an account's token was saved in (the cache remembers its kind). */
export function vaultOfKind(kind: TokenStoreKind, tokenFolder: string): TokenVault {
  return tokenStoreOfKind(kind, tokenFolder)
}

import { createHash } from 'node:crypto'
import os from 'node:os'
import path from 'node:path'
import envPaths from 'env-paths'
import { GitBookAPIError } from '@gitbook/api'
import { CacheRepository, type AccountRow } from '../cache/cache-repository'
import { openCacheDatabase } from '../cache/open-cache'
import { ApiGateway, type GatewayOptions } from '../gateway/api-gateway'
import {
  describeTokenStore,
  FileTokenStore,
  isLegacyKind,
  KeyringTokenStore,
  KeyringUnavailableError,
  keyringName,
  storeToken,
  type StoredToken,
  tokenStoreOfKind,
  type TokenStoreOptions,
} from './token-store'

/** Where Quire keeps its cache and its fallback token files. `QUIRE_HOME` puts both in one folder. */
export interface QuirePaths {
  cacheFile: string
  tokenFolder: string
  defaultWorkspace: string
}

export function quirePaths(env: NodeJS.ProcessEnv = process.env): QuirePaths {
  if (env.QUIRE_HOME) {
    return { cacheFile: path.join(env.QUIRE_HOME, 'cache.db'), tokenFolder: path.join(env.QUIRE_HOME, 'credentials'), defaultWorkspace: path.join(env.QUIRE_HOME, 'workspace') }
  }
  const paths = envPaths('quire', { suffix: '' })
  return { cacheFile: path.join(paths.data, 'cache.db'), tokenFolder: path.join(paths.config, 'credentials'), defaultWorkspace: path.join(os.homedir(), 'Quire') }
}

export function openCache(paths: QuirePaths): CacheRepository {
  return new CacheRepository(openCacheDatabase(paths.cacheFile))
}

/** The API origin the client wants: no trailing slash, no `/v1`. */
export function normalizeEndpoint(raw: string): string {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw new Error(`--endpoint must be a URL such as https://api.gitbook.com, got "${raw}"`)
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error(`--endpoint must be http or https, got "${url.protocol}"`)
  const pathname = url.pathname.replace(/\/+$/, '').replace(/\/v1$/, '')
  return `${url.origin}${pathname}`
}

export class NotSignedInError extends Error {
  constructor() {
    super('not signed in: run `quire login --endpoint URL --token T` first')
  }
}

export interface LoginResult {
  account: AccountRow
  where: string
}

/**
 * Checks the token with `GET /user`, then keeps the account in the cache and the token in the best
 * store available. Nothing here prints or logs the token.
 */
export async function login(
  cache: CacheRepository,
  paths: QuirePaths,
  input: { endpoint: string; token: string; tokenStore?: string; gateway?: Partial<GatewayOptions> },
): Promise<LoginResult> {
  const endpoint = normalizeEndpoint(input.endpoint)
  const token = input.token.trim()
  if (token === '') throw new Error('--token is empty')
  const gateway = new ApiGateway({ endpoint, token, maxAttempts: 2, ...input.gateway })
  let user
  try {
    user = (await gateway.client.user.getAuthenticatedUser()).data
  } catch (error) {
    if (error instanceof GitBookAPIError && (error.code === 401 || error.code === 403)) throw new Error(`${endpoint} refused the token (HTTP ${error.code})`)
    throw error
  }
  const id = `${user.id}@${createHash('sha256').update(endpoint).digest('hex').slice(0, 12)}`
  const previous = cache.activeAccount()
  const stored = await keepToken(id, token, { fileFolder: paths.tokenFolder, prefer: input.tokenStore })
  if (previous && previous.id !== id) await removeToken(previous, paths.tokenFolder)
  const account = cache.saveAccount({ id, endpoint, userId: user.id, displayName: user.displayName, email: user.email, tokenStore: stored.store.kind })
  return { account, where: describeTokenStore(stored, paths.tokenFolder, input.tokenStore) }
}

/**
 * Keeps a token in the best store that takes it (the OS keychain, else the 0600 file); a copy an earlier
 * sign-in left in the file, from before a keychain was reachable, goes. The CLI and the app both sign in
 * through here.
 */
export async function keepToken(id: string, token: string, options: TokenStoreOptions): Promise<StoredToken> {
  const stored = await storeToken(id, token, options)
  if (stored.store.kind !== 'file') await new FileTokenStore(options.fileFolder).delete(id)
  return stored
}

/** Removes an account's token from the store it is in; a keychain out of reach leaves it, which is said. */
export async function removeToken(account: AccountRow, tokenFolder: string): Promise<void> {
  await tokenStoreOfKind(account.tokenStore, tokenFolder).delete(account.id)
}

/**
 * The token of an account from the store the cache names. A token of an earlier version's keychain
 * entry is moved into the keyring library's item on this first read, and the row says so from then on.
 * A keychain that cannot be reached is said as such (with why), not as a missing token.
 */
export async function accountToken(cache: CacheRepository, account: AccountRow, tokenFolder: string): Promise<string | undefined> {
  let token: string | undefined
  try {
    token = await tokenStoreOfKind(account.tokenStore, tokenFolder).get(account.id)
  } catch (error) {
    if (error instanceof KeyringUnavailableError) {
      throw new Error(`the token for ${account.displayName} is in ${keyringName()}, which cannot be reached here (${error.reason}): run quire login again (it keeps the token in a 0600 file when no keychain can be reached)`)
    }
    throw error
  }
  if (token && isLegacyKind(account.tokenStore) && (await new KeyringTokenStore().get(account.id).catch(() => undefined)) === token) {
    cache.setTokenStore(account.id, 'keyring')
  }
  return token
}

/** Removes the token and signs the account out; the synced folders and their journal stay. */
export async function logout(cache: CacheRepository, paths: QuirePaths): Promise<AccountRow | undefined> {
  const account = cache.activeAccount()
  if (!account) return undefined
  await removeToken(account, paths.tokenFolder)
  cache.deactivateAccount(account.id)
  return account
}

/** The signed-in account with a gateway ready to call the service as it. */
export async function signedIn(cache: CacheRepository, paths: QuirePaths, gateway: Partial<GatewayOptions> = {}): Promise<{ account: AccountRow; gateway: ApiGateway }> {
  const account = cache.activeAccount()
  if (!account) throw new NotSignedInError()
  const token = await accountToken(cache, account, paths.tokenFolder)
  if (!token) throw new Error(`the token for ${account.displayName} is missing from ${account.tokenStore}: run \`quire login\` again`)
  return { account, gateway: new ApiGateway({ endpoint: account.endpoint, token, ...gateway }) }
}

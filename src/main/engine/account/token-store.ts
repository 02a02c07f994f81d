import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { TokenStoreKind } from '../cache/cache-repository'
import { KeyringTokenStore, KeyringUnavailableError, keyringName, LegacySecretToolStore } from './keyring-store'

export { KeyringTokenStore, KeyringUnavailableError, keyringName, LegacySecretToolStore } from './keyring-store'

/**
 * Where an account's token lives: the OS store (macOS Keychain, Windows Credential Manager, Secret
 * Service) through the keyring library, else, as the declared fallback when none can be reached (a
 * headless Linux without a D-Bus session), a file only the user can read. The cache records which
 * (`kind`), so every front end finds the token where it was put.
 */
export interface TokenStore {
  readonly kind: TokenStoreKind
  get(account: string): Promise<string | undefined>
  set(account: string, token: string): Promise<void>
  delete(account: string): Promise<void>
}

/** One file per account, mode 0600, in a 0700 folder under the user's config folder. */
export class FileTokenStore implements TokenStore {
  readonly kind = 'file' as const

  constructor(readonly folder: string) {}

  fileFor(account: string): string {
    return path.join(this.folder, `${account.replace(/[^A-Za-z0-9_.-]/g, '_')}.token`)
  }

  async get(account: string) {
    try {
      return (await fs.readFile(this.fileFor(account), 'utf8')).trim() || undefined
    } catch {
      return undefined
    }
  }

  async set(account: string, token: string) {
    await fs.mkdir(this.folder, { recursive: true, mode: 0o700 })
    await fs.chmod(this.folder, 0o700)
    const target = this.fileFor(account)
    const temp = `${target}.${randomBytes(6).toString('hex')}.tmp`
    // Created 0600 from the start: the token is never readable by others, not even for a moment.
    const handle = await fs.open(temp, 'wx', 0o600)
    try {
      await handle.writeFile(`${token}\n`)
      await handle.sync()
    } finally {
      await handle.close()
    }
    await fs.rename(temp, target)
  }

  async delete(account: string) {
    await fs.rm(this.fileFor(account), { force: true })
  }
}

export interface TokenStoreOptions {
  /** Folder of the fallback file store. */
  fileFolder: string
  /** `QUIRE_TOKEN_STORE`: `file` forces the file store (tests, or a machine whose keyring is not wanted). */
  prefer?: string
}

/** The stores to try for a new token, best first: the OS store, then the file (always usable). */
export function candidateTokenStores(options: TokenStoreOptions): TokenStore[] {
  const file = new FileTokenStore(options.fileFolder)
  return options.prefer === 'file' ? [file] : [new KeyringTokenStore(), file]
}

/**
 * The store of an account's kind. `macos-keychain` (the old `security` entries) is the library's own
 * item: same service and account, so it is simply read. `secret-tool` entries are moved on first read.
 */
export function tokenStoreOfKind(kind: TokenStoreKind, fileFolder: string): TokenStore {
  switch (kind) {
    case 'keyring':
    case 'macos-keychain':
      return new KeyringTokenStore()
    case 'secret-tool':
      return new LegacySecretToolStore()
    default:
      return new FileTokenStore(fileFolder)
  }
}

/** Kinds written by Quire before the keyring library: read, and relabelled `keyring` once moved. */
export function isLegacyKind(kind: TokenStoreKind): boolean {
  return kind === 'macos-keychain' || kind === 'secret-tool'
}

export interface StoredToken {
  store: TokenStore
  /** Why the OS store was passed over for the file, when it was (never the token). */
  fallbackReason?: string
}

/** Stores the token in the first store that accepts it (a keychain may be missing, locked or headless). */
export async function storeToken(account: string, token: string, options: TokenStoreOptions): Promise<StoredToken> {
  let fallbackReason: string | undefined
  for (const store of candidateTokenStores(options)) {
    try {
      await store.set(account, token)
      return { store, fallbackReason }
    } catch (error) {
      fallbackReason = error instanceof KeyringUnavailableError ? error.reason : 'it refused the token'
    }
  }
  throw new Error('no place to keep the token: the OS keychain cannot be reached and the config folder is not writable')
}

/**
 * The token of `account` wherever a store has it: the OS store, then the file. For an id whose kind is
 * not known (the demo's owner token, before its account row exists).
 */
export async function findToken(account: string, options: TokenStoreOptions): Promise<string | undefined> {
  for (const store of candidateTokenStores(options)) {
    const token = await store.get(account).catch(() => undefined)
    if (token) return token
  }
  return undefined
}

/** One line for a person: which store holds the token (and, for the file, why). Never the token. */
export function describeTokenStore(stored: StoredToken, fileFolder: string, prefer?: string): string {
  if (stored.store.kind !== 'file') return keyringName()
  const why = prefer === 'file' ? 'QUIRE_TOKEN_STORE=file' : `the fallback: ${keyringName()} cannot be reached, ${stored.fallbackReason ?? 'it refused the token'}`
  return `a file only you can read (mode 0600) in ${fileFolder} (${why})`
}

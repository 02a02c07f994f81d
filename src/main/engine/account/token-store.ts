import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { TokenStoreKind } from '../cache/cache-repository'

/**
 * Where an account's token lives: the OS keychain where there is one, else a file only the user can
 * read. The token never goes on a command line (other users can read those): the keychain tools get it
 * on stdin.
 */
export interface TokenStore {
  readonly kind: TokenStoreKind
  get(account: string): Promise<string | undefined>
  set(account: string, token: string): Promise<void>
  delete(account: string): Promise<void>
}

const SERVICE = 'quire'

interface RunResult {
  code: number | null
  stdout: string
}

function run(command: string, args: string[], input?: string): Promise<RunResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['pipe', 'pipe', 'ignore'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout }))
    child.stdin.end(input ?? '')
  })
}

/** Whether `command` is on the PATH. */
async function available(command: string): Promise<boolean> {
  const dirs = (process.env.PATH ?? '').split(path.delimiter).filter(Boolean)
  for (const dir of dirs) {
    try {
      await fs.access(path.join(dir, command), fs.constants.X_OK)
      return true
    } catch {
      // next
    }
  }
  return false
}

/** macOS Keychain through `security -i`, which reads its commands (and so the token) from stdin. */
export class MacKeychainStore implements TokenStore {
  readonly kind = 'macos-keychain' as const

  async get(account: string) {
    const result = await run('security', ['find-generic-password', '-s', SERVICE, '-a', account, '-w'])
    return result.code === 0 ? result.stdout.replace(/\n$/, '') : undefined
  }

  async set(account: string, token: string) {
    const quote = (s: string) => `"${s.replace(/(["\\])/g, '\\$1')}"`
    const result = await run('security', ['-i'], `add-generic-password -U -s ${quote(SERVICE)} -a ${quote(account)} -w ${quote(token)}\n`)
    if (result.code !== 0 || (await this.get(account)) !== token) throw new Error('the macOS keychain refused the token')
  }

  async delete(account: string) {
    await run('security', ['delete-generic-password', '-s', SERVICE, '-a', account])
  }
}

/** The freedesktop Secret Service through `secret-tool` (GNOME Keyring, KWallet), secret on stdin. */
export class SecretToolStore implements TokenStore {
  readonly kind = 'secret-tool' as const

  async get(account: string) {
    const result = await run('secret-tool', ['lookup', 'service', SERVICE, 'account', account])
    return result.code === 0 && result.stdout !== '' ? result.stdout.replace(/\n$/, '') : undefined
  }

  async set(account: string, token: string) {
    const result = await run('secret-tool', ['store', `--label=Quire (${account})`, 'service', SERVICE, 'account', account], token)
    if (result.code !== 0 || (await this.get(account)) !== token) throw new Error('the secret service refused the token')
  }

  async delete(account: string) {
    await run('secret-tool', ['clear', 'service', SERVICE, 'account', account])
  }
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
  /** `QUIRE_TOKEN_STORE`: force `file` (or a keychain) instead of detecting. */
  prefer?: string
  platform?: NodeJS.Platform
}

/** The keychain stores usable here, best first, the file store last (always usable). */
export async function candidateTokenStores(options: TokenStoreOptions): Promise<TokenStore[]> {
  const file = new FileTokenStore(options.fileFolder)
  if (options.prefer === 'file') return [file]
  const platform = options.platform ?? process.platform
  const stores: TokenStore[] = []
  if (platform === 'darwin' && (await available('security'))) stores.push(new MacKeychainStore())
  if (platform === 'linux' && (await available('secret-tool'))) stores.push(new SecretToolStore())
  return [...stores, file]
}

export function tokenStoreOfKind(kind: TokenStoreKind, fileFolder: string): TokenStore {
  switch (kind) {
    case 'macos-keychain':
      return new MacKeychainStore()
    case 'secret-tool':
      return new SecretToolStore()
    default:
      return new FileTokenStore(fileFolder)
  }
}

/** Stores the token in the first store that accepts it (a keychain may be present but locked or headless). */
export async function storeToken(account: string, token: string, options: TokenStoreOptions): Promise<TokenStore> {
  for (const store of await candidateTokenStores(options)) {
    try {
      await store.set(account, token)
      return store
    } catch {
      // try the next one
    }
  }
  throw new Error('no place to keep the token: the keychain refused it and the config folder is not writable')
}

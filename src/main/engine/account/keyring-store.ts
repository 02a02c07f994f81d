import { spawn } from 'node:child_process'
import type { AsyncEntry } from '@napi-rs/keyring'
import { redactedMessage } from '../gateway/secrets'
import type { TokenStore } from './token-store'

/**
 * The OS credential store through one library, `@napi-rs/keyring` (keyring-rs): the macOS Keychain,
 * the Windows Credential Manager, the freedesktop Secret Service on Linux (GNOME Keyring, KWallet,
 * KeePassXC). The token goes to the store through the library's API, never through a command line or
 * a child process; its errors say which store failed and why, never the token.
 */

/** The item's service; its account is Quire's account id. The old `security` entries used the same two. */
export const KEYRING_SERVICE = 'quire'

type KeyringModule = typeof import('@napi-rs/keyring')

let loading: Promise<KeyringModule | Error> | undefined

/**
 * The library, loaded on first use: a platform without a prebuilt binary (or a broken install) then
 * costs the keychain, not the whole CLI; the file store is there for it.
 */
function library(): Promise<KeyringModule | Error> {
  loading ??= import('@napi-rs/keyring').then(
    (m) => (m.AsyncEntry ? m : (m as unknown as { default: KeyringModule }).default),
    (error: unknown) => (error instanceof Error ? error : new Error(String(error))),
  )
  return loading
}

/** The store cannot be reached here (no D-Bus session, a locked or missing keyring, no binary). */
export class KeyringUnavailableError extends Error {
  constructor(readonly reason: string) {
    super(`${keyringName()} cannot be reached: ${reason}`)
    this.name = 'KeyringUnavailableError'
  }
}

/** What a person calls this system's store. */
export function keyringName(platform: NodeJS.Platform = process.platform): string {
  if (platform === 'darwin') return 'the macOS Keychain'
  if (platform === 'win32') return 'the Windows Credential Manager'
  return 'the Secret Service (GNOME Keyring, KWallet)'
}

/** Why the store failed, in a few words: the usual Linux case by name, else the library's first line. */
function reasonOf(error: unknown): string {
  if (process.platform === 'linux' && !process.env.DBUS_SESSION_BUS_ADDRESS) return 'no D-Bus session (DBUS_SESSION_BUS_ADDRESS is not set)'
  const line = redactedMessage(error).split('\n')[0]
  return line.length > 160 ? `${line.slice(0, 157)}...` : line
}

export class KeyringTokenStore implements TokenStore {
  readonly kind = 'keyring' as const

  private async entry(account: string): Promise<AsyncEntry> {
    const lib = await library()
    if (lib instanceof Error) throw new KeyringUnavailableError(`the keyring library did not load (${lib.message.split('\n')[0]})`)
    try {
      // Linux: the Secret Service only. The library would fall back to the kernel keyring, which forgets
      // at reboot; Quire's declared fallback is the 0600 file instead, and it says so when it uses it.
      return new lib.AsyncEntry(KEYRING_SERVICE, account, { linux: { store: 'secret-service' } })
    } catch (error) {
      throw new KeyringUnavailableError(reasonOf(error))
    }
  }

  async get(account: string): Promise<string | undefined> {
    const entry = await this.entry(account)
    try {
      return (await entry.getPassword()) ?? undefined
    } catch (error) {
      throw new KeyringUnavailableError(reasonOf(error))
    }
  }

  async set(account: string, token: string): Promise<void> {
    const entry = await this.entry(account)
    try {
      await entry.setPassword(token)
    } catch (error) {
      throw new KeyringUnavailableError(reasonOf(error))
    }
    // A store that accepts and forgets (a locked keyring, an odd backend) is no store: read it back.
    if ((await this.get(account)) !== token) throw new KeyringUnavailableError('it did not keep the token')
  }

  async delete(account: string): Promise<void> {
    const entry = await this.entry(account)
    try {
      await entry.deletePassword()
    } catch (error) {
      throw new KeyringUnavailableError(reasonOf(error))
    }
  }
}

/** `secret-tool` with the secret on stdin; undefined when the tool is missing or fails. */
function secretTool(args: string[]): Promise<string | undefined> {
  return new Promise((resolve) => {
    const child = spawn('secret-tool', args, { stdio: ['ignore', 'pipe', 'ignore'] })
    let stdout = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')))
    child.on('error', () => resolve(undefined))
    child.on('close', (code) => resolve(code === 0 ? stdout.replace(/\n$/, '') : undefined))
  })
}

/**
 * A token that Quire before the keyring library kept with `secret-tool` (attributes `service=quire
 * account=ID`; the library files its items under `service` and `username`, so it cannot see these).
 * Read once through `secret-tool lookup` (the token arrives on its stdout, never on a command line),
 * moved into the library's item, and the old entry cleared; reads after that find the new item.
 * Nothing new is ever written the old way.
 */
export class LegacySecretToolStore implements TokenStore {
  readonly kind = 'secret-tool' as const

  constructor(private readonly keyring = new KeyringTokenStore()) {}

  async get(account: string): Promise<string | undefined> {
    const moved = await this.keyring.get(account).catch(() => undefined)
    if (moved) return moved
    const old = await secretTool(['lookup', 'service', KEYRING_SERVICE, 'account', account])
    if (!old) return undefined
    try {
      await this.keyring.set(account, old)
      await secretTool(['clear', 'service', KEYRING_SERVICE, 'account', account])
    } catch {
      // Not moved: the old entry stays and is read again next time.
    }
    return old
  }

  async set(account: string, token: string): Promise<void> {
    await this.keyring.set(account, token)
  }

  async delete(account: string): Promise<void> {
    await this.keyring.delete(account).catch(() => undefined)
    await secretTool(['clear', 'service', KEYRING_SERVICE, 'account', account])
  }
}

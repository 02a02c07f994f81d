import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import { safeStorage } from 'electron'
import type { TokenVault } from '../app/token-vault'
import type { TokenStore } from '../engine'

/** The part of Electron's safeStorage the store uses (injected in tests as a reversible transform). */
export type SecretCipher = Pick<typeof safeStorage, 'isEncryptionAvailable' | 'encryptString' | 'decryptString'> & {
  getSelectedStorageBackend?: () => string
}

/**
 * Tokens encrypted with Electron's safeStorage, whose key lives in the OS keychain (macOS Keychain,
 * Windows DPAPI, libsecret/kwallet on Linux): one file per account, 0600 in a 0700 folder, written
 * atomically. A file without the keychain is useless, so a stolen disk image or backup gives nothing.
 * File names are hashes: the folder does not even say which accounts exist.
 */
export class ElectronTokenStore implements TokenStore, TokenVault {
  /**
   * The cache records which store holds an account's token so the CLI can find it. The CLI cannot
   * decrypt safeStorage (only Electron can), so for it this token is one in a file it does not have:
   * `file` makes it ask to sign in again, which is the truth. A kind of its own would be clearer in
   * messages; the engine's TokenStoreKind does not have one yet.
   */
  readonly kind = 'file' as const

  constructor(
    private readonly dir: string,
    private readonly cipher: SecretCipher = safeStorage,
  ) {}

  /**
   * Whether the key really is in a keychain. On Linux without a secret service Electron falls back to
   * a fixed key ("basic_text"): the file is then only as safe as its 0600 mode, and the app says so.
   */
  protection(): 'keychain' | 'file-permissions' {
    if (!this.cipher.isEncryptionAvailable()) return 'file-permissions'
    return this.cipher.getSelectedStorageBackend?.() === 'basic_text' ? 'file-permissions' : 'keychain'
  }

  async get(account: string): Promise<string | undefined> {
    let data: Buffer
    try {
      data = await fs.readFile(this.fileOf(account))
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
      throw error
    }
    this.requireEncryption()
    return this.cipher.decryptString(data)
  }

  async set(account: string, token: string): Promise<void> {
    this.requireEncryption()
    const data = this.cipher.encryptString(token)
    await fs.mkdir(this.dir, { recursive: true, mode: 0o700 })
    const file = this.fileOf(account)
    const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`
    try {
      // 'wx' with mode 0600: the file is never readable by others, not even for a moment.
      await fs.writeFile(temp, data, { mode: 0o600, flag: 'wx' })
      await fs.chmod(temp, 0o600) // a umask cannot widen it, but an odd filesystem might
      await fs.rename(temp, file)
    } catch (error) {
      await fs.rm(temp, { force: true })
      throw error
    }
  }

  async delete(account: string): Promise<void> {
    await fs.rm(this.fileOf(account), { force: true })
  }

  private fileOf(account: string): string {
    return path.join(this.dir, `${createHash('sha256').update(account).digest('hex').slice(0, 32)}.token`)
  }

  private requireEncryption() {
    // Before app 'ready' (or on a broken keyring) safeStorage cannot encrypt: refuse rather than write plain text.
    if (!this.cipher.isEncryptionAvailable()) throw new Error('the OS keychain is not available to encrypt the token (safeStorage)')
  }
}

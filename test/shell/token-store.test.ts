import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ElectronTokenStore } from '../../src/main/shell/token-store'
import { resetElectronMock, safeStorage } from './electron-mock'

vi.mock('electron', () => import('./electron-mock'))

const TOKEN = 'gb_api_super_secret_token_123'

describe('ElectronTokenStore', () => {
  let dir: string
  beforeEach(() => {
    resetElectronMock()
    dir = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'quire-tokens-')), 'credentials')
  })
  afterEach(() => fs.rmSync(path.dirname(dir), { recursive: true, force: true }))

  it('round-trips a token through safeStorage', async () => {
    const store = new ElectronTokenStore(dir)
    expect(store.kind).toBe('file')
    await store.set('account-1', TOKEN)
    expect(await store.get('account-1')).toBe(TOKEN)
    expect(safeStorage.encryptString).toHaveBeenCalledWith(TOKEN)
    expect(await store.get('account-2')).toBeUndefined()
    await store.set('account-1', 'replaced')
    expect(await store.get('account-1')).toBe('replaced')
  })

  it('writes only cipher text, in a 0600 file inside a 0700 folder, named without the account', async () => {
    await new ElectronTokenStore(dir).set('alice@example.com', TOKEN)
    const files = fs.readdirSync(dir)
    expect(files).toHaveLength(1) // no temporary file left behind
    expect(files[0]).toMatch(/^[0-9a-f]{32}\.token$/)
    const file = path.join(dir, files[0])
    const bytes = fs.readFileSync(file)
    expect(bytes.includes(Buffer.from(TOKEN))).toBe(false)
    if (process.platform !== 'win32') {
      expect(fs.statSync(file).mode & 0o777).toBe(0o600)
      expect(fs.statSync(dir).mode & 0o777).toBe(0o700)
    }
  })

  it('deletes a token, and deleting a missing one is fine', async () => {
    const store = new ElectronTokenStore(dir)
    await store.set('a', TOKEN)
    await store.delete('a')
    await store.delete('a')
    expect(await store.get('a')).toBeUndefined()
    expect(fs.readdirSync(dir)).toEqual([])
  })

  it('refuses to store a token when the keychain cannot encrypt, writing nothing', async () => {
    safeStorage.available = false
    const store = new ElectronTokenStore(dir)
    await expect(store.set('a', TOKEN)).rejects.toThrow(/keychain is not available/)
    expect(fs.existsSync(dir)).toBe(false)
    expect(store.protection()).toBe('file-permissions')
  })

  it("says when Linux falls back to Electron's fixed key", () => {
    expect(new ElectronTokenStore(dir).protection()).toBe('keychain')
    safeStorage.backend = 'basic_text'
    expect(new ElectronTokenStore(dir).protection()).toBe('file-permissions')
  })

  it('fails loudly on a file another key encrypted rather than returning garbage', async () => {
    const store = new ElectronTokenStore(dir)
    await store.set('a', TOKEN)
    const file = path.join(dir, fs.readdirSync(dir)[0])
    fs.writeFileSync(file, 'not cipher text')
    await expect(store.get('a')).rejects.toThrow(/decrypt/)
  })
})

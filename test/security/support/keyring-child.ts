/**
 * Run by test/security/keyring.test.ts, as `node --import tsx` inside a `dbus-run-session` with a real
 * gnome-keyring-daemon (KEYRING_MODE=secret-service), or with no D-Bus session at all (KEYRING_MODE=none).
 * Stores, reads and deletes tokens through Quire's token module, the real `quire` CLI (login, spaces,
 * logout) and the app backend (sign in, resume, sign out), and looks into the Secret Service itself with
 * `secret-tool`. Prints one JSON line of what it saw; the test asserts on it.
 */
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { appPaths } from '../../../src/main/app/paths'
import { QuireBackend } from '../../../src/main/app/backend'
import { openCache, quirePaths } from '../../../src/main/engine/account/account'
import { FileTokenStore, KeyringTokenStore, storeToken } from '../../../src/main/engine/account/token-store'

const work = process.env.KEYRING_WORK!
const endpoint = process.env.KEYRING_ENDPOINT!
const token = process.env.KEYRING_TOKEN!
const bin = fileURLToPath(new URL('../../../bin/quire.mjs', import.meta.url))

/** `secret-tool lookup ATTR VALUE...`: what the Secret Service holds under those attributes ('' for nothing). */
function lookup(...attributes: string[]): string {
  const result = spawnSync('secret-tool', ['lookup', ...attributes], { encoding: 'utf8' })
  return result.status === 0 ? result.stdout.replace(/\n$/, '') : ''
}

/** Whether the Secret Service holds anything under those attributes (reported as such: never the token). */
const holds = (...attributes: string[]) => lookup(...attributes) !== ''

function secretToolStore(value: string, ...attributes: string[]) {
  const result = spawnSync('secret-tool', ['store', '--label=Quire (old)', ...attributes], { input: value, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`secret-tool store failed: ${result.stderr}`)
}

function quire(home: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const result = spawnSync(process.execPath, [bin, ...args], { env: { ...process.env, QUIRE_HOME: home, ...env }, encoding: 'utf8', timeout: 60_000 })
  return { code: result.status, out: `${result.stdout}${result.stderr}` }
}

function account(home: string) {
  const cache = openCache(quirePaths({ QUIRE_HOME: home }))
  try {
    return cache.activeAccount()
  } finally {
    cache.close()
  }
}

function filesIn(folder: string): { name: string; mode: number }[] {
  if (!fs.existsSync(folder)) return []
  return fs.readdirSync(folder).map((name) => ({ name, mode: fs.statSync(path.join(folder, name)).mode & 0o777 }))
}

const report: Record<string, unknown> = {}

// 1. The module: store, read, delete.
{
  const fileFolder = path.join(work, 'module-credentials')
  const stored = await storeToken('probe@module', `${token}-module`, { fileFolder })
  const keyring = new KeyringTokenStore()
  report.module = {
    kind: stored.store.kind,
    fallbackReason: stored.fallbackReason,
    readBack: (await stored.store.get('probe@module')) === `${token}-module`,
    inSecretService: lookup('service', 'quire', 'username', 'probe@module') === `${token}-module`,
    files: filesIn(fileFolder),
  }
  await stored.store.delete('probe@module')
  Object.assign(report.module as object, {
    afterDelete: (await stored.store.get('probe@module')) ?? null,
    keyringAfterDelete: await keyring.get('probe@module').catch(() => 'unreachable'),
  })
}

// 2. The real CLI: login puts the token in the store its line names, spaces uses it, logout removes it.
{
  const home = path.join(work, 'cli')
  const login = quire(home, ['login', '--endpoint', endpoint], { QUIRE_TOKEN: token })
  const row = account(home)
  const status = quire(home, ['spaces'])
  const inSecretService = row ? lookup('service', 'quire', 'username', row.id) === token : false
  const files = filesIn(path.join(home, 'credentials'))
  const logout = quire(home, ['logout'])
  report.cli = {
    login,
    kind: row?.tokenStore,
    spaces: { code: status.code, listed: /\(organization /.test(status.out) },
    inSecretService,
    files,
    logout: logout.code,
    afterLogout: row ? holds('service', 'quire', 'username', row.id) : false,
  }
}

// 3. A token the old code kept with `secret-tool` (service=quire account=ID): found by the CLI, moved once.
if (process.env.KEYRING_MODE === 'secret-service') {
  const home = path.join(work, 'legacy')
  const id = 'legacy-user@0123456789ab'
  secretToolStore(token, 'service', 'quire', 'account', id)
  const cache = openCache(quirePaths({ QUIRE_HOME: home }))
  cache.saveAccount({ id, endpoint: endpoint.replace(/\/v1$/, ''), userId: 'owner', displayName: 'Old Login', tokenStore: 'secret-tool' })
  cache.close()
  // `quire spaces` calls the service with the account's token (status only reads the cache).
  const status = quire(home, ['spaces'])
  report.legacy = {
    spaces: { code: status.code, listed: /\(organization /.test(status.out) },
    kind: account(home)?.tokenStore,
    oldEntry: holds('service', 'quire', 'account', id),
    newItem: lookup('service', 'quire', 'username', id) === token,
    again: quire(home, ['spaces']).code,
  }
  quire(home, ['logout'])
  ;(report.legacy as Record<string, unknown>).afterLogout = holds('service', 'quire', 'username', id) || holds('service', 'quire', 'account', id)
}

// 3b. A token the old code kept in the 0600 file stays readable there while a keychain is reachable (a
// cron job without D-Bus may rely on it); the next `quire login` moves it into the keychain and removes the file.
if (process.env.KEYRING_MODE === 'secret-service') {
  const home = path.join(work, 'legacy-file')
  const id = 'file-user@0123456789ab'
  await new FileTokenStore(quirePaths({ QUIRE_HOME: home }).tokenFolder).set(id, token)
  const cache = openCache(quirePaths({ QUIRE_HOME: home }))
  cache.saveAccount({ id, endpoint: endpoint.replace(/\/v1$/, ''), userId: 'owner', displayName: 'File Login', tokenStore: 'file' })
  cache.close()
  const spaces = quire(home, ['spaces'])
  const kindBefore = account(home)?.tokenStore
  const login = quire(home, ['login', '--endpoint', endpoint], { QUIRE_TOKEN: token })
  const row = account(home)
  report.legacyFile = {
    spaces: { code: spaces.code, listed: /\(organization /.test(spaces.out) },
    kindBefore,
    login: login.code,
    kindAfter: row?.tokenStore,
    inSecretService: row ? lookup('service', 'quire', 'username', row.id) === token : false,
    files: filesIn(path.join(home, 'credentials')),
  }
  quire(home, ['logout'])
}

// 3c. An account whose token is in the keychain, used where no keychain can be reached (no D-Bus
// session): the CLI says so, and how to go on, rather than calling the token missing.
if (process.env.KEYRING_MODE === 'none') {
  const home = path.join(work, 'unreachable')
  const cache = openCache(quirePaths({ QUIRE_HOME: home }))
  cache.saveAccount({ id: 'desk-user@0123456789ab', endpoint: endpoint.replace(/\/v1$/, ''), userId: 'owner', displayName: 'Desk Login', tokenStore: 'keyring' })
  cache.close()
  const spaces = quire(home, ['spaces'])
  report.unreachable = { code: spaces.code, says: spaces.out.split('\n').find((l) => l.includes('cannot be reached')) ?? spaces.out }
}

// 4. The app backend (`quire serve`, the headless app): sign in, resume in a new backend, sign out.
{
  const dataDir = path.join(work, 'app')
  const open = () => QuireBackend.open({ dataDir, autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 10_000 } })
  let backend = await open()
  await backend.signIn({ endpoint, token })
  await backend.close()
  const cache = openCache({ cacheFile: appPaths(dataDir).cacheFile, tokenFolder: '', defaultWorkspace: '' })
  const row = cache.activeAccount()
  cache.close()
  backend = await open()
  const resumed = (await backend.getSession()).signedIn
  const inSecretService = row ? lookup('service', 'quire', 'username', row.id) === token : false
  const files = filesIn(appPaths(dataDir).tokenFolder)
  await backend.signOut()
  await backend.close()
  const log = fs.existsSync(appPaths(dataDir).logFile) ? fs.readFileSync(appPaths(dataDir).logFile, 'utf8') : ''
  report.app = {
    kind: row?.tokenStore,
    resumed,
    inSecretService,
    files,
    afterSignOut: row ? holds('service', 'quire', 'username', row.id) : false,
    logSaysFile: log.includes('The token is kept in a file only you can read (mode 0600)'),
    logHasToken: log.includes(token),
  }
}

process.stdout.write(`KEYRING-REPORT ${JSON.stringify(report)}\n`)

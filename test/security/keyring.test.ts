import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'

/**
 * Tokens in the OS store through @napi-rs/keyring, against a real Secret Service: a gnome-keyring-daemon
 * in its own `dbus-run-session` (CI installs both: .ci/run). And the declared fallback, with no D-Bus
 * session: the 0600 file, and the CLI's line says so. The work happens in a child
 * (support/keyring-child.ts) that lives inside the session; it reports what it saw as one JSON line.
 */

const t = serviceForFile({ demo: true })
const child = fileURLToPath(new URL('./support/keyring-child.ts', import.meta.url))
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-keyring-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

function onPath(command: string): boolean {
  return (process.env.PATH ?? '').split(path.delimiter).some((dir) => dir !== '' && fs.existsSync(path.join(dir, command)))
}

const missing = ['gnome-keyring-daemon', 'dbus-run-session', 'dbus-send', 'secret-tool'].filter((c) => !onPath(c))

interface Run {
  code: number | null
  out: string
  report: Record<string, Record<string, unknown>>
}

/** The child, in a D-Bus session of its own with an unlocked keyring (`secret-service`), or with none. */
function runChild(mode: 'secret-service' | 'none'): Promise<Run> {
  const work = path.join(tmp, mode)
  const home = path.join(work, 'home')
  const runtime = path.join(work, 'run')
  fs.mkdirSync(home, { recursive: true })
  fs.mkdirSync(runtime, { recursive: true, mode: 0o700 })
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    // The keyring's files (~/.local/share/keyrings) and its control socket are the test's own.
    HOME: home,
    XDG_RUNTIME_DIR: runtime,
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    KEYRING_MODE: mode,
    KEYRING_WORK: work,
    KEYRING_ENDPOINT: t.service.baseUrl,
    KEYRING_TOKEN: t.service.token,
    KEYRING_PASSWORD: 'quire-test-keyring',
  }
  // Nothing here may reach the keyring of whoever runs the tests, nor force the file store.
  for (const name of ['DBUS_SESSION_BUS_ADDRESS', 'QUIRE_TOKEN_STORE', 'QUIRE_HOME', 'QUIRE_TOKEN', 'GNOME_KEYRING_CONTROL', 'DISPLAY']) delete env[name]
  const node = `exec "${process.execPath}" --import tsx "${child}"`
  const hasOwner = 'dbus-send --session --print-reply --dest=org.freedesktop.DBus /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.secrets'
  const waitForSecrets = `i=0; until ${hasOwner} 2>/dev/null | grep -q true; do i=$((i+1)); if [ $i -gt 300 ]; then echo "no Secret Service on the bus after 30 s" >&2; exit 9; fi; sleep 0.1; done`
  const [command, args] =
    mode === 'secret-service'
      ? // --unlock reads the login keyring's password on stdin (creating the keyring the first time). It returns
        // before the daemon owns org.freedesktop.secrets on the bus: wait for that (a condition, up to 30 s).
        ['dbus-run-session', ['--', 'sh', '-c', `printf %s "$KEYRING_PASSWORD" | gnome-keyring-daemon --unlock --components=secrets >/dev/null && ${waitForSecrets} && ${node}`]]
      : ['sh', ['-c', node]]
  return new Promise((resolve, reject) => {
    const proc = spawn(command as string, args as string[], { env, cwd: fileURLToPath(new URL('../..', import.meta.url)), stdio: ['ignore', 'pipe', 'pipe'] })
    let out = ''
    proc.stdout.on('data', (c: Buffer) => (out += c.toString()))
    proc.stderr.on('data', (c: Buffer) => (out += c.toString()))
    proc.on('error', reject)
    proc.on('close', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('KEYRING-REPORT '))
      resolve({ code, out, report: line ? JSON.parse(line.slice('KEYRING-REPORT '.length)) : {} })
    })
  })
}

describe('tokens in the OS store through the keyring library', () => {
  it.skipIf(missing.length > 0)(
    `a real Secret Service (gnome-keyring in a dbus-run-session) holds the tokens of the module, quire login and the app backend, and an old secret-tool entry moves once${missing.length > 0 ? ` [skipped: ${missing.join(', ')} not installed]` : ''}`,
    async () => {
      const { code, out, report } = await runChild('secret-service')
      expect(code, out).toBe(0)
      expect(report.module, out).toMatchObject({ kind: 'keyring', readBack: true, inSecretService: true, files: [], afterDelete: null })
      expect(report.module.keyringAfterDelete).toBeUndefined()

      const cli = report.cli
      const login = cli.login as { code: number; out: string }
      expect(login.code, login.out).toBe(0)
      // One line names the store; the token is never printed.
      expect(login.out).toMatch(/^token kept in the Secret Service \(GNOME Keyring, KWallet\)$/m)
      expect(out).not.toContain(t.service.token)
      expect(cli).toMatchObject({ kind: 'keyring', spaces: { code: 0, listed: true }, inSecretService: true, files: [], logout: 0, afterLogout: false })

      // The old code's entry (service=quire account=ID): quire spaces finds it, it moves into the library's item once.
      expect(report.legacy).toMatchObject({ spaces: { code: 0, listed: true }, kind: 'keyring', oldEntry: false, newItem: true, again: 0, afterLogout: false })

      // The old 0600 file is still read while a keychain is reachable; the next login moves the token out of it.
      expect(report.legacyFile).toMatchObject({ spaces: { code: 0, listed: true }, kindBefore: 'file', login: 0, kindAfter: 'keyring', inSecretService: true, files: [] })

      // `quire serve` / the headless app: the same module, the same store.
      expect(report.app).toMatchObject({ kind: 'keyring', resumed: true, inSecretService: true, files: [], afterSignOut: false })
    },
    120_000,
  )

  it('with no D-Bus session the token goes to the 0600 file, the declared fallback, and quire login says so', async () => {
    const { code, out, report } = await runChild('none')
    expect(code, out).toBe(0)
    expect(report.module, out).toMatchObject({ kind: 'file', readBack: true, inSecretService: false, files: [{ name: 'probe_module.token', mode: 0o600 }], afterDelete: null })
    expect(report.module.fallbackReason).toMatch(/no D-Bus session/)

    // A token kept in the keychain elsewhere (a desktop session), used here: said as such, with what to do.
    expect(report.unreachable.code).toBe(1)
    expect(report.unreachable.says).toMatch(/the token for Desk Login is in the Secret Service \(GNOME Keyring, KWallet\), which cannot be reached here \(no D-Bus session .*\): run quire login again/)

    const login = report.cli.login as { code: number; out: string }
    expect(login.code, login.out).toBe(0)
    expect(login.out).toMatch(/^token kept in a file only you can read \(mode 0600\) in .*credentials \(the fallback: the Secret Service \(GNOME Keyring, KWallet\) cannot be reached, no D-Bus session .*\)$/m)
    expect(out).not.toContain(t.service.token)
    expect(report.cli).toMatchObject({ kind: 'file', spaces: { code: 0, listed: true }, logout: 0 })
    expect(report.cli.files).toEqual([{ name: expect.stringMatching(/\.token$/), mode: 0o600 }])

    // The app backend (`quire serve`) says it in its activity log, without the token.
    expect(report.app).toMatchObject({ kind: 'file', resumed: true, logSaysFile: true, logHasToken: false })
    expect(report.app.files).toEqual([{ name: expect.stringMatching(/\.token$/), mode: 0o600 }])
  }, 120_000)
})

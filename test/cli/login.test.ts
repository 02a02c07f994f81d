import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it, vi } from 'vitest'
import { main } from '../../src/main/cli/main'
import { openCache, quirePaths } from '../../src/main/engine/account/account'
import { FileTokenStore } from '../../src/main/engine/account/token-store'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { quireHomeForFile } from './support/cli-home'

const t = serviceForFile({ demo: true })
quireHomeForFile('quire-login-')

function capture() {
  const lines: string[] = []
  return { lines, io: { out: (l: string) => lines.push(l), err: (l: string) => lines.push(l), isTTY: false } }
}

/** Everything written to the console while `fn` runs, besides what the command prints through io. */
async function consoleDuring<T>(fn: () => Promise<T>): Promise<{ result: T; written: string }> {
  let written = ''
  const spies = [
    vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => ((written += String(chunk)), true)),
    vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => ((written += String(chunk)), true)),
    ...(['log', 'error', 'warn', 'info', 'debug'] as const).map((m) => vi.spyOn(console, m).mockImplementation((...a: unknown[]) => void (written += a.join(' ')))),
  ]
  try {
    return { result: await fn(), written }
  } finally {
    for (const s of spies) s.mockRestore()
  }
}

describe('quire login / logout', () => {
  it('validates the token, keeps it in a 0600 file, never prints it, and logout removes it', async () => {
    const { lines, io } = capture()
    const { result, written } = await consoleDuring(() => main(['login', '--endpoint', t.service.baseUrl, '--token', t.service.token], io))
    expect(result).toBe(0)
    expect(lines.join('\n')).toMatch(/signed in to http:\/\/127\.0\.0\.1:\d+ as Quire Owner/)
    expect(lines.join('\n') + written).not.toContain(t.service.token)

    const cache = openCache(quirePaths())
    const account = cache.activeAccount()!
    cache.close()
    expect(account).toMatchObject({ endpoint: t.service.origin, userId: t.service.ownerId, tokenStore: 'file' })
    const file = new FileTokenStore(quirePaths().tokenFolder).fileFor(account.id)
    expect(fs.readFileSync(file, 'utf8').trim()).toBe(t.service.token)
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(fs.statSync(path.dirname(file)).mode & 0o777).toBe(0o700)
    // The cache never holds the token.
    expect(fs.readFileSync(quirePaths().cacheFile).includes(Buffer.from(t.service.token))).toBe(false)

    const out = capture()
    expect(await main(['logout'], out.io)).toBe(0)
    expect(out.lines.join('\n')).toMatch(/signed out/)
    expect(fs.existsSync(file)).toBe(false)
    const after = openCache(quirePaths())
    expect(after.activeAccount()).toBeUndefined()
    after.close()
    expect(await main(['logout'], out.io)).toBe(0)
    expect(out.lines.at(-1)).toBe('not signed in')
  })

  it('refuses a bad token without echoing it and stores nothing', async () => {
    const { lines, io } = capture()
    const bad = 'qs_not-a-real-token-123456'
    const { result, written } = await consoleDuring(() => main(['login', '--endpoint', `${t.service.origin}/v1/`, '--token', bad], io))
    expect(result).toBe(1)
    expect(lines.join('\n')).toMatch(/refused the token \(HTTP 401\)/)
    expect(lines.join('\n') + written).not.toContain(bad)
    expect(fs.existsSync(quirePaths().tokenFolder) ? fs.readdirSync(quirePaths().tokenFolder) : []).toEqual([])
  })

  it('explains missing options and a bad endpoint', async () => {
    const { lines, io } = capture()
    expect(await main(['login', '--token', 'x'], io)).toBe(2)
    expect(lines.join('\n')).toMatch(/--endpoint is required/)
    expect(await main(['login', '--endpoint', t.service.baseUrl], io)).toBe(2)
    expect(lines.join('\n')).toMatch(/no token: set QUIRE_TOKEN or pass it on standard input/)
    expect(await main(['login', '--endpoint', 'not a url', '--token', 'x'], io)).toBe(1)
    expect(lines.join('\n')).toMatch(/--endpoint must be a URL/)
  })

  it('reads the token from standard input or QUIRE_TOKEN, and warns when it is given on the command line', async () => {
    const prompts: string[] = []
    const piped = capture()
    const stdinIo = { ...piped.io, readSecret: async (prompt: string) => (prompts.push(prompt), `${t.service.token}`) }
    expect(await main(['login', '--endpoint', t.service.baseUrl], stdinIo)).toBe(0)
    expect(prompts).toEqual(['Access token (not shown): '])
    expect(piped.lines.join('\n')).toMatch(/signed in to/)
    expect(piped.lines.join('\n')).not.toMatch(/warning/)

    process.env.QUIRE_TOKEN = t.service.token
    try {
      const fromEnv = capture()
      const asked: string[] = []
      expect(await main(['login', '--endpoint', t.service.baseUrl], { ...fromEnv.io, readSecret: async (p: string) => (asked.push(p), '') })).toBe(0)
      expect(asked).toEqual([]) // QUIRE_TOKEN wins over standard input
      expect(fromEnv.lines.join('\n')).not.toMatch(/warning/)
    } finally {
      delete process.env.QUIRE_TOKEN
    }

    const argv = capture()
    expect(await main(['login', '--endpoint', t.service.baseUrl, '--token', t.service.token], argv.io)).toBe(0)
    expect(argv.lines[0]).toMatch(/warning: --token puts the token in the process list/)
    expect(argv.lines.join('\n')).not.toContain(t.service.token)
  })

  it('refuses a token with a line break as such, without quoting it or calling the service unreachable', async () => {
    const { lines, io } = capture()
    const hostile = 'qs_Zq81nL0wPq\nAuthorization-Evil: xK29dM3v'
    const { result, written } = await consoleDuring(() => main(['login', '--endpoint', t.service.baseUrl], { ...io, readSecret: async () => hostile }))
    expect(result).toBe(1)
    const text = lines.join('\n') + written
    expect(text).toMatch(/the token contains a line break/)
    expect(text).not.toMatch(/cannot be reached/)
    for (const piece of ['qs_Zq81nL0wPq', 'xK29dM3v', hostile]) expect(text).not.toContain(piece)
  })
})

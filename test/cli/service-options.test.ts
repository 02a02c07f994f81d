import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'

/**
 * Issue 12: `quire service` keeps its data under QUIRE_HOME like the rest of Quire, its --help explains
 * every option, and a restart with a new --token makes the old one stop working.
 */

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-service-options-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** `quire service` as a real process: its first two lines (URL, data folder), and a way to stop it. */
async function startService(args: string[], env: NodeJS.ProcessEnv = {}) {
  const child = spawn(process.execPath, [bin, 'service', '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const lines = readline.createInterface({ input: child.stdout })
  const firstTwo = new Promise<string[]>((resolve, reject) => {
    const seen: string[] = []
    lines.on('line', (line) => {
      seen.push(line)
      if (seen.length === 2) resolve(seen)
    })
    void exited.then((code) => reject(new Error(`service exited early with ${code}`)))
  })
  const [first, data] = await firstTwo
  const [baseUrl, generated] = first.split(' token=')
  return {
    baseUrl,
    generated,
    data: data.replace(/^data: /, ''),
    async stop() {
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    },
  }
}

async function userStatus(baseUrl: string, token: string): Promise<number> {
  return (await fetch(`${baseUrl}/user`, { headers: { Authorization: `Bearer ${token}` } })).status
}

function tokenFile(name: string, token: string): string {
  const file = path.join(tmp, `${name}.txt`)
  fs.writeFileSync(file, `${token}\n`, { mode: 0o600 })
  return file
}

describe('quire service options', () => {
  it('--help explains every option of its synopsis, QUIRE_HOME, and what a new token does to the old', async () => {
    const out: string[] = []
    expect(await main(['service', '--help'], { out: (l) => out.push(l), err: () => {}, isTTY: false })).toBe(0)
    const help = out.join('\n')
    const synopsis = help.slice(0, help.indexOf('\n\n'))
    const options = [...new Set(synopsis.match(/--[a-z-]+/g))]
    expect(options.sort()).toEqual(['--data', '--demo', '--host', '--port', '--rate-limit', '--token', '--token-file'])
    for (const option of options) expect(help, option).toMatch(new RegExp(`^ {2}${option}\\b.*\\S.{20,}`, 'm'))
    expect(help).toContain('QUIRE_HOME')
    expect(help).toMatch(/tokens of earlier starts stop working/)
  })

  it('without --data, keeps its database under QUIRE_HOME', async () => {
    const home = path.join(tmp, 'home')
    const run = await startService([], { QUIRE_HOME: home })
    expect(run.data).toBe(path.join(home, 'service'))
    expect(await userStatus(run.baseUrl, run.generated)).toBe(200)
    await run.stop()
    expect(fs.existsSync(path.join(home, 'service', 'service.db'))).toBe(true)
  })

  it('a restart with a new --token-file refuses the old token; a restart without one keeps the given token working', async () => {
    const data = path.join(tmp, 'data')
    const first = await startService(['--data', data, '--token-file', tokenFile('old', 'qs_old-owner-token-1234')])
    expect(await userStatus(first.baseUrl, 'qs_old-owner-token-1234')).toBe(200)
    await first.stop()

    const second = await startService(['--data', data, '--token-file', tokenFile('new', 'qs_new-owner-token-5678')])
    expect(await userStatus(second.baseUrl, 'qs_new-owner-token-5678')).toBe(200)
    expect(await userStatus(second.baseUrl, 'qs_old-owner-token-1234')).toBe(401)
    await second.stop()

    // Without a token one is generated and printed; the owner's given token keeps working beside it.
    const third = await startService(['--data', data])
    expect(third.generated).toMatch(/^qs_/)
    expect(await userStatus(third.baseUrl, third.generated)).toBe(200)
    expect(await userStatus(third.baseUrl, 'qs_new-owner-token-5678')).toBe(200)
    expect(await userStatus(third.baseUrl, 'qs_old-owner-token-1234')).toBe(401)
    await third.stop()
  })
})

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-cli-'))
afterAll(() => fs.rmSync(dataDir, { recursive: true, force: true }))

/** Starts `quire service` as a real process and resolves with its first line and the process. */
function startService(args: string[]) {
  const child = spawn(process.execPath, [bin, 'service', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
  const lines = readline.createInterface({ input: child.stdout })
  const first = new Promise<string>((resolve, reject) => {
    lines.once('line', resolve)
    child.once('exit', (code) => reject(new Error(`service exited early with ${code}`)))
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  return { child, first, exited }
}

describe('quire service', () => {
  it('prints the base URL first (not a token it was given), persists under --data, and stops cleanly on SIGTERM', async () => {
    const tokenFile = path.join(dataDir, '..', `quire-token-${process.pid}.txt`)
    fs.writeFileSync(tokenFile, 'secret-token-from-a-file\n', { mode: 0o600 })
    const run = startService(['--port', '0', '--data', dataDir, '--token-file', tokenFile, '--demo'])
    const line = await run.first
    fs.rmSync(tokenFile)
    const match = /^(http:\/\/127\.0\.0\.1:\d+\/v1)$/.exec(line)
    expect(match, line).not.toBeNull()
    const [, baseUrl] = match!
    const token = 'secret-token-from-a-file'
    const user = await fetch(`${baseUrl}/user`, { headers: { Authorization: `Bearer ${token}` } })
    expect(user.status).toBe(200)
    const orgs = (await (await fetch(`${baseUrl}/orgs`, { headers: { Authorization: `Bearer ${token}` } })).json()) as { items: Array<{ title: string }> }
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
    expect(fs.existsSync(path.join(dataDir, 'service.db'))).toBe(true)

    // A second start on the same data keeps the demo organization and does not seed it twice.
    const again = startService(['--port', '0', '--data', dataDir])
    const [againUrl, generated] = (await again.first).split(' token=')
    expect(generated).toMatch(/^qs_/)
    const orgsAgain = (await (await fetch(`${againUrl}/orgs`, { headers: { Authorization: `Bearer ${generated}` } })).json()) as { items: Array<{ title: string }> }
    expect(orgsAgain.items.map((o) => o.title)).toEqual(orgs.items.map((o) => o.title))
    again.child.kill('SIGINT')
    expect(await again.exited).toBe(0)
  })

  it('rejects bad options with a clear message and a non-zero exit', async () => {
    const errors: string[] = []
    const io = { out: () => {}, err: (l: string) => errors.push(l), isTTY: false }
    expect(await main(['service', '--port', 'abc'], io)).toBe(1)
    expect(errors.join('\n')).toMatch(/--port must be 0\.\.65535/)
    expect(await main(['service', '--rate-limit', 'lots'], io)).toBe(1)
    expect(errors.join('\n')).toMatch(/--rate-limit expects N\/MIN/)
    expect(await main(['nope'], io)).toBe(2)
    expect(errors.join('\n')).toMatch(/unknown command "nope"/)
    expect(await main(['service', '--token', 'a-token-1234', '--token-file', '/dev/null'], io)).toBe(1)
    expect(errors.join('\n')).toMatch(/give --token or --token-file, not both/)
    const bad = path.join(dataDir, '..', `quire-bad-token-${process.pid}.txt`)
    fs.writeFileSync(bad, 'qs_Rk29sLq0\r\nX-Injected: Hv83nQz1\n')
    try {
      expect(await main(['service', '--token-file', bad], io)).toBe(1)
    } finally {
      fs.rmSync(bad)
    }
    expect(errors.at(-1)).toMatch(/token file .* contains a line break/)
    expect(errors.join('\n')).not.toMatch(/Rk29sLq0|Hv83nQz1/)
  })

  it('warns that --token is visible in the process list', async () => {
    const run = startService(['--port', '0', '--data', dataDir, '--token', 'visible-token-123'])
    const stderr = readline.createInterface({ input: run.child.stderr! })
    const warning = new Promise<string>((resolve) => stderr.once('line', resolve))
    expect(await run.first).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/)
    expect(await warning).toMatch(/warning: --token puts the token in the process list/)
    run.child.kill('SIGTERM')
    expect(await run.exited).toBe(0)
  })
})

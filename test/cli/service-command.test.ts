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
  it('prints the base URL and token first, persists under --data, and stops cleanly on SIGTERM', async () => {
    const run = startService(['--port', '0', '--data', dataDir, '--token', 'secret-token', '--demo'])
    const line = await run.first
    const match = /^(http:\/\/127\.0\.0\.1:\d+\/v1) token=(\S+)$/.exec(line)
    expect(match).not.toBeNull()
    const [, baseUrl, token] = match!
    expect(token).toBe('secret-token')
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
  })
})

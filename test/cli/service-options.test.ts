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
  const seen: string[] = []
  const waiting: Array<() => void> = []
  lines.on('line', (line) => {
    seen.push(line)
    for (const wake of waiting.splice(0)) wake()
  })
  /** The n-th line printed (0-based), once it is. */
  const line = (n: number) =>
    new Promise<string>((resolve, reject) => {
      const check = () => (seen.length > n ? resolve(seen[n]) : waiting.push(check))
      check()
      void exited.then((code) => reject(new Error(`service exited early with ${code}`)))
    })
  const [first, data] = [await line(0), await line(1)]
  const [baseUrl, generated] = first.split(' token=')
  return {
    baseUrl,
    generated,
    line,
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
    expect(options.sort()).toEqual(['--add-user', '--data', '--demo', '--file-port', '--file-url', '--host', '--hosted', '--latency', '--port', '--rate-limit', '--role', '--token', '--token-file'])
    for (const option of options) expect(help, option).toMatch(new RegExp(`^ {2}${option}\\b.*\\S.{20,}`, 'm'))
    expect(help).toContain('QUIRE_HOME')
    expect(help).toMatch(/tokens of earlier starts stop working/)
  })

  it('--hosted [--latency MS] [--rate-limit N/SEC]: trees without markdown, files from a file host on its own port, 429s past the rate', async () => {
    const run = await startService(['--data', path.join(tmp, 'hosted'), '--demo', '--hosted', '--latency', '20', '--rate-limit', '4/SEC'])
    try {
      const files = (await run.line(2)).replace(/^files: /, '')
      expect(files).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
      expect(files).not.toBe(new URL(run.baseUrl).origin)
      const get = (route: string) => fetch(`${run.baseUrl}${route}`, { headers: { Authorization: `Bearer ${run.generated}` } })
      const collections = (await (await get('/orgs')).json()) as { items: Array<{ id: string }> }
      const spaces = (await (await get(`/orgs/${collections.items[0].id}/spaces`)).json()) as { items: Array<{ id: string }> }
      const tree = (await (await get(`/spaces/${spaces.items[0].id}/content`)).json()) as { pages: Array<{ markdown?: string }>; files: Array<{ downloadURL: string }> }
      expect(tree.pages.length).toBeGreaterThan(0)
      expect(tree.pages.every((p) => p.markdown === undefined)).toBe(true)
      if (tree.files.length > 0) expect(new URL(tree.files[0].downloadURL).origin).toBe(files)
      const statuses = await Promise.all(Array.from({ length: 6 }, () => get('/user').then((r) => r.status)))
      expect(statuses).toContain(429)
    } finally {
      await run.stop()
    }
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

  it('--add-user NAME [--role ROLE]: a member of the owner\'s organizations, the token printed once, working at once with that role', async () => {
    const data = path.join(tmp, 'members')
    const run = await startService(['--data', data, '--demo'])
    const api = (token: string, route: string) => fetch(`${run.baseUrl}${route}`, { headers: { Authorization: `Bearer ${token}` } }).then(async (r) => ({ status: r.status, body: (await r.json()) as any }))
    try {
      const add = async (...args: string[]) => {
        const out: string[] = []
        const err: string[] = []
        const code = await main(['service', '--data', data, ...args], { out: (l) => out.push(l), err: (l) => err.push(l), isTTY: false })
        return { code, out, err, token: /^token=(\S+)$/m.exec(out.join('\n'))?.[1] }
      }
      const bea = await add('--add-user', 'Bea Writer', '--role', 'edit')
      expect(bea.code, bea.err.join('\n')).toBe(0)
      expect(bea.out[0]).toMatch(/^added Bea Writer \(bea\.writer@quire\.local, user \S+\): edit in Quire Demo$/)
      expect(bea.token).toMatch(/^qs_/)
      // Printed once, and said to be shown only this once.
      expect([...bea.out, ...bea.err].join('\n').split(bea.token!).length - 1).toBe(1)
      expect(bea.err.join('\n')).toMatch(/shown this once/)

      // The running service takes the token at once, as Bea, a member of the owner's organization with the role asked.
      const me = await api(bea.token!, '/user')
      expect(me.status).toBe(200)
      expect(me.body.displayName).toBe('Bea Writer')
      const [org] = (await api(run.generated, '/orgs')).body.items
      const members = (await api(run.generated, `/orgs/${org.id}/members`)).body.items as Array<{ role: string; user: { id: string; displayName: string } }>
      expect(members.find((m) => m.user.displayName === 'Bea Writer')).toMatchObject({ role: 'edit', user: { id: me.body.id } })
      // Edit, not review: the role decides what the token may do in the organization's spaces.
      const space = (await api(bea.token!, `/orgs/${org.id}/spaces`)).body.items[0]
      expect((await api(bea.token!, `/spaces/${space.id}`)).body.permissions).toMatchObject({ edit: true, review: false, merge: false })

      // The same name again is the same person with another token; the first one keeps working. Review is the default role.
      const again = await add('--add-user', 'bea writer')
      expect(again.code).toBe(0)
      expect(again.out[0]).toMatch(/^a new token for Bea Writer .*: review in Quire Demo$/)
      expect(again.token).not.toBe(bea.token)
      expect((await api(again.token!, '/user')).body.id).toBe(me.body.id)
      expect((await api(bea.token!, '/user')).status).toBe(200)
      expect((await api(again.token!, `/spaces/${space.id}`)).body.permissions).toMatchObject({ review: true, merge: true })

      // The demo's reviewer was given a token on the start that seeded it (the third line): Ada, who reviews.
      const reviewerLine = await run.line(2)
      expect(reviewerLine).toMatch(/^reviewer: Ada Reviewer \(ada@quire\.local, review\) token=qs_\S+$/)
      const ada = reviewerLine.split(' token=')[1]
      expect((await api(ada, '/user')).body.displayName).toBe('Ada Reviewer')
      expect((await api(ada, `/spaces/${space.id}`)).body.permissions).toMatchObject({ review: true })

      // Bad input is refused with the reason, and adds no one.
      expect((await add('--add-user', 'Cy', '--role', 'boss')).err.join('\n')).toMatch(/--role must be one of admin, create, review, edit, comment, read/)
      expect((await add('--add-user', 'Cy', '--port', '9')).err.join('\n')).toMatch(/--add-user adds a member and exits: it takes --role and --data, not --port/)
      expect((await add('--add-user', 'Quire Owner')).err.join('\n')).toMatch(/is the service's owner/)
      expect((await add('--role', 'edit')).err.join('\n')).toMatch(/--role goes with --add-user NAME/)
      const none = await main(['service', '--data', path.join(tmp, 'nothing-here'), '--add-user', 'Cy'], { out: () => {}, err: () => {}, isTTY: false })
      expect(none).toBe(1)
      expect((await api(run.generated, `/orgs/${org.id}/members`)).body.items.some((m: { user: { displayName: string } }) => m.user.displayName === 'Cy')).toBe(false)
    } finally {
      await run.stop()
    }
  })
})

import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { main } from '../../src/main/cli/main'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { startTestService, type TestService } from '../support/service'

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const KILLS = Number(process.env.QUIRE_KILL_RUNS ?? 20)

let t: TestService
let home: string
let spaceId: string
const silent = { out: () => {}, err: () => {}, isTTY: false }

beforeAll(async () => {
  t = await startTestService({ demo: true })
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-kill-'))
  process.env.QUIRE_HOME = home
  process.env.QUIRE_TOKEN_STORE = 'file'
  const orgs = (await t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  const spaces = (await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgs.items[0].id } })).body as { items: Array<{ id: string; title: string }> }
  spaceId = spaces.items.find((s) => s.title === 'User Guide')!.id
})
afterAll(async () => {
  await t.close()
  fs.rmSync(home, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

/** Runs `quire sync --once` in a child process and SIGKILLs it a random moment after it starts writing. */
function killMidSync(workspace: string, delayMs: number): Promise<void> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [bin, 'sync', '--once', '--workspace', workspace, '--space', spaceId], {
      env: { ...process.env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      if (/steps? to do/.test(line)) setTimeout(() => child.kill('SIGKILL'), delayMs)
    })
    child.once('exit', () => resolve())
  })
}

describe('quire sync killed with SIGKILL', () => {
  it(`never leaves a partial file, and the next run completes (${KILLS} kills at random points of an initial sync)`, async () => {
    const revision = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body as {
      pages: Array<{ git?: { oid: string }; pages?: unknown[] }>
      files: Array<{ git: { oid: string } }>
    }
    const complete = new Set<string>()
    const walk = (pages: Array<{ git?: { oid: string }; pages?: unknown[] }>) =>
      pages.forEach((p) => (p.git && complete.add(p.git.oid), walk((p.pages ?? []) as typeof pages)))
    walk(revision.pages)
    for (const f of revision.files) complete.add(f.git.oid)

    let midway = 0
    let seed = 7
    const random = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    for (let run = 0; run < KILLS; run++) {
      // A fresh initial sync each time: no cache, no folder.
      fs.rmSync(home, { recursive: true, force: true })
      fs.mkdirSync(home)
      expect(await main(['login', '--endpoint', t.service.baseUrl, '--token', t.service.token], silent)).toBe(0)
      const workspace = path.join(home, 'ws')
      await killMidSync(workspace, Math.floor(random() * 250))

      const root = path.join(workspace, 'Quire Demo', 'User Guide')
      const files = fs.existsSync(root) ? listFiles(root) : []
      if (files.length > 0 && files.length < 52) midway++
      for (const file of files) {
        if (path.basename(file).startsWith(TEMP_MARK) || file === 'SUMMARY.md') continue
        expect(complete.has(gitBlobOid(fs.readFileSync(path.join(root, file)))), `run ${run}: ${file} is partial`).toBe(true)
      }

      expect(await main(['sync', '--once'], silent), `run ${run}: the next run completes`).toBe(0)
      const after = listFiles(root)
      expect(after.filter((f) => path.basename(f).startsWith(TEMP_MARK))).toEqual([])
      expect(after.filter((f) => f.endsWith('.md'))).toHaveLength(48)
      for (const file of after) if (file !== 'SUMMARY.md') expect(complete.has(gitBlobOid(fs.readFileSync(path.join(root, file))))).toBe(true)
    }
    // The kills did land in the middle of writing (not all before or after it).
    expect(midway).toBeGreaterThan(0)
  }, 600_000)
})

function listFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out.push(path.relative(root, full).split(path.sep).join('/'))
    }
  }
  walk(root)
  return out
}

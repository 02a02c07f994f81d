import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changeEveryPage, keptOnDisk, pageFiles, raceSpaces, RaceWriter, tempFiles, type Appended } from '../support/race-writer'
import { rng } from '../support/rng'
import { quireHomeForFile } from './support/cli-home'

/**
 * The probe of issue 9 (finding 3) as a test: a space whose pages all changed remotely, a real
 * `quire sync --once` in its own process, and a writer appending one unique line to each page file at
 * some moment while the pass runs: often right while Quire writes that very file (its temp file is
 * there), otherwise at a random moment. No appended line may be lost: after the pass it is in its file,
 * and after sync up in the file or in a conflicted copy beside it.
 */

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const PAGES = Number(process.env.QUIRE_RACE_PAGES ?? 100)
const ROUNDS = Number(process.env.QUIRE_RACE_ROUNDS ?? 2)
const SEED = Number(process.env.QUIRE_RACE_SEED ?? 20261124)

const t = serviceForFile()
const home = quireHomeForFile('quire-sync-race-')
const silent = { out: () => {}, err: () => {}, isTTY: false }
const raceSpace = raceSpaces(t, PAGES)

/** `quire sync --once` as its own process; `during` runs from the moment it has planned until it exits. */
function syncInChild(args: string[], during: (running: () => boolean) => Promise<void>): Promise<{ code: number | null; stderr: string[] }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [bin, 'sync', '--once', ...args], {
      env: { ...process.env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file' },
      stdio: ['ignore', 'ignore', 'pipe'],
    })
    let exited = false
    const stderr: string[] = []
    let writer: Promise<void> = Promise.resolve()
    readline.createInterface({ input: child.stderr }).on('line', (line) => {
      stderr.push(line)
      if (/steps? to do/.test(line)) writer = during(() => !exited)
    })
    child.once('error', reject)
    child.once('exit', (code) => {
      exited = true
      writer.then(() => resolve({ code, stderr }), reject)
    })
  })
}

describe('quire sync --once while the writer saves', () => {
  it(`loses no appended line (${ROUNDS} passes over ${PAGES} pages all changed remotely, seed ${SEED})`, async () => {
    const r = rng(SEED)
    expect(await main(['login', '--endpoint', t.service.baseUrl, '--token', t.service.token], silent)).toBe(0)
    const workspace = path.join(home, 'ws')
    const appended: Appended[] = []
    const spaces: string[] = []
    let whileWritten = 0

    for (let round = 0; round < ROUNDS; round++) {
      // A fresh space each round, so every page is clean when the pass starts.
      const { spaceId, pageIds } = await raceSpace(`Race ${round}`)
      spaces.push(spaceId)
      expect(await main(['sync', '--once', '--workspace', workspace, '--space', spaceId], silent)).toBe(0)
      const root = path.join(workspace, 'Fixture org', `Race ${round}`)
      expect(pageFiles(root)).toHaveLength(PAGES)
      changeEveryPage(t, spaceId, pageIds, round)

      const writer = new RaceWriter(root, round, r)
      const { code, stderr } = await syncInChild(['--space', spaceId], (running) => writer.run(running))
      appended.push(...writer.appended)
      whileWritten += writer.whileWritten
      expect(stderr.join('\n'), 'the pass ended by itself, not by a crash').not.toMatch(/\n\s+at |TypeError|EEXIST/)
      expect([0, 1]).toContain(code)
      // Right after the pass, every line is in its file (sync down makes no copies).
      const lost = appended.filter(({ root: at, file, line }) => !fs.readFileSync(path.join(at, file), 'utf8').includes(line))
      expect(lost.map((l) => l.line.trim()), `round ${round}`).toEqual([])
    }
    // The writer did save while Quire wrote those very files.
    expect(whileWritten).toBeGreaterThan(0)

    // Sync up: the edits go to a change request; pages both sides changed get a conflicted copy.
    expect(await main(['sync', '--once', ...spaces.flatMap((id) => ['--space', id])], silent)).toBe(1)
    expect(await main(['watch', '--once'], silent)).toBe(0)
    for (const save of appended) {
      const { kept, where } = keptOnDisk(save)
      expect(kept, `${save.line.trim()}: not in ${where.join(', ')}`).toBe(true)
    }
    for (const root of new Set(appended.map((a) => a.root))) expect(tempFiles(root)).toEqual([])
  }, 300_000)
})

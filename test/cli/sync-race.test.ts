import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changeEveryPage, keptOnDisk, pageFiles, raceSpaces, RaceWriter, tempFiles, type Appended, type SaveStyle } from '../support/race-writer'
import { rng } from '../support/rng'
import { quireHomeForFile } from './support/cli-home'

/**
 * The probes of issue 9 (finding 3) and issue 25 (item 4) as tests: a space whose pages all changed
 * remotely, a real `quire sync --once` in its own process, and a writer saving one unique line to each
 * page file at some moment while the pass runs: often right while Quire writes that very file (its temp
 * file is there), otherwise at a random moment; appended in place, or saved by rename as editors do. No
 * line may be lost: after the pass it is in its file (or a conflicted copy), and after sync up in the
 * file or in a conflicted copy beside it; and no page's file sends the remote change back (sync up
 * merged each save with it).
 *
 *   QUIRE_RACE_PAGES, QUIRE_RACE_ROUNDS, QUIRE_RACE_SEED, QUIRE_RACE_STYLES=append,rename,
 *   QUIRE_RACE_REPORT=1 (prints the counts)
 */

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const PAGES = Number(process.env.QUIRE_RACE_PAGES ?? 100)
const ROUNDS = Number(process.env.QUIRE_RACE_ROUNDS ?? 2)
const SEED = Number(process.env.QUIRE_RACE_SEED ?? 20261124)
const STYLES = (process.env.QUIRE_RACE_STYLES ?? 'append,rename').split(',') as SaveStyle[]

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
  it.each(STYLES)(`loses no line saved by %s (${ROUNDS} passes over ${PAGES} pages all changed remotely, seed ${SEED})`, async (style) => {
    const started = performance.now()
    const r = rng(SEED)
    expect(await main(['login', '--endpoint', t.service.baseUrl, '--token', t.service.token], silent)).toBe(0)
    const workspace = path.join(home, 'ws')
    const appended: Appended[] = []
    const spaces: string[] = []
    const rounds: Array<{ root: string; round: number }> = []
    let whileWritten = 0
    let overQuire = 0
    const lostInPass: string[] = []

    for (let round = 0; round < ROUNDS; round++) {
      // A fresh space each round, so every page is clean when the pass starts.
      const title = `Race ${style} ${round}`
      const { spaceId, pageIds } = await raceSpace(title)
      spaces.push(spaceId)
      expect(await main(['sync', '--once', '--workspace', workspace, '--space', spaceId], silent)).toBe(0)
      const root = path.join(workspace, 'Fixture org', title)
      rounds.push({ root, round })
      expect(pageFiles(root)).toHaveLength(PAGES)
      changeEveryPage(t, spaceId, pageIds, round)

      const writer = new RaceWriter(root, round, r, style)
      const { code, stderr } = await syncInChild(['--space', spaceId], (running) => writer.run(running))
      appended.push(...writer.appended)
      whileWritten += writer.whileWritten
      overQuire += writer.overQuire
      expect(stderr.join('\n'), 'the pass ended by itself, not by a crash').not.toMatch(/\n\s+at |TypeError|EEXIST/)
      expect([0, 1]).toContain(code)
      // Right after the pass, every line is in its file, or in a conflicted copy when a save came back to a name taken again.
      lostInPass.push(...writer.appended.filter((save) => !keptOnDisk(save).kept).map((save) => `round ${round}: ${save.line.trim()}`))
    }
    // The writer did save while Quire wrote those very files.
    expect(whileWritten).toBeGreaterThan(0)

    // Sync up: the edits go to a change request; pages both sides changed get a conflicted copy.
    expect(await main(['sync', '--once', ...spaces.flatMap((id) => ['--space', id])], silent)).toBe(1)
    expect(await main(['watch', '--once'], silent)).toBe(0)
    const lost = appended.filter((save) => !keptOnDisk(save).kept)
    // A save merged with the remote change keeps it; one sent over it would undo it in the change request.
    const reverted = rounds.flatMap(({ root, round }) => pageFiles(root).filter((file) => !fs.readFileSync(path.join(root, file), 'utf8').includes(`Remote text of round ${round}.`)).map((file) => `${path.basename(root)}/${file}`))
    const figures = { style, pages: PAGES, rounds: ROUNDS, saves: appended.length, whileWritten, overQuire, lostInPass: lostInPass.length, lost: lost.length, reverted: reverted.length, seconds: Math.round((performance.now() - started) / 100) / 10 }
    if (process.env.QUIRE_RACE_REPORT) console.log(`sync-race: ${JSON.stringify(figures)}`)
    expect(lostInPass, JSON.stringify(figures)).toEqual([])
    expect(lost.map((save) => `${save.line.trim()}: not in ${keptOnDisk(save).where.join(', ')}`), JSON.stringify(figures)).toEqual([])
    expect(reverted, JSON.stringify(figures)).toEqual([])
    for (const { root } of rounds) expect(tempFiles(root)).toEqual([])
  }, 120_000 + ROUNDS * 90_000)
})

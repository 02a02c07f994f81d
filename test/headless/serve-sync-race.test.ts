import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import type { QuireApi, QuireChannel, SpaceNode } from '../../src/shared/contract'
import { HEADLESS_SESSION_PATH, HEADLESS_TOKEN_HEADER } from '../../src/shared/headless-transport'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { mainRevision, openChangeRequestMarkdown, pagesOf } from '../engine/sync-up/support/workspace'
import { changeEveryPage, keptOnDisk, pageFiles, raceSpaces, RaceWriter, tempFiles, type Appended } from '../support/race-writer'
import { rng } from '../support/rng'
import { until } from '../support/until'
import { startServe, type ServeProcess } from '../ui/support'

/**
 * The writer-saves-during-a-pass race (test/cli/sync-race.test.ts) through the desktop app's backend:
 * a real `quire serve` child (QuireBackend, the class the Electron main process runs) driven over its
 * HTTP API as the renderer drives it, the real local service in this process, and this process as the
 * writer, another process than Quire as a real editor is. Each round mirrors a fresh space of PAGES
 * pages, changes every page remotely, presses Sync now and appends one unique line to each page file:
 * right while Quire writes that very file (its temp file is there) when it can, opened then and written
 * a turn later (often after Quire's rename: into the file Quire replaced), otherwise at a random moment
 * of the pass. Once Quire is quiet (the child stopped, which waits for all its queued work), no line may
 * be lost (P1): each is in its page file, in a conflicted copy beside it, or in the open change
 * request's text of that page (the app's watcher pushes the saves). With the put-back of late saves
 * disabled (executor.ts undoOvertakenSteps) it lost 1 to 5 lines in 4 of 6 runs.
 */

const PAGES = Number(process.env.QUIRE_RACE_PAGES ?? 100)
const ROUNDS = Number(process.env.QUIRE_RACE_ROUNDS ?? 2)
const SEED = Number(process.env.QUIRE_RACE_SEED ?? 20261125)

const t = serviceForFile()
const raceSpace = raceSpaces(t, PAGES)
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-serve-race-'))
afterAll(() => fs.rmSync(tmp, { recursive: true, force: true }))

/** A channel called as the renderer calls it: the contract's arguments and answer. */
type Call = <K extends QuireChannel>(name: K, ...args: Parameters<QuireApi[K]>) => ReturnType<QuireApi[K]>

/** The renderer's side of `quire serve`: the secret traded for a tab token, then channels called with it. */
async function connect(serve: ServeProcess): Promise<Call> {
  const secret = new URL(serve.url).hash.slice('#secret='.length)
  const post = async (pathname: string, body: unknown, headers: Record<string, string> = {}) => {
    const res = await fetch(`${serve.origin}${pathname}`, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) })
    const answer = (await res.json()) as { result?: unknown; error?: { message: string } }
    if (res.status !== 200) throw new Error(`${pathname}: ${res.status} ${answer.error?.message ?? JSON.stringify(answer)}`)
    return answer.result
  }
  const { token } = (await post(HEADLESS_SESSION_PATH, { secret })) as { token: string }
  return <K extends QuireChannel>(name: K, ...args: Parameters<QuireApi[K]>) => post(`/api/${name}`, args, { [HEADLESS_TOKEN_HEADER]: token }) as ReturnType<QuireApi[K]>
}

describe('quire serve: Sync now while the writer saves', () => {
  it(`loses no appended line (${ROUNDS} passes over ${PAGES} pages all changed remotely, seed ${SEED})`, async () => {
    const r = rng(SEED)
    const renderer = path.join(tmp, 'renderer')
    fs.mkdirSync(renderer)
    fs.writeFileSync(path.join(renderer, 'index.html'), '<!doctype html><title>Quire</title>')
    const workspace = path.join(tmp, 'ws')
    const serve = await startServe(['--port', '0', '--data', path.join(tmp, 'data'), '--renderer', renderer], { QUIRE_TOKEN_STORE: 'file' })
    const appended: Appended[] = []
    /** Each round's space by its folder, with its page ids by file name. */
    const spaces = new Map<string, { spaceId: string; pageIdOf: Map<string, string> }>()
    let whileWritten = 0
    try {
      const call = await connect(serve)
      // No timer cycle of its own between the remote edits and Sync now: the pass is the one the writer races.
      await call('updateSettings', { workspace, intervalSeconds: 86_400 })
      expect((await call('signIn', { endpoint: t.service.baseUrl, token: t.service.token })).signedIn).toBe(true)
      const space = async (spaceId: string): Promise<SpaceNode | undefined> => (await call('getStatus')).spaces.find((s) => s.id === spaceId)

      for (let round = 0; round < ROUNDS; round++) {
        // A fresh space each round, so every page is clean when the pass starts; choosing it mirrors it.
        const { spaceId, pageIds } = await raceSpace(`Race ${round}`)
        await call('listSpaces')
        await call('setSelection', { kind: 'space', id: spaceId, selected: true })
        const mirrored = await until(async () => {
          const node = await space(spaceId)
          return node?.state === 'synced' && node.folder && node.lastSyncAt && pageFiles(node.folder).length === PAGES ? node : undefined
        }, `the first mirror of Race ${round}`)
        const root = mirrored.folder!
        const pageIdOf = new Map([...pagesOf(await mainRevision(t.api, spaceId))].map(([id, p]) => [p.path, id]))
        spaces.set(root, { spaceId, pageIdOf })
        changeEveryPage(t, spaceId, pageIds, round)

        // Sync now; the pass is over when the space's last sync is a new one. Random saves wait for the
        // plan (a save before it is a plain local edit the pass never races); saves while Quire writes a
        // file are made whenever its temp file shows.
        const writer = new RaceWriter(root, round, r)
        let planned = false
        let over = false
        await call('syncNow')
        const watching = until(async () => {
          const node = await space(spaceId)
          if (node?.syncTotal) planned = true
          over = node?.lastSyncAt !== mirrored.lastSyncAt
          return over || writer.left === 0 ? true : undefined
        }, `the pass of Race ${round} to end`, 120_000)
        await writer.run(
          () => !over,
          () => planned,
        )
        await watching
        appended.push(...writer.appended)
        whileWritten += writer.whileWritten
        // Rounds do not overlap: the cycle's last push and the watcher's pushes of the saves are done.
        await until(async () => {
          const state = (await space(spaceId))?.state
          return state !== 'syncing' && state !== 'pending' ? true : undefined
        }, `Race ${round} to settle`)
      }
    } finally {
      await serve.stop()
    }
    // Quiet: serve stopped on SIGTERM, which waits for the session's queued work, and exited by itself.
    expect(serve.child.exitCode, serve.stderr()).toBe(0)
    expect(serve.stderr(), 'the child did not crash').not.toMatch(/\n\s+at |TypeError|EEXIST|failed:/)
    // The writer did save while Quire wrote those very files.
    expect(whileWritten).toBeGreaterThan(0)

    // Where each line is: its file (a save the pass kept, then sent clean), a conflicted copy (main changed
    // the same paragraph), or only the change request.
    const found = { inFile: 0, inCopy: 0, inChangeRequest: 0, whileWritten, lines: appended.length }
    const lost: string[] = []
    for (const save of appended) {
      const { kept, where } = keptOnDisk(save)
      if (kept) {
        found[fs.readFileSync(path.join(save.root, save.file), 'utf8').includes(save.line) ? 'inFile' : 'inCopy']++
        continue
      }
      const { spaceId, pageIdOf } = spaces.get(save.root)!
      const pageId = pageIdOf.get(save.file)
      if (pageId !== undefined && ((await openChangeRequestMarkdown(t.api, spaceId, pageId)) ?? '').includes(save.line.trim())) found.inChangeRequest++
      else lost.push(`${save.line.trim()}: not in ${where.join(', ')} nor in the open change request`)
    }
    if (process.env.QUIRE_RACE_REPORT) console.log(`serve-sync-race: ${JSON.stringify(found)}`)
    expect(lost, JSON.stringify(found)).toEqual([])
    for (const root of new Set(appended.map((a) => a.root))) expect(tempFiles(root)).toEqual([])
  }, 300_000)
})

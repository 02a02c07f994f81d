/**
 * What an idle `quire watch` cycle costs: the timer's cycle over a space where nothing changed, counted
 * (not timed) at the gateway's fetch against the real local service, and in the engine's own counters
 * of SUMMARY.md reads (content `summaryReads`) and local scans and file hashes (push `scanCounts`).
 * The session is built as `quire watch` builds it (watcher on, a timer); a save afterwards still goes up.
 */
import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { summaryReads } from '../../../src/main/content/gitsync/summary'
import { StatJournal } from '../../../src/main/engine/cache/stat-journal'
import { LocalScanner, scanCounts } from '../../../src/main/engine/push/local-scan'
import { SpaceFolder } from '../../../src/main/engine/workspace/space-folder'
import { isSettled } from '../../../src/main/engine/workspace/stat-first'
import { WorkspaceSession } from '../../../src/main/engine/session/workspace-session'
import { until } from '../../support/until'
import { recordingFetch, removeWorkstation, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

const t = serviceForFile()

let ws: Workstation | undefined
let loop: WorkspaceSession | undefined
afterEach(async () => {
  await loop?.stop()
  if (ws) removeWorkstation(ws)
  loop = undefined
  ws = undefined
})

describe('an idle quire watch cycle', () => {
  it('makes only the request that learns the revision, reads no SUMMARY.md, scans and hashes nothing; a save after it still goes up', async () => {
    const requests: string[] = []
    const counted = recordingFetch(requests)
    const seeded = await seedSpace(t)
    const w = (ws = new Workstation(t, seeded, tempDir('quire-idle-cycle-'), { gateway: { fetch: counted } }))
    w.cache.setSelection({ spaces: [seeded.spaceId] })
    w.cache.setOrganizationFolder(seeded.orgId, 'Acme')
    w.cache.setSpaceFolder(seeded.spaceId, 'Docs')
    let timerMs = 3_600_000
    let cycles = 0
    const session = (loop = new WorkspaceSession({
      cache: w.cache,
      outbox: w.outbox,
      comments: w.comments,
      account: w.cache.activeAccount()!,
      gateway: w.gateway,
      workspace: () => path.join(w.dir, 'workspace'),
      intervalMs: () => timerMs,
      debounceMs: 100,
      onEvent: (event) => {
        if (event.type === 'pass') cycles++
      },
    }))
    await session.start()
    expect(fs.existsSync(w.file('SUMMARY.md'))).toBe(true)

    // The timer's cycles from now on; the first one may still plan what the watcher saw of the mirror.
    timerMs = 50
    session.reschedule()
    await until(() => (cycles >= 3 ? true : undefined), 'two timer cycles')
    await session.idle()
    const start = { cycles, requests: requests.length, summary: summaryReads.count, scans: scanCounts.scans, hashed: scanCounts.hashed }
    await until(() => (cycles >= start.cycles + 3 ? true : undefined), 'three more timer cycles')
    timerMs = 3_600_000
    session.reschedule()
    await session.idle()
    const done = cycles - start.cycles
    const made = requests.slice(start.requests)
    // One request a cycle: the one that learns the space's revision (the space itself, or its organization's list).
    expect(made).toHaveLength(done)
    for (const request of made) expect([`GET /spaces/${seeded.spaceId}`, `GET /orgs/${seeded.orgId}/spaces`]).toContain(request)
    expect(summaryReads.count - start.summary).toBe(0)
    expect(scanCounts.scans - start.scans).toBe(0)
    expect(scanCounts.hashed - start.hashed).toBe(0)

    // A save is seen by the watcher and planned: the idle cycles did not stand in for it.
    const install = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, page]) => page.path === 'guide/install.md')![0]
    const files = w.cache.journal(seeded.spaceId).length
    const beforeSave = { limited: scanCounts.limited, statted: scanCounts.statted }
    w.write('guide/install.md', `${w.read('guide/install.md')}\nSaved after the idle cycles.\n`)
    const diff = await until(async () => {
      const [cr] = await openChangeRequests(t.api, seeded.spaceId)
      return cr ? changedPages(await mainRevision(t.api, seeded.spaceId), await changeRequestRevision(t.api, seeded.spaceId, cr.id)) : undefined
    }, 'the save to reach a change request')
    expect(diff).toEqual({ changed: [install], added: [], removed: [] })
    // The watcher's push looked at the saved file (and SUMMARY.md, which every scan reads), not at every file of the folder.
    await session.idle()
    expect(scanCounts.limited - beforeSave.limited).toBeGreaterThanOrEqual(1)
    expect(files).toBeGreaterThan(4)
    expect(scanCounts.statted - beforeSave.statted).toBeLessThanOrEqual(2 * (scanCounts.scans - start.scans))
  })

  it('a new process\'s first scan reads only SUMMARY.md: the hashes sync down left in the stat journal stand for the other files', async () => {
    const seeded = await seedSpace(t)
    const w = (ws = new Workstation(t, seeded, tempDir('quire-first-scan-')))
    await w.pull()
    const paths = w.cache.journal(seeded.spaceId).map((j) => j.path)
    expect(paths.length).toBeGreaterThan(3)
    // A stat vouches for a hash only once the file has settled (stat-first.ts); then a pass's scan remembers it.
    await until(() => (paths.every((p) => isSettled(fs.lstatSync(w.file(p), { bigint: true }))) ? true : undefined), 'the files to settle')
    const stats = StatJournal.of(w.cache, seeded.spaceId)
    await new SpaceFolder(w.folder).scan(paths, { memo: stats })
    stats.save(paths)
    const before = scanCounts.hashed
    const scan = await new LocalScanner(w.folder, () => StatJournal.of(w.cache, seeded.spaceId)).scan(() => false)
    expect(scanCounts.hashed - before).toBe(1)
    expect(scan.summary).toBe(w.read('SUMMARY.md'))
    // The same hashes as a scan that reads every file.
    const read = await new LocalScanner(w.folder).scan(() => false)
    expect(new Map([...scan.files].map(([p, f]) => [p, f.hash]))).toEqual(new Map([...read.files].map(([p, f]) => [p, f.hash])))
  })
})

/**
 * What an idle cycle and a save cost through the app's backend (QuireBackend, which `quire serve` and
 * the Electron shell run), counted at the gateway's fetch against the real local service: the same as
 * through the engine session alone (idle-cycle.test.ts, save-requests.test.ts), plus what the app adds
 * around the session: its review workflow's look for news after each pass, pinned here.
 */
import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { until } from '../../support/until'
import { AppWorkstation } from './support/app-workstation'
import { recordingFetch, serviceForFile } from './support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, remoteOf, seedSpace, tempDir } from './support/workspace'

process.env.QUIRE_TOKEN_STORE = 'file'
const t = serviceForFile()
let app: AppWorkstation | undefined
let dataDir: string | undefined
afterEach(async () => {
  await app?.close()
  if (dataDir) fs.rmSync(dataDir, { recursive: true, force: true })
  app = undefined
  dataDir = undefined
})

describe('through the app backend', () => {
  it("an idle cycle makes the engine's one request and the review workflow's lists; a save is the read of the change request and the batch", async () => {
    const requests: string[] = []
    const counted = recordingFetch(requests)
    const seeded = await seedSpace(t)
    dataDir = tempDir('quire-backend-requests-')
    app = await AppWorkstation.open(remoteOf(t), seeded, dataDir, { maxAttempts: 2, timeoutMs: 10_000, fetch: counted }, (work) => work(), { watch: true, debounceMs: 100 })
    const session = app.session
    let passes = 0
    session.observe((event) => {
      if (event.type === 'pass') passes++
    })
    // The timer's cycle, as the app's interval runs it (the backend is opened without its own timer here).
    const timerCycle = async () => {
      await session.requestCycle({ evenIfPaused: false, timer: true })
      // The app's work after a pass (its review workflow looks for news) is part of the cycle's cost.
      await app!.settle()
    }
    await session.syncNow() // mirrors the space and starts the watcher
    await app.settle()
    for (let i = 0; i < 2; i++) await timerCycle() // the first may still plan what the watcher saw of the mirror

    const from = { requests: requests.length, passes }
    for (let i = 0; i < 3; i++) await timerCycle()
    const made = requests.slice(from.requests).map((r) => r.replace(seeded.spaceId, 'S').replace(seeded.orgId, 'O'))
    expect(passes - from.passes).toBe(3)
    // The sync's part is the engine's (idle-cycle.test.ts): the one request that learns the revision (here
    // the organization's list of spaces). The app adds its review workflow's look for news after each pass:
    // lists of change requests (waiting for the writer's review, the writer's own), never a page, a
    // revision or a file. Pinned, so any request more an idle cycle makes fails here.
    const cycle = ['GET /orgs/O/change-requests', 'GET /orgs/O/spaces', 'GET /spaces/S', 'GET /spaces/S/change-requests', 'GET /spaces/S/change-requests']
    expect(made.slice().sort()).toEqual([...cycle, ...cycle, ...cycle].sort())

    // Saves the watcher pushes: the first opens the change request; the next is one read and the batch.
    const install = [...pagesOf(await mainRevision(t.api, seeded.spaceId))].find(([, page]) => page.path === 'guide/install.md')![0]
    const save = async (line: string) => {
      const start = requests.length
      app!.write('guide/install.md', `${app!.read('guide/install.md')}\n${line}\n`)
      await until(() => (requests.slice(start).some((r) => r.endsWith('/content')) ? true : undefined), `the save "${line}" to be sent`)
      await app!.settle()
      const [cr] = await openChangeRequests(t.api, seeded.spaceId)
      const diff = changedPages(await mainRevision(t.api, seeded.spaceId), await changeRequestRevision(t.api, seeded.spaceId, cr.id))
      expect(diff).toEqual({ changed: [install], added: [], removed: [] })
      const inCr = await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id, pageId: install }, query: { format: 'markdown' } })
      expect(String((inCr.body as { markdown?: string }).markdown)).toContain(line)
      return requests.slice(start)
    }
    await save('The first save, which opens the change request.')
    const second = await save('A second save.')
    expect(second.map((r) => r.replace(/\/[A-Za-z0-9]{16,}/g, '/ID'))).toEqual(['GET /spaces/ID/change-requests/ID', 'POST /spaces/ID/change-requests/ID/content'])
  })
})

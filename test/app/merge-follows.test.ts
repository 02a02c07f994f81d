import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { AppWorkstation } from '../engine/sync-up/support/app-workstation'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { INSTALL_PAGE, mergeOnMain } from '../engine/sync-up/support/two-writers'
import { pageIdAt, remoteOf, seedSpace, tempDir } from '../engine/sync-up/support/workspace'

/**
 * The app's Merge as the randomized test drives it (AppWorkstation.merge, over QuireBackend): when it
 * returns, the workspace has followed the merge, as after the CLI's (SpacePusher.merge settles in the
 * call). The backend's merge returns before the cycle it starts right after; left running, that cycle
 * raced the next steps of a sequence, which read the journal and the outbox as if it were over: seed 26027
 * took an edited file for the page the journal named before the merge (P6 reported a change the writer
 * made), 26108 and 26165 judged "no change request open" before that cycle's push opened one, then lost
 * the cache that recorded it (P3 reported the duplicate the next push made).
 */

const t = serviceForFile()
let app: AppWorkstation | undefined
let dir: string | undefined
afterEach(async () => {
  await app?.close()
  if (dir) fs.rmSync(dir, { recursive: true, force: true })
  app = undefined
  dir = undefined
})

/** Whether `work` is over before the next turn of the event loop (nothing left to wait for on the network). */
const overAtOnce = (work: Promise<void>) => Promise.race([work.then(() => true), new Promise<boolean>((resolve) => setImmediate(() => resolve(false)))])

describe("the app's Merge, then the workspace follows", () => {
  it('a page someone deleted and the writer edited comes back under a new id: once merged, the journal names it, and nothing runs', async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    dir = tempDir('quire-app-merge-')
    app = await AppWorkstation.open(remoteOf(t), seeded, dir, { maxAttempts: 1 }, (work) => work())
    await app.pull()
    const deleted = await pageIdAt(t.api, spaceId, INSTALL_PAGE)
    await mergeOnMain(t.api, spaceId, [{ operation: 'delete_page', page: deleted }])
    // Edited before a pass saw the deletion: the edit beats it, the change request puts the page back.
    app.write(INSTALL_PAGE, `${app.read(INSTALL_PAGE).trimEnd()}\n\nThe writer's paragraph.\n`)
    await app.push()
    const crId = app.outbox.session(spaceId)!.changeRequestId!
    expect(await app.merge(crId)).toBe('merged')
    const merged = await pageIdAt(t.api, spaceId, INSTALL_PAGE)
    expect(merged).not.toBe(deleted)
    expect(app.cache.journal(spaceId).find((j) => j.kind === 'page' && j.path === INSTALL_PAGE)?.id).toBe(merged)
    expect(await overAtOnce(app.settle())).toBe(true)
  })
})

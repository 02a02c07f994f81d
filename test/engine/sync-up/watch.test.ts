import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { PushResult } from '../../../src/main/engine/push/space-pusher'
import { WorkspaceSession } from '../../../src/main/engine/session/workspace-session'
import { removeWorkstation, seededWorkstation, serviceForFile } from './support/hooks'
import { until } from '../../support/until'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, pagesOf, SEED_PAGES, Workstation } from './support/workspace'

const t = serviceForFile()

let ws: Workstation
let loop: WorkspaceSession
let pushes: PushResult[]
let passes: number
beforeEach(async () => {
  ws = await seededWorkstation(t, 'quire-watch-')
  ws.cache.setSelection({ spaces: [ws.seeded.spaceId] })
  ws.cache.setOrganizationFolder(ws.seeded.orgId, 'Acme')
  ws.cache.setSpaceFolder(ws.seeded.spaceId, 'Docs')
  pushes = []
  passes = 0
  loop = new WorkspaceSession({
    cache: ws.cache,
    outbox: ws.outbox,
    comments: ws.comments,
    account: ws.cache.activeAccount()!,
    gateway: ws.gateway,
    workspace: () => path.join(ws.dir, 'workspace'),
    intervalMs: () => 3_600_000,
    debounceMs: 100,
    renameWindowMs: 400,
    onEvent: (event) => {
      if (event.type === 'pass') passes++
      if (event.type === 'push') pushes.push(event.result)
    },
  })
  await loop.start()
})
afterEach(async () => {
  await loop.stop()
  removeWorkstation(ws)
})

const idOfPath = async (p: string) => [...pagesOf(await mainRevision(t.api, ws.seeded.spaceId))].find(([, page]) => page.path === p)![0]

async function changeRequestDiff() {
  const crs = await openChangeRequests(t.api, ws.seeded.spaceId)
  if (crs.length === 0) return undefined
  expect(crs).toHaveLength(1)
  return changedPages(await mainRevision(t.api, ws.seeded.spaceId), await changeRequestRevision(t.api, ws.seeded.spaceId, crs[0].id))
}

describe('quire watch', () => {
  it('mirrors the space first, then a save through a temp file and a rename (vim) is one edit of one page', async () => {
    expect(ws.read('guide/install.md')).toBe(SEED_PAGES.install)
    const file = ws.file('guide/install.md')
    // vim: probe file, backup by rename, write the new file, drop the backup; swap file all along.
    fs.writeFileSync(path.join(path.dirname(file), '.install.md.swp'), 'swap')
    fs.writeFileSync(path.join(path.dirname(file), '4913'), '')
    fs.rmSync(path.join(path.dirname(file), '4913'))
    fs.renameSync(file, `${file}~`)
    fs.writeFileSync(file, '# Install\n\nSaved from vim.\n')
    fs.rmSync(`${file}~`)
    fs.rmSync(path.join(path.dirname(file), '.install.md.swp'))
    const diff = await until(async () => {
      const d = await changeRequestDiff()
      return d && d.changed.length > 0 ? d : undefined
    }, 'the edit to reach a change request')
    expect(diff).toEqual({ changed: [await idOfPath('guide/install.md')], added: [], removed: [] })
  })

  it('a rename with mv is a rename, not a deletion and a new page', async () => {
    const faq = await idOfPath('faq.md')
    fs.renameSync(ws.file('faq.md'), ws.file('questions.md'))
    const cr = await until(async () => {
      const [c] = await openChangeRequests(t.api, ws.seeded.spaceId)
      if (!c) return undefined
      const pages = pagesOf(await changeRequestRevision(t.api, ws.seeded.spaceId, c.id))
      return pages.get(faq)?.path === 'questions.md' ? c : undefined
    }, 'the rename to reach a change request')
    expect(changedPages(await mainRevision(t.api, ws.seeded.spaceId), await changeRequestRevision(t.api, ws.seeded.spaceId, cr.id))).toEqual({ changed: [faq], added: [], removed: [] })
  })

  it("Quire's own writes (a sync down bringing a remote change) are not taken for edits", async () => {
    const start = await idOfPath('getting-started.md')
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: ws.seeded.spaceId }, body: { subject: 'Remote' } })).body
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: ws.seeded.spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: start, document: { markdown: '# Getting started\n\nRemote text.\n' } }] },
    })
    await t.api.call('mergeChangeRequest', { params: { spaceId: ws.seeded.spaceId, changeRequestId: cr.id } })
    const passesBefore = passes
    await loop.syncNow() // what the interval does
    expect(passes).toBe(passesBefore + 1)
    expect(ws.read('getting-started.md')).toBe('# Getting started\n\nRemote text.\n')
    // The watcher saw the pass write the file; the push it causes finds nothing to send.
    const seen = pushes.length
    await until(async () => (pushes.length > seen ? true : undefined), 'the push the write causes')
    expect(pushes.every((p) => p.planned === 0)).toBe(true)
    expect(await openChangeRequests(t.api, ws.seeded.spaceId)).toEqual([])
  })
})

import fs from 'node:fs'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { LocalFiles } from '../../src/main/app/local-files'
import { sessionActivity } from '../../src/main/app/session-activity'
import { WorkspaceSession } from '../../src/main/engine/session/workspace-session'
import { removeWorkstation, seededWorkstation, serviceForFile } from '../engine/sync-up/support/hooks'
import type { Workstation } from '../engine/sync-up/support/workspace'
import { editSpaceDirectly } from '../support/content-fixtures'
import { until } from '../support/until'

/**
 * Issue 28: a broken link in a local edit appears in the app's link report and its header count (the
 * engine session's pre-flight, which `quire serve` shares), with file and line, and leaves them once fixed.
 */

const t = serviceForFile()
let ws: Workstation
let session: WorkspaceSession
let files: LocalFiles
let activity: string[]

beforeEach(async () => {
  ws = await seededWorkstation(t, 'quire-local-links-')
  ws.cache.setSelection({ spaces: [ws.seeded.spaceId] })
  ws.cache.setOrganizationFolder(ws.seeded.orgId, 'Acme')
  ws.cache.setSpaceFolder(ws.seeded.spaceId, 'Docs')
  const workspace = path.join(ws.dir, 'workspace')
  session = new WorkspaceSession({
    cache: ws.cache,
    outbox: ws.outbox,
    comments: ws.comments,
    account: ws.cache.activeAccount()!,
    gateway: ws.gateway,
    workspace: () => workspace,
    intervalMs: () => 3_600_000,
    debounceMs: 100,
    renameWindowMs: 400,
  })
  activity = []
  session.observe(sessionActivity(ws.cache, (level, message) => activity.push(`${level}: ${message}`)))
  await session.start()
  files = new LocalFiles(ws.cache, () => workspace, {} as DesktopActions, (spaceId) => session.linkPreflight(spaceId))
})
afterEach(async () => {
  await session.stop()
  removeWorkstation(ws)
})

describe("the app's link report", () => {
  it("counts and lists a local edit's broken link with file and line, says the push adds it, until it is fixed", async () => {
    expect(files.brokenLinkCount()).toBe(0)
    fs.writeFileSync(ws.file('faq.md'), '# FAQ\n\nFirst read [the setup](guide/setpu.md).\n')
    await until(() => (files.brokenLinkCount() === 1 ? true : undefined), 'the header count to include the local broken link')
    const links = await files.brokenLinks(ws.gateway, (message) => {
      throw new Error(message)
    })
    expect(links).toEqual([
      expect.objectContaining({ spaceId: ws.seeded.spaceId, source: 'local', path: 'faq.md', file: ws.file('faq.md'), line: 3, target: 'guide/setpu.md', reason: 'no page at guide/setpu.md' }),
    ])

    // The watcher's push of the edit says so in the app's activity, and is sent all the same.
    await until(() => activity.find((m) => m.startsWith('warning: Docs: this push adds 1 broken link (sent all the same): faq.md:3 guide/setpu.md')), 'the push to say it adds a broken link')
    await until(() => activity.find((m) => /^info: Sent 1 local change of Docs to change request #\d+$/.test(m)), 'the push to be sent')

    fs.writeFileSync(ws.file('faq.md'), '# FAQ\n\nFirst read [the setup](guide/install.md).\n')
    await until(() => (files.brokenLinkCount() === 0 ? true : undefined), 'the count to drop once the link is fixed')
    expect(await files.brokenLinks(ws.gateway, () => undefined)).toEqual([])
  })

  it("lists the service's report of the revision just synced: a pass reads none, the report reads it (issue 29)", async () => {
    await until(() => ws.cache.space(ws.seeded.spaceId)?.syncedRevision, 'the first pass')
    expect(await files.brokenLinks(ws.gateway, () => undefined)).toEqual([])
    const faq = ws.cache.remoteTree(ws.seeded.spaceId).pages.find((p) => p.gitPath === 'faq.md')!
    const head = editSpaceDirectly(t.service, ws.seeded.spaceId, [{ operation: 'update_page', page: faq.id, document: { markdown: '# FAQ\n\nSee [the old page](gone-for-good.md).\n' } }])
    await session.requestCycle()
    await until(() => (ws.cache.space(ws.seeded.spaceId)?.syncedRevision === head ? true : undefined), 'the pass over the new revision')
    expect(ws.cache.linkReport(ws.seeded.spaceId)?.revisionId, 'the pass read no report').not.toBe(head)
    const links = await files.brokenLinks(ws.gateway, (message) => {
      throw new Error(message)
    })
    expect(links).toEqual([expect.objectContaining({ spaceId: ws.seeded.spaceId, file: ws.file('faq.md'), line: 3, target: 'gone-for-good.md' })])
    expect(files.brokenLinkCount()).toBe(1)
  })
})

import fs from 'node:fs'
import { afterEach, describe, expect, it } from 'vitest'
import { AppWorkstation } from '../engine/sync-up/support/app-workstation'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { LossyNetwork } from '../engine/sync-up/support/lossy-network'
import { changeRequestMarkdown, INSTALL_PAGE, mergeOnMain, paragraphs } from '../engine/sync-up/support/two-writers'
import { pageIdAt, remoteOf, seedSpace, tempDir } from '../engine/sync-up/support/workspace'

/**
 * Issue 25, item 1, through the app's backend (QuireBackend and its workspace session): the answer of
 * the writer's batch is lost (applied or not), a collaborator edits the same page inside the writer's
 * change request, and the app's next push merges instead of sending the stored batch over their edit.
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

const MINE = 'Paragraph 2 as the writer rewrote it.'
const FIRST = 'Paragraph 7, first edit.'

async function appWithLostBatch(mode: 'before' | 'after') {
  const seeded = await seedSpace(t)
  const spaceId = seeded.spaceId
  const install = await pageIdAt(t.api, spaceId, INSTALL_PAGE)
  await mergeOnMain(t.api, spaceId, [{ operation: 'update_page', page: install, document: { markdown: paragraphs() } }], 'Setup')
  const network = new LossyNetwork()
  dir = tempDir('quire-app-lost-')
  app = await AppWorkstation.open(remoteOf(t), seeded, dir, { fetch: network.fetch, maxAttempts: 1 }, (work) => work())
  await app.pull()
  app.write(INSTALL_PAGE, paragraphs({ 7: FIRST }))
  await app.push()
  const crId = app.outbox.session(spaceId)!.changeRequestId!
  network.next = mode
  const edited = paragraphs({ 2: MINE, 7: FIRST })
  app.write(INSTALL_PAGE, edited)
  await app.push()
  expect(app.outbox.unfinished(spaceId).map((op) => op.state)).toEqual(['sending'])
  return { app, spaceId, install, crId, edited }
}

async function collaborator(spaceId: string, crId: string, page: string, change: (markdown: string) => string) {
  const now = await changeRequestMarkdown(t.api, spaceId, crId, page)
  const written = await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: crId }, body: { changes: [{ operation: 'update_page', page, document: { markdown: change(now) } }] } })
  expect(written.status).toBe(200)
}

describe('a lost answer, then a collaborator inside the change request, through the app backend', () => {
  for (const mode of ['before', 'after'] as const) {
    it(`our batch ${mode === 'after' ? 'applied' : 'not applied'}: both the collaborator's paragraph and the writer's edit are in the change request`, async () => {
      const { app, spaceId, install, crId } = await appWithLostBatch(mode)
      const APPENDED = 'A paragraph a collaborator appended inside the change request.'
      await collaborator(spaceId, crId, install, (markdown) => `${markdown.trimEnd()}\n\n${APPENDED}\n`)
      await app.push()
      expect(app.outbox.unfinished(spaceId)).toEqual([])
      const carried = await changeRequestMarkdown(t.api, spaceId, crId, install)
      expect(carried).toContain(APPENDED)
      expect(carried).toContain(MINE)
      expect(carried).toContain(FIRST)
    })
  }

  it("not applied, the collaborator rewrote the writer's paragraph: theirs stays, the writer's version is in a conflicted copy", async () => {
    const { app, spaceId, install, crId, edited } = await appWithLostBatch('before')
    const THEIRS = 'Paragraph 2 as the collaborator rewrote it.'
    await collaborator(spaceId, crId, install, (markdown) => markdown.replace(/Paragraph 2 [^\n]*/, THEIRS))
    await app.push()
    const carried = await changeRequestMarkdown(t.api, spaceId, crId, install)
    expect(carried).toContain(THEIRS)
    const conflicts = app.outbox.conflicts(spaceId)
    expect(conflicts).toHaveLength(1)
    expect(app.read(conflicts[0].copyPath)).toBe(edited)
  })
})

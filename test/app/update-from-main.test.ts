import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changeRequestMarkdown, INSTALL_PAGE, mainMarkdown, mergeOnMain, paragraphs } from '../engine/sync-up/support/two-writers'
import { pageIdAt, seedSpace, tempDir } from '../engine/sync-up/support/workspace'

/**
 * "Update from main" through the app's backend (issue 25, item 3): the writer's change request and a
 * merged one of someone else's changed the same paragraph. The service refuses to update (it would have
 * to drop one side); the app turns that into the writer's conflict (Compare / Keep mine / Keep theirs:
 * main's version in the file and the change request, theirs in a conflicted copy) and updates; merging
 * then keeps the merged text in main.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = serviceForFile()

const MINE = 'Paragraph 3 as the writer rewrote it.'
const MERGED = 'Paragraph 3 as someone else rewrote it, merged first.'

describe('update from main through the app backend', () => {
  const dir = tempDir('quire-app-update-')
  let backend: QuireBackend

  beforeAll(async () => {
    backend = await QuireBackend.open({ dataDir: path.join(dir, 'data'), autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
    await backend.updateSettings({ workspace: path.join(dir, 'workspace') })
  })

  afterAll(async () => {
    await backend.close()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  it("conflicting with a merged change request: the writer gets a conflicted copy, the update goes through, and the merge keeps main's text", async () => {
    const seeded = await seedSpace(t)
    const spaceId = seeded.spaceId
    const install = await pageIdAt(t.api, spaceId, INSTALL_PAGE)
    await mergeOnMain(t.api, spaceId, [{ operation: 'update_page', page: install, document: { markdown: paragraphs() } }], 'Setup')
    await backend.listSpaces()
    await backend.setSelection({ kind: 'space', id: spaceId, selected: true })
    await backend.requestPass(true)
    await backend.idle()
    const folder = (await backend.getStatus()).spaces.find((s) => s.id === spaceId)!.folder!
    const mine = paragraphs({ 3: MINE })
    fs.writeFileSync(path.join(folder, INSTALL_PAGE), mine)
    await backend.requestPass(true)
    await backend.idle()
    const [cr] = await backend.listChangeRequests({ spaceId, mine: true })
    expect(await changeRequestMarkdown(t.api, spaceId, cr.id, install)).toContain(MINE)

    await mergeOnMain(t.api, spaceId, [{ operation: 'update_page', page: install, document: { markdown: paragraphs({ 3: MERGED }) } }])
    const updated = await backend.updateChangeRequest({ spaceId, changeRequestId: cr.id })
    expect(updated).toMatchObject({ id: cr.id, conflicts: true, outdated: false })
    const conflicts = (await backend.getStatus()).conflicts.filter((c) => c.spaceId === spaceId)
    expect(conflicts).toHaveLength(1)
    expect(await backend.compareConflict({ spaceId, copyPath: conflicts[0].copyPath })).toMatchObject({ mine, theirs: expect.stringContaining(MERGED) })

    await backend.mergeChangeRequest({ spaceId, changeRequestId: cr.id })
    const main = await mainMarkdown(t.api, spaceId, install)
    expect(main).toContain(MERGED)
    expect(main).not.toContain(MINE)
  })
})

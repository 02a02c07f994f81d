import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import { startTestService, type TestService } from '../support/service'

// Tokens go to the file store here, never to the keyring of the machine running the tests.
process.env.QUIRE_TOKEN_STORE = 'file'

/** What sync up could not read reaches the app's activity log, once, and deletes nothing (issue 9, finding 2). */
describe('the app tells the writer about pages held unread', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-app-reports-'))
  const outside = path.join(tmp, 'outside')
  let t: TestService
  let backend: QuireBackend

  beforeAll(async () => {
    t = await startTestService({ demo: true })
    backend = await QuireBackend.open({ dataDir: path.join(tmp, 'data'), autoSync: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
    await backend.updateSettings({ workspace: path.join(tmp, 'workspace') })
  })

  afterAll(async () => {
    await backend.close()
    await t.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  it('a page file replaced by a symlink is reported in the activity log once and no change request deletes it', async () => {
    const orgs = await backend.listSpaces()
    const guide = orgs[0].collections.flatMap((c) => c.spaces).find((s) => s.title === 'User Guide')!
    await backend.setSelection({ kind: 'space', id: guide.id, selected: true })
    await backend.idle()
    const folder = path.join(tmp, 'workspace', 'Quire Demo', 'User Guide')
    const page = (await t.api.call('listPages', { params: { spaceId: guide.id } })).body.pages[1].git.path as string
    fs.mkdirSync(outside)
    fs.copyFileSync(path.join(folder, page), path.join(outside, 'page.md'))
    fs.rmSync(path.join(folder, page))
    fs.symlinkSync(path.join(outside, 'page.md'), path.join(folder, page))

    for (let pass = 0; pass < 2; pass++) {
      await backend.syncNow()
      await backend.idle()
    }
    const held = (await backend.listActivity()).filter((a) => a.message === `User Guide: ${page} is a symbolic link, which Quire does not follow: its page stays as in the space, not deleted`)
    expect(held).toHaveLength(1)
    expect(held[0].level).toBe('warning')
    expect(await backend.listChangeRequests({ mine: true })).toEqual([])
  })
})

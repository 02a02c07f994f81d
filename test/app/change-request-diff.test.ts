import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { PNG, seedSpace, tempDir } from '../engine/sync-up/support/workspace'

/**
 * Issue 27, item 2: what a change request changes, as the app lists it, includes a renamed or moved page
 * (old → new path, even when its text is the same) and the files it adds, not only edited page text.
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const t = restartableServiceForFile()

describe('the change request diff names renames, moves and files', () => {
  const dir = tempDir('quire-app-diff-')
  let backend: QuireBackend
  let spaceId: string

  beforeAll(async () => {
    spaceId = (await seedSpace(t)).spaceId
    backend = await QuireBackend.open({ dataDir: path.join(dir, 'app'), autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
    await backend.updateSettings({ workspace: path.join(dir, 'workspace') })
    await backend.listSpaces()
    await backend.setSelection({ kind: 'space', id: spaceId, selected: true })
  }, 60_000)

  afterAll(() => backend?.close())

  it('a renamed page (same text) and a moved, edited page show old → new; an uploaded image is listed', async () => {
    const pages = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body.pages as Array<{ id: string; slug: string; pages?: Array<{ id: string; slug: string }> }>
    const faq = pages.find((p) => p.slug === 'faq')!
    const install = pages.find((p) => p.slug === 'guide')!.pages!.find((p) => p.slug === 'install')!
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Reorganize' } })).body as { id: string }
    const changed = await t.api.call('updateChangeRequestContent', {
      params: { spaceId, changeRequestId: cr.id },
      body: {
        changes: [
          { operation: 'update_page', page: faq.id, slug: 'questions' },
          { operation: 'update_page', page: install.id, into: null, document: { markdown: '# Install\n\nRun the installer from the top.\n' } },
          { operation: 'insert_files', files: [{ ref: 'diagram', name: 'diagram.png', base64: PNG.toString('base64') }] },
        ],
      },
    })
    expect(changed.status).toBeLessThan(300)

    const diff = await backend.changeRequestChanges({ spaceId, changeRequestId: cr.id })
    expect(diff.pages.find((p) => p.pageId === faq.id)).toMatchObject({ change: 'moved', fromPath: 'faq.md', path: 'questions.md' })
    expect(diff.pages.find((p) => p.pageId === install.id)).toMatchObject({ change: 'edited', fromPath: 'guide/install.md', path: 'install.md' })
    expect(diff.files).toMatchObject([{ name: 'diagram.png', change: 'added', contentType: 'image/png' }])
  }, 60_000)
})

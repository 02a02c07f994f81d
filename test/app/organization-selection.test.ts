import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { CollectionNode, SpaceNode } from '../../src/shared/contract'
import { overallWords, spaceWords } from '../../src/shared/status-words'
import { startTestService, type TestService } from '../support/service'

/**
 * A whole organization chosen (not its spaces one by one): its spaces are synced, and the header, each
 * space and the tree say so. Before, the header said "No spaces chosen to sync" and each space "Not
 * synced" while they were synced and listed: the words counted only spaces chosen by themselves.
 */
process.env.QUIRE_TOKEN_STORE = 'file'

describe('an organization chosen as a whole', () => {
  const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-app-org-'))
  let t: TestService
  let backend: QuireBackend

  beforeAll(async () => {
    t = await startTestService({ demo: true })
    backend = await QuireBackend.open({ dataDir: path.join(tmp, 'data'), desktop: { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }, autoSync: false, gateway: { maxAttempts: 1, timeoutMs: 5000 } })
    await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
    await backend.updateSettings({ workspace: path.join(tmp, 'workspace') })
  })

  afterAll(async () => {
    await backend.close()
    await t.close()
    fs.rmSync(tmp, { recursive: true, force: true })
  })

  it('its spaces are synced: the header says In sync, each space its state, the tree the same; their own checkboxes stay unticked', async () => {
    const [org] = await backend.listSpaces()
    await backend.setSelection({ kind: 'organization', id: org.id, selected: true })
    await backend.idle()
    const status = await backend.getStatus()
    expect(status.spaces.length).toBeGreaterThan(1)
    for (const space of status.spaces) expect(space).toMatchObject({ selected: false, synced: true, state: 'synced' })
    expect(overallWords(status, new Date())).toMatchObject({ kind: 'synced' })
    for (const space of status.spaces) expect(spaceWords(space, new Date()).kind).toBe('synced')

    const walk = (c: CollectionNode): SpaceNode[] => [...c.spaces, ...c.collections.flatMap(walk)]
    const listed = (await backend.listSpaces()).flatMap((o) => [...o.spaces, ...o.collections.flatMap(walk)])
    for (const space of listed) expect(space, space.title).toMatchObject({ synced: true, state: 'synced' })
  })
})

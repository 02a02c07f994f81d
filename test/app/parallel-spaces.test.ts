import fs from 'node:fs'
import path from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { tempDir } from '../engine/sync-up/support/workspace'
import { startTestService, type TestService } from '../support/service'
import { until } from '../support/until'

/**
 * Issue 31 through the app's backend: a pass syncs spaces a few at a time, and the status the app
 * shows is each space's own. One space's first request is held; the others come to synced while it
 * still shows syncing (one space after another, they would wait behind it and the test would give up).
 */

process.env.QUIRE_TOKEN_STORE = 'file'
const noDesktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

let t: TestService | undefined
let backend: QuireBackend | undefined
const dir = tempDir('quire-app-parallel-')

afterAll(async () => {
  await backend?.close()
  await t?.close()
  fs.rmSync(dir, { recursive: true, force: true })
})

describe('the app syncs spaces in parallel', () => {
  it('while one space waits on the service, the others are synced and the status says so, space by space', async () => {
    t = await startTestService({ demo: true })
    const orgs = (await t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
    const orgId = orgs.items[0].id
    const spaces = ((await t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId } })).body as { items: Array<{ id: string }> }).items
    expect(spaces.length).toBeGreaterThanOrEqual(3)
    // The space the pass asks about first is held: the one a pass one space at a time would wait on.
    let slow: string | undefined
    let armed = false
    let release!: () => void
    const released = new Promise<void>((resolve) => (release = resolve))
    const holding: typeof fetch = async (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      const spaceId = /^\/v1\/spaces\/([^/]+)\//.exec(url.pathname)?.[1]
      if (armed && slow === undefined && spaceId !== undefined) slow = spaceId
      if (spaceId !== undefined && spaceId === slow) await released
      return fetch(input, init)
    }
    backend = await QuireBackend.open({ dataDir: path.join(dir, 'app'), desktop: noDesktop, autoSync: false, watch: false, gateway: { maxAttempts: 1, timeoutMs: 5000, fetch: holding } })
    await backend.updateSettings({ workspace: path.join(dir, 'docs') })
    await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
    await backend.listSpaces()
    await backend.setSelection({ kind: 'organization', id: orgId, selected: true })

    armed = true
    const cycle = backend.requestPass(true)
    const stateOf = async () => new Map((await backend!.getStatus()).spaces.map((s) => [s.id, s.state]))
    try {
      const states = await until(
        async () => {
          const now = await stateOf()
          return slow !== undefined && spaces.every((s) => s.id === slow || now.get(s.id) === 'synced') ? now : undefined
        },
        'the other spaces to be synced while the first one waits',
        15_000,
      )
      expect(states.get(slow!)).toBe('syncing')
    } finally {
      release()
      await cycle
    }
    await backend.idle()
    const after = await stateOf()
    for (const space of spaces) expect(after.get(space.id)).toBe('synced')
  }, 60_000)
})

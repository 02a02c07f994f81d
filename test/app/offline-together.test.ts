import fs from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../src/main/app/backend'
import type { DesktopActions } from '../../src/main/app/desktop-actions'
import { main } from '../../src/main/cli/main'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import { openChangeRequestMarkdown, pageIdAt, seedSpace, tempDir, type SeededSpace } from '../engine/sync-up/support/workspace'
import { until } from '../support/until'

/**
 * Issue 27, item 4: when the service goes away, every space says Offline together. A push that waits
 * out its retries used to say "Syncing" for as long as the retries lasted (minutes with the default
 * backoff) while the other spaces said Offline or In sync; the session's one fact "the service cannot be
 * reached" outranks the running push, and the next answer gives each space its own state back.
 */

process.env.QUIRE_TOKEN_STORE = 'file'

const t = restartableServiceForFile()
const noDesktop: DesktopActions = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }

let dataDir: string
let backend: QuireBackend
let docs: SeededSpace
let guide: SeededSpace

beforeAll(async () => {
  docs = await seedSpace(t, 'Docs')
  guide = await seedSpace(t, 'Guide')
  dataDir = tempDir('quire-app-offline-')
  // Retries as the app makes them (five attempts), with waits long enough that a push outlasts the test's looks.
  backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, debounceMs: 100, gateway: { maxAttempts: 5, timeoutMs: 5000, backoff: { baseMs: 4000, capMs: 4000 } } })
  await backend.updateSettings({ workspace: path.join(dataDir, 'docs') })
  await backend.signIn({ endpoint: t.service.origin, token: t.service.token })
  await backend.listSpaces()
  await backend.setSelection({ kind: 'space', id: docs.spaceId, selected: true })
  await backend.setSelection({ kind: 'space', id: guide.spaceId, selected: true })
  await backend.syncNow()
  await backend.idle()
})

afterAll(async () => {
  // A failed look leaves the service stopped: started again, the retries end at once and the backend closes.
  if (!t.running) await t.start()
  await backend?.close()
  fs.rmSync(dataDir, { recursive: true, force: true })
})

const states = async () => Object.fromEntries((await backend.getStatus()).spaces.filter((s) => s.selected).map((s) => [s.id, s.state]))

describe('the service goes away while a push is in flight', () => {
  it('every space says Offline at once, the retrying push too; once the service answers, both are in sync again', async () => {
    expect(await states()).toEqual({ [docs.spaceId]: 'synced', [guide.spaceId]: 'synced' })
    const folder = (await backend.getStatus()).spaces.find((s) => s.id === docs.spaceId)!.folder!
    const install = await pageIdAt(t.api, docs.spaceId, 'guide/install.md')

    await t.stop()
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nWritten while the service was away.\n')
    await backend.syncNow()
    // The cycle (its push first) runs on the session's queue: idle once the push gave up or got through.
    let pushEnded = false
    void backend.idle().then(() => (pushEnded = true))

    // The first refused request makes both spaces offline; the push is still waiting out its retries.
    // Offline follows the first refused request within moments; 20 s is generous on a loaded machine and
    // well inside the push's retries (before the change, the pushing space said "syncing" all along).
    let seen = {}
    const offline = await until(
      async () => {
        const now = (seen = await states())
        return now[docs.spaceId] === 'offline' && now[guide.spaceId] === 'offline' ? now : undefined
      },
      () => `both spaces to say offline (last seen ${JSON.stringify(seen)})`,
      20_000,
    )
    expect(offline).toBeDefined()
    expect(pushEnded).toBe(false)
    const docsNode = (await backend.getStatus()).spaces.find((s) => s.id === docs.spaceId)!
    expect(docsNode.reason).toMatch(/cannot be reached/)
    // quire status, another process in life, reads the same fact from the cache.
    const statusLines = await quireStatus()
    expect(statusLines).toMatch(/Docs: offline: .*cannot be reached/)
    expect(statusLines).toMatch(/Guide: offline: .*cannot be reached/)
    expect(pushEnded).toBe(false)

    // The service answers again: the retry gets through and the states follow, no space left offline.
    await t.start()
    await until(async () => ((await crMarkdown(install))?.includes('Written while the service was away.') ? true : undefined), 'the edit to reach the change request')
    await backend.idle()
    await until(async () => {
      const now = await states()
      return now[docs.spaceId] === 'synced' && now[guide.spaceId] === 'synced' ? true : undefined
    }, 'both spaces to be in sync again')
    expect(await quireStatus()).toMatch(/Docs: in sync[^]*Guide: in sync/)
  })
})

const crMarkdown = (pageId: string) => openChangeRequestMarkdown(t.api, docs.spaceId, pageId)

async function quireStatus(): Promise<string> {
  const out: string[] = []
  process.env.QUIRE_HOME = dataDir
  try {
    await main(['status'], { out: (l) => out.push(l), err: (l) => out.push(l), isTTY: false })
  } finally {
    delete process.env.QUIRE_HOME
  }
  return out.join('\n')
}

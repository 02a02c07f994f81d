/**
 * A writer's Quire as the APP runs it, for crash tests: the app's backend (QuireBackend, the class the
 * Electron main process and `quire serve` run) over a data folder, cycling its workspace session until
 * the outbox is empty and the space is in sync. Every HTTP answer is announced on stdout before the engine
 * sees it (announcingFetch, through the gateway's fetch option), so the parent can SIGKILL it between "the
 * service did it" and "Quire wrote down that it did".
 *
 * argv: JSON {remote, seeded, dataDir}
 */
import { QuireBackend } from '../../../../src/main/app/backend'
import { openCacheDatabase } from '../../../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../../../src/main/engine/outbox/outbox-repository'
import { announcingFetch } from './announcing-fetch'
import type { Remote, SeededSpace } from './workspace'

const { remote, seeded, dataDir } = JSON.parse(process.argv[2]) as { remote: Remote; seeded: SeededSpace; dataDir: string }
process.env.QUIRE_TOKEN_STORE = 'file'

const noDesktop = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }
// Crash safety is tested here, not the quiet interval of a removal: a deletion goes at once (deletionQuietMs 0).
const backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, watch: false, deletionQuietMs: 0, gateway: { maxAttempts: 2, timeoutMs: 10_000, fetch: announcingFetch() } })
const db = openCacheDatabase(`${dataDir}/cache.db`)
const outbox = new OutboxRepository(db)
try {
  // The first run signs in and chooses the space; later runs resume the stored session, as the app does.
  if (!(await backend.getSession()).signedIn) await backend.signIn({ endpoint: remote.origin, token: remote.token })
  await backend.listSpaces()
  if (!(await backend.getStatus()).spaces.some((s) => s.id === seeded.spaceId)) await backend.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
  let state = ''
  for (let round = 0; round < 10; round++) {
    await backend.requestPass(true)
    await backend.idle()
    state = (await backend.getStatus()).spaces.find((s) => s.id === seeded.spaceId)?.state ?? 'unknown'
    if (state === 'synced' && outbox.unfinished(seeded.spaceId).length === 0) break
  }
  process.stdout.write(`done ${JSON.stringify({ unfinished: outbox.unfinished(seeded.spaceId).length, state })}\n`)
} finally {
  db.close()
  await backend.close()
}

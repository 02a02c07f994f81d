/**
 * A writer's Quire as the APP runs it, for crash tests: the app's backend (QuireBackend, the class the
 * Electron main process and `quire serve` run) over a data folder, cycling its workspace session until
 * the outbox is empty and the space is in sync. Every HTTP answer is announced on stdout (`answer <n>`)
 * BEFORE the engine sees it, so the parent can SIGKILL it between "the service did it" and "Quire wrote
 * down that it did".
 *
 * argv: JSON {remote, seeded, dataDir}
 */
import { QuireBackend } from '../../../../src/main/app/backend'
import { openCacheDatabase } from '../../../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../../../src/main/engine/outbox/outbox-repository'
import type { Remote, SeededSpace } from './workspace'

const { remote, seeded, dataDir } = JSON.parse(process.argv[2]) as { remote: Remote; seeded: SeededSpace; dataDir: string }
process.env.QUIRE_TOKEN_STORE = 'file'

// The only seam: the global fetch the gateway picks up, wrapped to announce each answer first.
const realFetch = globalThis.fetch
let answers = 0
globalThis.fetch = async (input, init) => {
  const response = await realFetch(input, init)
  answers++
  process.stdout.write(`answer ${answers} ${init?.method ?? 'GET'} ${String(input instanceof Request ? input.url : input).replace(/^https?:\/\/[^/]+/, '')}\n`)
  return response
}

const noDesktop = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }
const backend = await QuireBackend.open({ dataDir, desktop: noDesktop, autoSync: false, watch: false, gateway: { maxAttempts: 2, timeoutMs: 10_000 } })
const db = openCacheDatabase(`${dataDir}/cache.db`)
const outbox = new OutboxRepository(db)
try {
  // The first run signs in and chooses the space; later runs resume the stored session, as the app does.
  if (!(await backend.getSession()).signedIn) await backend.signIn({ endpoint: remote.origin, token: remote.token })
  const tree = await backend.listSpaces()
  const known = tree.flatMap((org) => [...org.spaces, ...org.collections.flatMap(function all(c): typeof org.spaces { return [...c.spaces, ...c.collections.flatMap(all)] })])
  if (!known.find((s) => s.id === seeded.spaceId)?.selected) await backend.setSelection({ kind: 'space', id: seeded.spaceId, selected: true })
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

/**
 * Sync up latency and the watcher's idle cost.
 *
 * 1. Save-to-service latency: `quire watch`'s engine (WatchLoop, default debounce) runs over the demo
 *    "User Guide" space of a real `quire service` in its own process. Each round appends a line to a page
 *    file and polls the change request's copy of that page (GET .../content/page/{id}?format=markdown)
 *    until it holds the line. Prints p50 and p95 (target: p50 at most 1 s).
 * 2. Idle cost: chokidar over a folder of 20,000 files, once ready: CPU used over an idle window and RSS.
 *
 * BENCH_ROUNDS (default 25), BENCH_IDLE_SECONDS (default 10), BENCH_FILES (default 20000).
 * Run as `node --expose-gc --import tsx bench/edit.ts` (what `npm run bench:edit` should run).
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import type { ChangeRequest } from '@gitbook/api'
import { CacheRepository } from '../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../src/main/engine/cache/open-cache'
import { CommentsRepository } from '../src/main/engine/comments/comments-repository'
import { ApiGateway } from '../src/main/engine/gateway/api-gateway'
import { OutboxRepository } from '../src/main/engine/outbox/outbox-repository'
import { QuireBackend } from '../src/main/app/backend'
import { WorkspaceSession } from '../src/main/engine/session/workspace-session'
import { WorkspaceWatcher } from '../src/main/engine/watch/watcher'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 25)
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 10)
const FILES = Number(process.env.BENCH_FILES ?? 20_000)

async function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-edit-svc-'))
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--demo'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const first = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  const [baseUrl, token] = first.split(' token=')
  return {
    origin: baseUrl.replace(/\/v1$/, ''),
    token,
    stop: () => {
      child.kill('SIGTERM')
      fs.rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]

async function latency() {
  const service = await startService()
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-edit-'))
  const db = openCacheDatabase(path.join(dir, 'cache.db'))
  try {
    const cache = new CacheRepository(db)
    const outbox = new OutboxRepository(db)
    const comments = new CommentsRepository(db)
    const gateway = new ApiGateway({ endpoint: service.origin, token: service.token })
    const user = (await gateway.client.user.getAuthenticatedUser()).data
    const org = (await gateway.client.orgs.listOrganizationsForAuthenticatedUser()).data.items[0]
    const spaces = (await gateway.client.orgs.listSpacesInOrganizationById(org.id)).data.items
    const space = spaces.find((s) => s.title === 'User Guide') ?? spaces[0]
    const account = cache.saveAccount({ id: 'bench', endpoint: service.origin, userId: user.id, displayName: user.displayName, tokenStore: 'file' })
    cache.upsertOrganization({ id: org.id, accountId: account.id, title: org.title })
    cache.upsertSpace({ id: space.id, orgId: org.id, title: space.title })
    cache.setSelection({ spaces: [space.id] })
    cache.setOrganizationFolder(org.id, 'org')
    cache.setSpaceFolder(space.id, 'space')
    const workspace = path.join(dir, 'workspace')
    const folder = path.join(workspace, 'org', 'space')
    const loop = new WorkspaceSession({ cache, outbox, comments, account, gateway, workspace: () => workspace, intervalMs: () => 3_600_000 })
    await loop.start()
    const pages = cache.journal(space.id).filter((j) => j.kind === 'page').map((j) => ({ id: j.id, path: j.path }))
    console.log(`space "${space.title}": ${pages.length} pages mirrored; ${ROUNDS} saves, default debounce`)
    await measure('quire watch (WorkspaceSession)', gateway, space.id, user.id, pages, folder)
    await loop.stop()
    await appLatency(service, space.id)
  } finally {
    db.close()
    service.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

/** Saves one page per round and polls the change request's copy of it until the line is there. */
async function measure(label: string, gateway: ApiGateway, spaceId: string, userId: string, pages: Array<{ id: string; path: string }>, folder: string) {
  const samples: number[] = []
  let changeRequestId: string | undefined
  // Change requests of earlier measurements (another workspace of the same writer) are not this one's.
  const earlier = new Set((await gateway.client.spaces.listChangeRequestsForSpace(spaceId, { creator: userId, status: 'draft' as ChangeRequest['status'] } as never)).data.items.map((cr) => cr.id))
  for (let round = 0; round < ROUNDS; round++) {
    const page = pages[round % pages.length]
    const file = path.join(folder, ...page.path.split('/'))
    const marker = `Bench line ${label.length} ${round} ${Date.now()}.`
    const started = performance.now()
    fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8').trimEnd()}\n\n${marker}\n`)
    for (;;) {
      if (!changeRequestId) {
        const open = (await gateway.client.spaces.listChangeRequestsForSpace(spaceId, { creator: userId, status: 'draft' as ChangeRequest['status'] } as never)).data.items
        changeRequestId = open.find((cr) => !earlier.has(cr.id))?.id
      }
      if (changeRequestId) {
        const res = await gateway.client.spaces.getPageInChangeRequestById(spaceId, changeRequestId, page.id, { format: 'markdown' }).catch(() => undefined)
        const markdown = res && 'markdown' in res.data ? String(res.data.markdown) : ''
        if (markdown.includes(marker)) break
      }
      if (performance.now() - started > 30_000) throw new Error(`${label}, round ${round}: the edit never reached the change request`)
      await sleep(10)
    }
    samples.push(performance.now() - started)
    await sleep(100)
  }
  samples.sort((x, y) => x - y)
  console.log(`${label}: save -> change request content: p50 ${percentile(samples, 50).toFixed(0)} ms, p95 ${percentile(samples, 95).toFixed(0)} ms, min ${samples[0].toFixed(0)} ms, max ${samples[samples.length - 1].toFixed(0)} ms`)
}

/** The same saves through the app's backend (what the desktop window and `quire serve` run), on its own cache and workspace. */
async function appLatency(service: { origin: string; token: string }, spaceId: string) {
  process.env.QUIRE_TOKEN_STORE = 'file'
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-app-'))
  const noDesktop = { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }
  const backend = await QuireBackend.open({ dataDir, desktop: noDesktop })
  try {
    await backend.updateSettings({ workspace: path.join(dataDir, 'workspace') })
    await backend.signIn({ endpoint: service.origin, token: service.token })
    await backend.listSpaces()
    await backend.setSelection({ kind: 'space', id: spaceId, selected: true })
    let folder: string | undefined
    for (let i = 0; i < 600 && !folder; i++) {
      await backend.idle()
      const node = (await backend.getStatus()).spaces.find((s) => s.id === spaceId)
      folder = node?.state === 'synced' ? node.folder : undefined
      if (!folder) await sleep(50)
    }
    if (!folder) throw new Error('the app backend never synced the space')
    const pages = (await backend.listPages({ spaceId })).filter((p): p is { id: string; title: string; path: string } => p.path !== undefined)
    const gateway = new ApiGateway({ endpoint: service.origin, token: service.token })
    const user = (await gateway.client.user.getAuthenticatedUser()).data
    await measure('app backend (QuireBackend)', gateway, spaceId, user.id, pages, folder)
  } finally {
    await backend.close()
    fs.rmSync(dataDir, { recursive: true, force: true })
  }
}

async function idle() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-watch-'))
  try {
    const perFolder = 100
    for (let i = 0; i < FILES; i++) {
      const dir = path.join(root, `section-${Math.floor(i / perFolder)}`)
      if (i % perFolder === 0) fs.mkdirSync(dir, { recursive: true })
      fs.writeFileSync(path.join(dir, `page-${i}.md`), `# Page ${i}\n\nText.\n`)
    }
    // With --expose-gc the figures leave out garbage of the setup.
    const gc = (globalThis as { gc?: () => void }).gc
    gc?.()
    const before = process.memoryUsage().rss
    const started = performance.now()
    let events = 0
    const watcher = new WorkspaceWatcher({ spaces: [{ spaceId: 'bench', folder: root }], onChange: () => events++ })
    await watcher.start()
    const ready = performance.now() - started
    await sleep(1000)
    gc?.()
    const cpu = process.cpuUsage()
    const t0 = performance.now()
    await sleep(IDLE_SECONDS * 1000)
    const used = process.cpuUsage(cpu)
    const wall = performance.now() - t0
    const rss = process.memoryUsage().rss
    await watcher.close()
    console.log(`watcher over ${FILES} files: ready in ${ready.toFixed(0)} ms; idle ${IDLE_SECONDS} s: CPU ${(((used.user + used.system) / 1000 / wall) * 100).toFixed(2)}%, RSS ${(rss / 1048576).toFixed(0)} MB (${((rss - before) / 1048576).toFixed(0)} MB for the watcher); ${events} spurious events`)
  } finally {
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await latency()
await idle()

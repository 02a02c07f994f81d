/**
 * bench:network-save (issue 29): save -> change request through a shaped network (80 ms round trip,
 * 50 Mbit/s, one extra round trip a new connection) against `quire service --hosted`, on a generated
 * 800-page space. The engine is `quire watch`'s (WorkspaceSession: the watcher, its 300 ms debounce, the
 * push) in this process, its gateway through the proxy.
 *
 * 1. Saves when nobody else wrote: each round appends a line to a page file (three pages in turn, so the
 *    change request's subject changes in the first rounds only) and polls the change request's copy of
 *    the page on the service directly (loopback, outside the shaped network) until it holds the line.
 *    Floor: the debounce plus one round trip. Target: p50 within 1.5x the floor, at most 2 requests a save.
 * 2. Saves after a teammate's merge: each round a teammate's change request editing another page is
 *    merged (directly on the service), then the writer saves. Target: p50 within 1 s, 100 KB down a save.
 *
 * Requests are counted at the gateway's fetch, bytes down at the proxy, from the save until the session
 * is idle again. BENCH_SAVE_PAGES, BENCH_SAVE_FILES, BENCH_SAVE_ROUNDS, BENCH_NETWORK_RTT_MS and
 * BENCH_NETWORK_MBIT change the shape.
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CacheRepository } from '../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../src/main/engine/cache/open-cache'
import { CommentsRepository } from '../src/main/engine/comments/comments-repository'
import { ApiGateway } from '../src/main/engine/gateway/api-gateway'
import { OutboxRepository } from '../src/main/engine/outbox/outbox-repository'
import { scanCounts } from '../src/main/engine/push/local-scan'
import { WorkspaceSession } from '../src/main/engine/session/workspace-session'
import { DEFAULT_DEBOUNCE_MS } from '../src/main/engine/watch/watcher'
import { screenshotSizes, seedSpace } from './support/generated-space'
import { load, median, verdict } from './support/run'
import { Network, type NetworkShape } from './support/shaped-proxy'
import { shapedHostedService } from './support/shaped-hosted'

const PAGES = Number(process.env.BENCH_SAVE_PAGES ?? 800)
const FILES = Number(process.env.BENCH_SAVE_FILES ?? 30)
const ROUNDS = Number(process.env.BENCH_SAVE_ROUNDS ?? 15)
const SHAPE: NetworkShape = { rttMs: Number(process.env.BENCH_NETWORK_RTT_MS ?? 80), bitsPerSecond: Number(process.env.BENCH_NETWORK_MBIT ?? 50) * 1e6, extraConnectRtts: 1 }
const TOKEN = 'qs_bench-network-save-token-0123456789'

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const kb = (bytes: number) => `${(bytes / 1000).toFixed(1)} KB`

interface Round {
  ms: number
  requests: string[]
  down: number
  /** From the save to the push's first request (the debounce), and to its batch leaving (then the scan, the plan). */
  firstRequestMs: number
  contentSentMs: number
  /** Scans of the folder the save caused, and those limited to the watcher's paths (no walk). */
  scans: number
  limited: number
}

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-network-save-'))
  const dataDir = path.join(root, 'service')
  fs.mkdirSync(dataDir)
  const network = new Network(SHAPE)
  const stops: Array<() => unknown> = []
  try {
    const seeded = await seedSpace(dataDir, TOKEN, { pages: PAGES, files: FILES, fileSize: screenshotSizes, title: 'Large Manual' })
    const { service, apiProxy } = await shapedHostedService(network, dataDir, TOKEN, stops)
    const direct = `http://127.0.0.1:${service.port}/v1`
    const call = async (method: string, route: string, body?: unknown) => {
      const res = await fetch(`${direct}${route}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
      if (!res.ok) throw new Error(`${method} ${route}: ${res.status} ${await res.text()}`)
      return res.json() as Promise<any>
    }

    // The writer's engine through the shaped network, its requests counted.
    const requests: string[] = []
    /** When each request left (ms, performance.now()). */
    const sentAt: number[] = []
    const counted: typeof fetch = (input, init) => {
      sentAt.push(performance.now())
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      requests.push(`${(init?.method ?? 'GET').toUpperCase()} ${url.pathname.replace(/^\/v1/, '').replace(/\/[A-Za-z0-9]{16,}/g, '/ID')}`)
      return fetch(input, init)
    }
    const db = openCacheDatabase(path.join(root, 'cache.db'))
    stops.push(() => db.close())
    const cache = new CacheRepository(db)
    const outbox = new OutboxRepository(db)
    const comments = new CommentsRepository(db)
    const gateway = new ApiGateway({ endpoint: apiProxy.origin, token: TOKEN, fetch: counted })
    const user = (await gateway.client.user.getAuthenticatedUser()).data
    const account = cache.saveAccount({ id: 'bench', endpoint: apiProxy.origin, userId: user.id, displayName: user.displayName, tokenStore: 'file' })
    cache.upsertOrganization({ id: seeded.orgId, accountId: account.id, title: 'Bench' })
    cache.upsertSpace({ id: seeded.spaceId, orgId: seeded.orgId, title: 'Large Manual' })
    cache.setSelection({ spaces: [seeded.spaceId] })
    cache.setOrganizationFolder(seeded.orgId, 'org')
    cache.setSpaceFolder(seeded.spaceId, 'space')
    const workspace = path.join(root, 'workspace')
    const folder = path.join(workspace, 'org', 'space')
    const session = new WorkspaceSession({ cache, outbox, comments, account, gateway, workspace: () => workspace, intervalMs: () => 3_600_000, refreshLinks: false })
    await session.start()
    stops.push(() => session.stop())
    const pages = cache.journal(seeded.spaceId).filter((j) => j.kind === 'page').map((j) => ({ id: j.id, path: j.path }))
    const writerPages = pages.slice(1, 4)
    const teammatePages = pages.slice(10)

    const sentAtOf = (from: number, shape: string) => {
      const index = requests.findIndex((r, i) => i >= from && r === shape)
      return index === -1 ? Number.NaN : sentAt[index]
    }
    /** One save: a line appended to `page`, until the change request's copy holds it; then until the session is idle. */
    const save = async (page: { id: string; path: string }, label: string): Promise<Round> => {
      const file = path.join(folder, ...page.path.split('/'))
      const marker = `Bench ${label} ${Date.now()}.`
      const from = requests.length
      const down = network.down.bytes
      const scansBefore = { ...scanCounts }
      const started = performance.now()
      fs.writeFileSync(file, `${fs.readFileSync(file, 'utf8').trimEnd()}\n\n${marker}\n`)
      let ms = 0
      for (;;) {
        const crId = outbox.session(seeded.spaceId)?.changeRequestId
        if (crId) {
          const got = await fetch(`${direct}/spaces/${seeded.spaceId}/change-requests/${crId}/content/page/${page.id}?format=markdown`, { headers: { Authorization: `Bearer ${TOKEN}` } })
          if (got.ok && String(((await got.json()) as { markdown?: string }).markdown).includes(marker)) {
            ms = performance.now() - started
            break
          }
        }
        if (performance.now() - started > 60_000) throw new Error(`${label}: the edit never reached the change request`)
        await sleep(5)
      }
      // The save's own requests end with the push (a subject sent after the content, say).
      await sleep(50)
      await session.idle()
      return { ms, requests: requests.slice(from), down: network.down.bytes - down, firstRequestMs: (sentAt[from] ?? started) - started, contentSentMs: sentAtOf(from, 'POST /spaces/ID/change-requests/ID/content') - started, scans: scanCounts.scans - scansBefore.scans, limited: scanCounts.limited - scansBefore.limited }
    }

    // Warm-up (not measured): the first save opens the change request.
    await save(writerPages[0], 'warm-up')

    const quiet: Round[] = []
    for (let round = 0; round < ROUNDS; round++) {
      quiet.push(await save(writerPages[round % writerPages.length], `quiet ${round}`))
      await sleep(150)
    }

    const merged: Round[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const target = teammatePages[round % teammatePages.length]
      const cr = await call('POST', `/spaces/${seeded.spaceId}/change-requests`, { subject: `Teammate ${round}` })
      const current = await call('GET', `/spaces/${seeded.spaceId}/content/page/${target.id}?format=markdown`)
      await call('POST', `/spaces/${seeded.spaceId}/change-requests/${cr.id}/content`, {
        changes: [{ operation: 'update_page', page: target.id, document: { markdown: `${String(current.markdown).trimEnd()}\n\nA teammate's line ${round}.\n` } }],
      })
      const answer = await call('POST', `/spaces/${seeded.spaceId}/change-requests/${cr.id}/merge`)
      if (answer.result !== 'merge') throw new Error(`the teammate's merge: ${JSON.stringify(answer)}`)
      merged.push(await save(writerPages[0], `after merge ${round}`))
      await sleep(150)
    }

    const floorMs = DEFAULT_DEBOUNCE_MS + SHAPE.rttMs
    const report = (label: string, rounds: Round[]) => {
      const p50 = median(rounds.map((r) => r.ms))
      const counts = rounds.map((r) => r.requests.length)
      const downs = rounds.map((r) => r.down)
      console.log(`${label}: p50 ${p50.toFixed(0)} ms (min ${Math.min(...rounds.map((r) => r.ms)).toFixed(0)}, max ${Math.max(...rounds.map((r) => r.ms)).toFixed(0)}); requests a save: median ${median(counts)}, max ${Math.max(...counts)}; down a save: median ${kb(median(downs))}, max ${kb(Math.max(...downs))}`)
      console.log(`  from the save: first request leaves at p50 ${median(rounds.map((r) => r.firstRequestMs)).toFixed(0)} ms (the debounce), the batch at ${median(rounds.map((r) => r.contentSentMs)).toFixed(0)} ms (reads, scan, plan)`)
      const scans = rounds.reduce((n, r) => n + r.scans, 0)
      console.log(`  scans of the folder: ${scans}, of them limited to the watcher's paths (no walk): ${rounds.reduce((n, r) => n + r.limited, 0)}`)
      const typical = rounds.find((r) => r.requests.length === median(counts))
      if (typical) console.log(`  a typical save's requests: ${typical.requests.join(', ')}`)
      return { p50, requests: Math.max(...counts), medianRequests: median(counts), down: Math.max(...downs) }
    }
    console.log(`bench:network-save: ${PAGES} pages, ${FILES} files; ${SHAPE.rttMs} ms round trip, ${SHAPE.bitsPerSecond / 1e6} Mbit/s; ${ROUNDS} rounds each; load ${load()}`)
    const q = report('save -> change request, nobody else wrote', quiet)
    console.log(`  floor: ${floorMs} ms (${DEFAULT_DEBOUNCE_MS} ms debounce + 1 round trip), ratio ${(q.p50 / floorMs).toFixed(2)}`)
    const m = report("save -> change request after a teammate's merge", merged)
    console.log(`  floor: ${floorMs} ms, ratio ${(m.p50 / floorMs).toFixed(2)}`)
    console.log(`${verdict(q.p50 <= 1.5 * floorMs)} p50 within 1.5x the floor (${(1.5 * floorMs).toFixed(0)} ms)`)
    console.log(`${verdict(q.medianRequests <= 2)} at most 2 requests a save (median; max ${q.requests}, with the subject when a new page joins the change request)`)
    console.log(`${verdict(m.p50 <= 1000)} after a teammate's merge: p50 within 1 s`)
    console.log(`${verdict(m.down <= 100_000)} after a teammate's merge: at most 100 KB down a save (max ${kb(m.down)})`)
  } finally {
    for (const stop of stops.reverse()) await stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

await main()

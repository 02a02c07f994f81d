/**
 * Initial mirror of the demo "User Guide" space (47 pages, 5 files) by the sync engine, against the real
 * `quire service` in its own process, versus a floor measured in the same run: a script that makes the
 * same GETs (space, tree, every page of the revision as markdown, every file) at the same concurrency and
 * writes the same bytes with plain writeFile, and nothing else (no journal, no atomic writes, no
 * planning). Rounds alternate between the two; medians are printed.
 *
 *   npm run bench:sync            BENCH_ROUNDS=7 npm run bench:sync
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { CacheRepository } from '../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../src/main/engine/cache/open-cache'
import { ApiGateway } from '../src/main/engine/gateway/api-gateway'
import { SyncEngine } from '../src/main/engine/sync/sync-engine'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const CONCURRENCY = 4

async function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-sync-'))
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--demo'], { stdio: ['ignore', 'pipe', 'inherit'] })
  const first = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  const [baseUrl, token] = first.split(' token=')
  return { baseUrl, origin: baseUrl.replace(/\/v1$/, ''), token, dataDir, stop: () => (child.kill('SIGTERM'), fs.rmSync(dataDir, { recursive: true, force: true })) }
}

type Service = Awaited<ReturnType<typeof startService>>

interface Page {
  id: string
  git?: { path: string }
  pages?: Page[]
}

async function getJson<T>(url: string, token: string): Promise<T> {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
  if (!res.ok) throw new Error(`${url} answered ${res.status}`)
  return (await res.json()) as T
}

async function pool<T>(items: T[], worker: (item: T) => Promise<void>) {
  let next = 0
  await Promise.all(Array.from({ length: CONCURRENCY }, async () => {
    while (next < items.length) await worker(items[next++])
  }))
}

/** The same GETs as the engine's initial pass, the same bytes written, nothing else. */
async function floor(service: Service, spaceId: string, dir: string): Promise<number> {
  const started = performance.now()
  const space = await getJson<{ revision: string }>(`${service.baseUrl}/spaces/${spaceId}`, service.token)
  const revision = await getJson<{ id: string; pages: Page[]; files: Array<{ downloadURL: string; git: { path: string } }> }>(`${service.baseUrl}/spaces/${spaceId}/content`, service.token)
  const pages: Page[] = []
  const walk = (list: Page[]) => list.forEach((p) => (pages.push(p), walk(p.pages ?? [])))
  walk(revision.pages)
  const write = async (rel: string, data: string | Uint8Array) => {
    const full = path.join(dir, rel)
    await fs.promises.mkdir(path.dirname(full), { recursive: true })
    await fs.promises.writeFile(full, data)
  }
  await pool(pages.filter((p) => p.git), async (p) => {
    const page = await getJson<{ markdown: string }>(`${service.baseUrl}/spaces/${spaceId}/revisions/${revision.id}/page/${p.id}?format=markdown`, service.token)
    await write(p.git!.path, page.markdown)
  })
  await pool(revision.files, async (f) => {
    await write(f.git.path, new Uint8Array(await (await fetch(f.downloadURL)).arrayBuffer()))
  })
  void space
  return performance.now() - started
}

async function mirror(service: Service, spaceId: string, dir: string): Promise<number> {
  const cache = new CacheRepository(openCacheDatabase(path.join(dir, '..', `${path.basename(dir)}.db`)))
  const user = await getJson<{ id: string; displayName: string }>(`${service.baseUrl}/user`, service.token)
  const account = cache.saveAccount({ id: user.id, endpoint: service.origin, userId: user.id, displayName: user.displayName, tokenStore: 'file' })
  // Same concurrency as the floor; the politeness cap of the CLI's gateway (requests per second) is lifted.
  const gateway = new ApiGateway({ endpoint: service.origin, token: service.token, concurrency: CONCURRENCY, intervalCap: 100_000 })
  const engine = new SyncEngine({ cache, account, gateway, workspace: dir, refreshLinks: false })
  await engine.resolveSpaces([spaceId])
  cache.setSelection({ spaces: [spaceId] })
  const started = performance.now()
  const report = await engine.pass()
  const elapsed = performance.now() - started
  cache.close()
  if (!report.inSync) throw new Error(`the mirror did not complete: ${JSON.stringify(report)}`)
  return elapsed
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]

const service = await startService()
const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-out-'))
try {
  const orgs = await getJson<{ items: Array<{ id: string }> }>(`${service.baseUrl}/orgs`, service.token)
  const spaces = await getJson<{ items: Array<{ id: string; title: string }> }>(`${service.baseUrl}/orgs/${orgs.items[0].id}/spaces`, service.token)
  const space = spaces.items.find((s) => s.title === 'User Guide')!
  await floor(service, space.id, path.join(scratch, 'warm')) // warm-up: JIT, the service's caches
  const syncTimes: number[] = []
  const floorTimes: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 === 0 ? ['sync', 'floor'] : ['floor', 'sync']
    for (const which of order) {
      const dir = path.join(scratch, `${which}-${round}`)
      if (which === 'sync') syncTimes.push(await mirror(service, space.id, dir))
      else floorTimes.push(await floor(service, space.id, dir))
    }
  }
  const pages = 47
  const s = median(syncTimes)
  const f = median(floorTimes)
  console.log(`space: User Guide (${pages} pages, 5 files), concurrency ${CONCURRENCY}, ${ROUNDS} rounds, medians`)
  console.log(`sync   initial mirror      ${s.toFixed(0)} ms   ${((pages * 1000) / s).toFixed(0)} pages/s`)
  console.log(`floor  same GETs + writes  ${f.toFixed(0)} ms   ${((pages * 1000) / f).toFixed(0)} pages/s`)
  console.log(`ratio  sync / floor        ${(s / f).toFixed(2)}`)
  console.log(`peak RSS (bench process: engine + floor)  ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`)
} finally {
  service.stop()
  fs.rmSync(scratch, { recursive: true, force: true })
}

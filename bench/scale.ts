/**
 * Sync down at scale: many spaces in one organization, served by the real `quire service` in its own
 * process, against a floor measured in the same run.
 *
 * - Seeding: BENCH_SPACES spaces (default 100) of BENCH_PAGES pages each (default 100; the issue's figure
 *   is 1,000) are written into the service's store by a child process before the service starts (not
 *   measured).
 * - Client: this process, with the engine `quire sync --once --org ID` runs (real SQLite cache, real
 *   folders), its gateway's politeness cap lifted and every request counted at its fetch.
 * - Figures: the initial mirror (discover + one pass); unchanged passes (requests, ms, local files
 *   read); passes after one page changed in one space (requests, ms, files read). Each against its
 *   floor: the very requests the pass made, replayed with plain fetch one after the other (the
 *   initial mirror's 4 at a time, plus its files written with plain writeFile). Peak RSS is this
 *   process's getrusage maximum (the service and the seeding run elsewhere).
 *
 *   npm run bench:scale      BENCH_SPACES=100 BENCH_PAGES=1000 npm run bench:scale
 *   npm run bench:scale -- demo    requests of `quire sync --once` over the demo service, through the CLI
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { load, median, startService, verdict } from './support/run'

const SPACES = Number(process.env.BENCH_SPACES ?? 100)
const PAGES = Number(process.env.BENCH_PAGES ?? 100)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const TARGET_UNCHANGED_REQUESTS = 3
const TARGET_UNCHANGED_MS = 2000
const TARGET_RSS_MB = 250

interface Seeded {
  orgId: string
  spaces: Array<{ id: string; pageIds: string[] }>
}


/** Counts the requests made through `fetch`, as `METHOD path` (under /v1) with their URLs for replay. */
function countingFetch(inner: typeof fetch = fetch) {
  const seen: string[] = []
  const counted: typeof fetch = async (input, init) => {
    const url = typeof input === 'string' ? input : input instanceof URL ? input.href : input.url
    seen.push(url)
    return inner(input, init)
  }
  return { fetch: counted, seen }
}

const describeRequests = (urls: string[]) => {
  const kinds = new Map<string, number>()
  for (const url of urls) {
    const p = new URL(url).pathname.replace(/^\/v1/, '')
    const kind = p
      .replace(/^\/files\/.*/, '/files/…')
      .replace(/\/revisions\/[^/]+\/page\/[^/]+$/, '/revisions/R/page/P')
      .replace(/^\/(spaces|orgs)\/[^/]+/, '/$1/ID')
    kinds.set(kind, (kinds.get(kind) ?? 0) + 1)
  }
  return [...kinds].map(([k, n]) => `${n}× ${k}`).join(', ')
}

/* ---------- seeding (a child process) ---------- */

async function seedChild(job: { dataDir: string; token: string; spaces: number; pages: number }) {
  const { openServiceDatabase } = await import('../src/main/service/store/database')
  const { ServiceStore } = await import('../src/main/service/store/service-store')
  const { UsersRepository } = await import('../src/main/service/store/users')
  const { OrganizationsRepository } = await import('../src/main/service/store/organizations')
  const { SpacesRepository } = await import('../src/main/service/store/spaces')
  const { createSpaceRevision } = await import('../src/main/service/store/revisions')
  const { newId } = await import('../src/main/service/store/ids')
  const { buildDemoContent } = await import('../src/main/service/demo/demo-tree')
  type Outline = import('../src/main/service/demo/demo-tree').OutlinePage

  const store = new ServiceStore(openServiceDatabase(path.join(job.dataDir, 'service.db')))
  try {
    const seeded = store.transaction((): Seeded => {
      const users = store.repo(UsersRepository)
      const owner = users.create({ displayName: 'Bench Owner', email: 'owner@bench.local' })
      users.issueToken(owner.id, job.token)
      const org = store.repo(OrganizationsRepository).create({ title: 'Bench', owner: owner.id })
      const spaces: Seeded['spaces'] = []
      for (let s = 0; s < job.spaces; s++) {
        // Ten sections of pages, a paragraph or three each: a writer's manual, small pages.
        const sections: Outline[] = []
        for (let p = 0; p < job.pages; p++) {
          const title = `Topic ${s}.${p}`
          const page: Outline = { title, body: () => `This page covers **${title}**.\n\n${'Every change is kept in a revision. '.repeat(1 + (p % 7))}\n`, children: [] }
          if (p < 10) sections.push(page)
          else sections[p % 10].children!.push(page)
        }
        const space = store.repo(SpacesRepository).create({ orgId: org.id, title: `Space ${String(s).padStart(3, '0')}` })
        const content = buildDemoContent(sections, [], { newId, now: store.now() })
        createSpaceRevision(store, space.id, content.tree, content.blobs, [], { createdBy: owner.id, message: 'Generated' })
        const pageIds: string[] = []
        const walk = (list: typeof content.tree.pages) => list.forEach((p) => (pageIds.push(p.id), walk(p.pages)))
        walk(content.tree.pages)
        spaces.push({ id: space.id, pageIds })
      }
      return { orgId: org.id, spaces }
    })
    process.stdout.write(`${JSON.stringify(seeded)}\n`)
  } finally {
    store.close()
  }
}

function runSeed(job: { dataDir: string; token: string; spaces: number; pages: number }): Promise<Seeded> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.resolve('bench/scale.ts'), 'seed', JSON.stringify(job)], { stdio: ['ignore', 'pipe', 'inherit'] })
  let out = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  return new Promise((resolve, reject) =>
    child.on('exit', (code) => (code === 0 ? resolve(JSON.parse(out.trim().split('\n').pop()!) as Seeded) : reject(new Error(`seeding failed (exit ${code})`)))),
  )
}

/* ---------- floors ---------- */

/** The same requests, plain fetch, `inFlight` at a time, bodies read in full. */
async function replay(urls: string[], token: string, inFlight = 1): Promise<number> {
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < urls.length) {
        const url = urls[next++]
        const own = url.includes('/v1/')
        const res = await fetch(url, own ? { headers: { Authorization: `Bearer ${token}` } } : {})
        await res.arrayBuffer()
      }
    }),
  )
  return performance.now() - started
}

/** Every file under `root` with its bytes, read before a floor's clock starts. */
function readTree(root: string): Array<[string, Buffer]> {
  const out: Array<[string, Buffer]> = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out.push([path.relative(root, full), fs.readFileSync(full)])
    }
  }
  walk(root)
  return out
}

/** The files written with plain writeFile, 16 at a time (as many as the engine's writes in flight at most). */
async function writeTree(files: Array<[string, Buffer]>, root: string): Promise<number> {
  const started = performance.now()
  const folders = new Map<string, Promise<unknown>>()
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      while (next < files.length) {
        const [rel, data] = files[next++]
        const dir = path.dirname(path.join(root, rel))
        let made = folders.get(dir)
        if (!made) folders.set(dir, (made = fs.promises.mkdir(dir, { recursive: true })))
        await made
        await fs.promises.writeFile(path.join(root, rel), data)
      }
    }),
  )
  return performance.now() - started
}

/* ---------- the scale run ---------- */

async function scale() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-scale-'))
  const token = `bench-${process.pid}-${Date.now()}`
  const dataDir = path.join(scratch, 'service')
  fs.mkdirSync(dataDir)
  const seedStarted = performance.now()
  const seeded = await runSeed({ dataDir, token, spaces: SPACES, pages: PAGES })
  console.log(`seeded ${SPACES} spaces × ${PAGES} pages in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (not measured)`)
  const service = await startService(dataDir, token)
  try {
    const { CacheRepository } = await import('../src/main/engine/cache/cache-repository')
    const { openCacheDatabase } = await import('../src/main/engine/cache/open-cache')
    const { ApiGateway } = await import('../src/main/engine/gateway/api-gateway')
    const { SyncEngine } = await import('../src/main/engine/sync/sync-engine')
    const { SETTLED_NS } = await import('../src/main/engine/workspace/stat-first')

    const cache = new CacheRepository(openCacheDatabase(path.join(scratch, 'cache.db')))
    const account = cache.saveAccount({ id: 'bench@local', endpoint: service.origin, userId: 'bench', displayName: 'Bench', tokenStore: 'file' })
    const counter = countingFetch()
    const gateway = new ApiGateway({ endpoint: service.origin, token, fetch: counter.fetch, intervalCap: 1_000_000 })
    const workspace = path.join(scratch, 'workspace')
    let reads = 0
    // As the CLI's: lists made by discover serve the pass that follows.
    const engine = new SyncEngine({ cache, account, gateway, workspace, handOverLists: true, folder: { onRead: () => reads++ } })
    const measure = async (work: () => Promise<unknown>) => {
      const from = counter.seen.length
      reads = 0
      const started = performance.now()
      await work()
      return { ms: performance.now() - started, urls: counter.seen.slice(from), reads }
    }

    console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
    const initial = await measure(async () => {
      await engine.discover()
      cache.setSelection({ organizations: [seeded.orgId] })
      const report = await engine.pass()
      if (!report.inSync) throw new Error(`the initial mirror is not in sync: ${JSON.stringify(report.spaces.filter((s) => s.state !== 'synced').slice(0, 3))}`)
    })
    const pages = SPACES * PAGES
    console.log(`initial mirror   ${initial.ms.toFixed(0)} ms   ${((pages * 1000) / initial.ms).toFixed(0)} pages/s   ${initial.urls.length} requests (${describeRequests(initial.urls)})`)

    const unchanged: Array<{ ms: number; floor: number; requests: number; reads: number }> = []
    for (let round = 0; round < ROUNDS; round++) {
      const pass = await measure(() => engine.pass())
      unchanged.push({ ms: pass.ms, floor: await replay(pass.urls, token), requests: pass.urls.length, reads: pass.reads })
      if (round === 0) console.log(`unchanged pass   requests: ${describeRequests(pass.urls)}`)
    }
    const uMs = median(unchanged.map((u) => u.ms))
    const uRequests = Math.max(...unchanged.map((u) => u.requests))
    const uReads = Math.max(...unchanged.map((u) => u.reads))
    console.log(`unchanged pass   median ${uMs.toFixed(0)} ms   floor ${median(unchanged.map((u) => u.floor)).toFixed(0)} ms   ratio ${median(unchanged.map((u) => u.ms / u.floor)).toFixed(2)}   (${ROUNDS} passes)`)
    console.log(`                 requests ${uRequests}   target <= ${TARGET_UNCHANGED_REQUESTS} per organization   ${verdict(uRequests <= TARGET_UNCHANGED_REQUESTS)}`)
    console.log(`                 wall time ${uMs.toFixed(0)} ms   target <= ${TARGET_UNCHANGED_MS} ms   ${verdict(uMs <= TARGET_UNCHANGED_MS)}`)
    console.log(`                 files read ${uReads}   target 0   ${verdict(uReads === 0)}`)

    const changed: Array<{ ms: number; floor: number; requests: number; reads: number; urls: string[] }> = []
    // One space, another page each round: its first changed pass reads every file once (none was
    // hashed since the mirror wrote them); the next ones read only the file the pass before wrote.
    const space = seeded.spaces[Math.floor(seeded.spaces.length / 2)]
    for (let round = 0; round < ROUNDS; round++) {
      await editPage(service.baseUrl, token, space.id, space.pageIds[round % space.pageIds.length], round)
      const pass = await measure(() => engine.pass())
      changed.push({ ms: pass.ms, floor: await replay(pass.urls, token), requests: pass.urls.length, reads: pass.reads, urls: pass.urls })
    }
    console.log(`one page changed requests: ${describeRequests(changed[0].urls)}`)
    console.log(
      `one page changed median ${median(changed.map((c) => c.ms)).toFixed(0)} ms   floor ${median(changed.map((c) => c.floor)).toFixed(0)} ms   ratio ${median(changed.map((c) => c.ms / c.floor)).toFixed(2)}   requests ${Math.max(...changed.map((c) => c.requests))}`,
    )
    console.log(
      `                 ms per pass ${changed.map((c) => c.ms.toFixed(0)).join(', ')}; files read per pass ${changed.map((c) => c.reads).join(', ')} (of ${PAGES + 1} in the space)`,
    )
    console.log(`                 (a file written less than ${Number(SETTLED_NS / 1_000_000n)} ms before a pass is read again by it: these passes follow each other closely)`)
    // Before the initial mirror's floor, which holds every mirrored file in memory.
    const rssMb = process.resourceUsage().maxRSS / 1024
    console.log(`peak RSS of the client process ${rssMb.toFixed(0)} MB   target <= ${TARGET_RSS_MB} MB   ${verdict(rssMb <= TARGET_RSS_MB)}`)
    const mirrored = readTree(workspace)
    const floorInitial = (await replay(initial.urls, token, 4)) + (await writeTree(mirrored, path.join(scratch, 'floor')))
    console.log(`initial mirror   ${initial.ms.toFixed(0)} ms   floor ${floorInitial.toFixed(0)} ms (the same requests 4 at a time, the same files written with writeFile)   ratio ${(initial.ms / floorInitial).toFixed(2)}`)
    console.log(`load average after: ${load()}`)
    cache.close()
  } finally {
    service.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** A remote edit the way a writer makes one: a change request, its content, a merge (not counted). */
async function editPage(baseUrl: string, token: string, spaceId: string, pageId: string, round: number) {
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await fetch(`${baseUrl}${url}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as { id: string }
  }
  const cr = await call('POST', `/spaces/${spaceId}/change-requests`, { subject: `bench edit ${round}` })
  await call('POST', `/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Edited ${round}\n\nChanged remotely.\n` } }] })
  await call('POST', `/spaces/${spaceId}/change-requests/${cr.id}/merge`)
}

/* ---------- the demo through the CLI ---------- */

/**
 * What `quire sync --once` asks of the demo service, counted as a new user would see it with a
 * counting proxy: the service in this process, the CLI's own `main`, every request to the service.
 */
async function demo() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-demo-'))
  process.env.QUIRE_HOME = home
  process.env.QUIRE_TOKEN_STORE = 'file'
  const { startLocalService } = await import('../src/main/service/local-service')
  const service = await startLocalService({ port: 0, dataDir: ':memory:', demo: true, log: () => undefined })
  const counter = countingFetch(globalThis.fetch)
  globalThis.fetch = counter.fetch
  try {
    const { main } = await import('../src/main/cli/main')
    const io = { out: () => undefined, err: () => undefined, isTTY: false }
    const quire = async (...args: string[]) => {
      const from = counter.seen.length
      const code = await main(args, io)
      const urls = counter.seen.slice(from).filter((u) => u.startsWith(service.origin))
      const api = urls.filter((u) => u.includes('/v1/'))
      const shown = args.map((a, i) => (args[i - 1] === '--token' ? '…' : args[i - 1] === '--workspace' || args[i - 1] === '--endpoint' ? 'X' : a)).join(' ')
      console.log(`quire ${shown.padEnd(36)} exit ${code}   ${String(api.length).padStart(3)} API requests (${describeRequests(api)})${urls.length > api.length ? ` + ${urls.length - api.length} file downloads` : ''}`)
    }
    await quire('login', '--endpoint', service.baseUrl, '--token', service.token)
    await quire('sync', '--once', '--all', '--workspace', path.join(home, 'docs'))
    await quire('sync', '--once', '--all')
    await quire('sync', '--once')
    const { SpacesRepository } = await import('../src/main/service/store/spaces')
    const { RevisionsRepository, createSpaceRevision } = await import('../src/main/service/store/revisions')
    const { applyContentChanges } = await import('../src/main/content')
    const { newId } = await import('../src/main/service/store/ids')
    const store = service.store
    const get = async <T>(url: string) => (await (await fetch(`${service.baseUrl}${url}`, { headers: { Authorization: `Bearer ${service.token}` } })).json()) as T
    const orgs = await get<{ items: Array<{ id: string }> }>('/orgs')
    const spaces = await get<{ items: Array<{ id: string; title: string }> }>(`/orgs/${orgs.items[0].id}/spaces`)
    const spaceId = spaces.items.find((s) => s.title === 'User Guide')!.id
    const editFaq = (text: string) => {
      const head = store.repo(RevisionsRepository).get(store.repo(SpacesRepository).get(spaceId)!.revisionId!)!
      const faq = head.tree.pages.find((p) => p.slug === 'faq')!
      const edited = applyContentChanges(head.tree, [{ operation: 'update_page', page: faq.id, document: { markdown: `# FAQ\n\n${text}\n` } }], { newId, now: store.now() })
      createSpaceRevision(store, spaceId, edited.tree, edited.blobs, [head.id])
      console.log('(one page of User Guide changed remotely)')
    }
    editFaq('Changed remotely.')
    await quire('sync', '--once')
    editFaq('Changed again.')
    await quire('sync', '--once', '--all')
  } finally {
    await service.close()
    fs.rmSync(home, { recursive: true, force: true })
  }
}

const [role, job] = process.argv.slice(2)
if (role === 'seed') await seedChild(JSON.parse(job) as { dataDir: string; token: string; spaces: number; pages: number })
else if (role === 'demo') await demo()
else await scale()

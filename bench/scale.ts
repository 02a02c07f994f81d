/**
 * Sync down at scale: many spaces in one organization, served by the real `quire service` in its own
 * process, against a floor measured in the same run.
 *
 * - Seeding: BENCH_SPACES spaces (default 100) of BENCH_PAGES pages each (default 100; the issue's figure
 *   is 1,000) are written into the service's store by a child process before the service starts (not
 *   measured).
 * - Client: a child process that runs as `quire` runs (compiled, the sync processes' V8 flags:
 *   bench/support/compiled.ts, sync-child.ts), loads what `quire` loads and builds the engine
 *   `quire sync --org ID` builds (real SQLite cache, real folders, the sync-up hold), its gateway's
 *   politeness cap lifted and every request counted at its fetch. In that one process, as in
 *   `quire sync` or the desktop app: the initial mirror (discover + one pass), BENCH_ROUNDS unchanged
 *   passes (requests, ms, local files read), then BENCH_ROUNDS passes each after one page changed in one
 *   space. Each pass's floor: the very requests it made, replayed with plain fetch one after the other
 *   right after it. Peak RSS is the client process's getrusage maximum (the service, the seeding and the
 *   floors run elsewhere).
 * - Initial mirror floor: a child of the same kind replays the mirror's requests 4 at a time and writes
 *   the mirrored files with plain writeFile (read before its clock starts), BENCH_FLOOR_ROUNDS times
 *   (3): the ratio is to their median, since plain writes swing with the machine's state. Then the
 *   atomic floor (informational, as bench:mirror's): the same with each file written as the promises
 *   require (bench/support/atomic-floor.ts), so sync / atomic floor is the engine's own cost.
 * - Watcher: a child of the same kind (with --expose-gc) starts the session's watcher over the mirrored
 *   space folders (bench/support/watch-child.ts): ready time, RSS, idle CPU (BENCH_IDLE_S windows).
 * BENCH_TSX=1 runs the children under tsx; BENCH_CPU_PROF=DIR profiles each child (node --cpu-prof).
 *
 *   npm run bench:scale      BENCH_SPACES=100 BENCH_PAGES=1000 npm run bench:scale
 *   npm run bench:scale -- demo    requests of `quire sync --once` over the demo service, through the CLI
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { compileBench } from './support/compiled'
import { floorChild, replay, spacePhases, type FloorJob, type FloorReport, type SpacePhases } from './support/pass-floor'
import { load, mb, median, startService, verdict } from './support/run'
import { countRequests, cpuMsSince, openCliEngine, report, runChild, sampleMemory, signedInHome, type SyncJob } from './support/sync-child'
import { watchChild, type WatchJob, type WatchReport } from './support/watch-child'

const SPACES = Number(process.env.BENCH_SPACES ?? 100)
const PAGES = Number(process.env.BENCH_PAGES ?? 100)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10)
const FLOOR_ROUNDS = Number(process.env.BENCH_FLOOR_ROUNDS ?? 3)
const TARGET_UNCHANGED_REQUESTS = 3
const TARGET_UNCHANGED_MS = 2000
const TARGET_RSS_MB = 250
const TARGET_WATCH_IDLE_CPU_PCT = 0.5
const TARGET_WATCH_RSS_MB = 150
const SCRIPT = 'bench/scale.ts'

interface Seeded {
  orgId: string
  spaces: Array<{ id: string; pageIds: string[] }>
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

/* ---------- the client (a child process, as `quire` runs) ---------- */

interface ClientJob extends SyncJob {
  orgId: string
  rounds: number
  /** Where the initial mirror's requests are written for its floor. */
  urlsFile: string
  /** The service's API and the space whose pages are edited, one a round. */
  baseUrl: string
  edited: { id: string; pageIds: string[] }
}

interface PassFigures {
  ms: number
  cpuMs: number
  sysMs: number
  /** The pass's requests replayed one after the other right after it. */
  floorMs: number
  requests: number
  kinds: string
  reads: number
}

interface ClientReport {
  initial: Omit<PassFigures, 'floorMs'>
  initialPhases: SpacePhases
  unchanged: PassFigures[]
  changed: PassFigures[]
  maxRssKb: number
  /** The space folders the mirror made, for the watcher. */
  folders: Array<{ spaceId: string; folder: string }>
  settledMs: number
}

async function clientChild(job: ClientJob) {
  // Edits and floors go through fetch as it was, so the counts are the engine's alone.
  const plainFetch = globalThis.fetch
  const token = process.env.BENCH_TOKEN ?? ''
  const requests = countRequests()
  const sampling = sampleMemory()
  let reads = 0
  const phases = spacePhases()
  const client = await openCliEngine(job, { onRead: () => reads++, onProgress: phases.onProgress })
  const { SETTLED_NS } = await import('../src/main/engine/workspace/stat-first')
  const { spaceFolderPath } = await import('../src/main/engine/sync/sync-engine')
  const measure = async (work: () => Promise<unknown>) => {
    const from = requests.urls.length
    reads = 0
    const cpu = process.cpuUsage()
    const started = performance.now()
    await work()
    const ms = performance.now() - started
    const urls = requests.urls.slice(from)
    return { ms, cpuMs: cpuMsSince(cpu), sysMs: process.cpuUsage(cpu).system / 1000, urls, requests: urls.length, kinds: describeRequests(urls), reads }
  }
  const withFloor = async ({ urls, ...pass }: Awaited<ReturnType<typeof measure>>): Promise<PassFigures> => ({ ...pass, floorMs: await replay(urls, token, 1, plainFetch) })
  try {
    const { urls: initialUrls, ...initial } = await measure(async () => {
      await client.select()
      const pass = await client.engine.pass()
      if (!pass.inSync) throw new Error(`the initial mirror is not in sync: ${JSON.stringify(pass.spaces.filter((s) => s.state !== 'synced').slice(0, 3))}`)
    })
    const initialPhases = phases.totals()
    fs.writeFileSync(job.urlsFile, JSON.stringify(initialUrls))
    const unchanged: PassFigures[] = []
    for (let round = 0; round < job.rounds; round++) unchanged.push(await withFloor(await measure(() => client.engine.pass())))
    // One space, another page each round: its first changed pass reads every file once (none was
    // hashed since the mirror wrote them); the next ones read only the file the pass before wrote.
    const changed: PassFigures[] = []
    for (let round = 0; round < job.rounds; round++) {
      await editPage(plainFetch, job.baseUrl, token, job.edited.id, job.edited.pageIds[round % job.edited.pageIds.length], round)
      changed.push(await withFloor(await measure(() => client.engine.pass())))
    }
    const folders = client.cache.selectedSpaces().flatMap((space) => {
      const folder = spaceFolderPath(client.cache, client.workspace, space)
      return folder ? [{ spaceId: space.id, folder }] : []
    })
    sampling?.stop()
    const result: ClientReport = { initial, initialPhases, unchanged, changed, maxRssKb: process.resourceUsage().maxRSS, folders, settledMs: Number(SETTLED_NS / 1_000_000n) }
    report(result)
  } finally {
    client.close()
  }
}

/** A remote edit the way a writer makes one: a change request, its content, a merge (not counted). */
async function editPage(plainFetch: typeof fetch, baseUrl: string, token: string, spaceId: string, pageId: string, round: number) {
  const call = async (method: string, url: string, body?: unknown) => {
    const res = await plainFetch(`${baseUrl}${url}`, { method, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    if (!res.ok) throw new Error(`${method} ${url} answered ${res.status}: ${await res.text()}`)
    return (await res.json()) as { id: string }
  }
  const cr = await call('POST', `/spaces/${spaceId}/change-requests`, { subject: `bench edit ${round}` })
  await call('POST', `/spaces/${spaceId}/change-requests/${cr.id}/content`, { changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Edited ${round}\n\nChanged remotely.\n` } }] })
  await call('POST', `/spaces/${spaceId}/change-requests/${cr.id}/merge`)
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
    const home = path.join(scratch, 'home')
    await signedInHome(home, service.origin, token)
    // The children run compiled, as `quire` does (BENCH_TSX=1: under tsx).
    const child = process.env.BENCH_TSX === '1' ? SCRIPT : await compileBench(SCRIPT)
    const workspace = path.join(scratch, 'workspace')
    const urlsFile = path.join(scratch, 'initial-urls.json')
    const edited = seeded.spaces[Math.floor(seeded.spaces.length / 2)]

    console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
    const clientJob: ClientJob = { home, workspace, orgId: seeded.orgId, rounds: ROUNDS, urlsFile, baseUrl: service.baseUrl, edited: { id: edited.id, pageIds: edited.pageIds } }
    const client = await runChild<ClientReport>(child, 'client', clientJob, token)
    const { initial, initialPhases: phases, unchanged, changed } = client
    const pages = SPACES * PAGES
    console.log(`initial mirror   ${initial.ms.toFixed(0)} ms (cpu ${initial.cpuMs.toFixed(0)} ms, system ${initial.sysMs.toFixed(0)})   ${((pages * 1000) / initial.ms).toFixed(0)} pages/s   ${initial.requests} requests (${initial.kinds})   load ${load()}`)

    console.log(
      `                 spaces ${phases.spaces}, a few at a time, from the first one's start to the last one's end ${phases.spanMs.toFixed(0)} ms; summed over them: start to plan (tree request, scan, plan) ${phases.planMs.toFixed(0)} ms, plan to last step (files, journal) ${phases.stepsMs.toFixed(0)} ms, last step to end (state) ${phases.tailMs.toFixed(0)} ms; outside the spaces (discovery, lists) ${(initial.ms - phases.spanMs).toFixed(0)} ms`,
    )

    const uMs = median(unchanged.map((u) => u.ms))
    const uRequests = Math.max(...unchanged.map((u) => u.requests))
    const uReads = Math.max(...unchanged.map((u) => u.reads))
    console.log(`unchanged pass   requests: ${unchanged[0].kinds}`)
    console.log(`unchanged pass   median ${uMs.toFixed(0)} ms (cpu ${median(unchanged.map((u) => u.cpuMs)).toFixed(0)} ms)   floor ${median(unchanged.map((u) => u.floorMs)).toFixed(0)} ms   ratio ${median(unchanged.map((u) => u.ms / u.floorMs)).toFixed(2)}   (${ROUNDS} passes)`)
    console.log(`                 requests ${uRequests}   target <= ${TARGET_UNCHANGED_REQUESTS} per organization   ${verdict(uRequests <= TARGET_UNCHANGED_REQUESTS)}`)
    console.log(`                 wall time ${uMs.toFixed(0)} ms   target <= ${TARGET_UNCHANGED_MS} ms   ${verdict(uMs <= TARGET_UNCHANGED_MS)}`)
    console.log(`                 files read ${uReads}   target 0   ${verdict(uReads === 0)}`)
    console.log(`one page changed requests: ${changed[0].kinds}`)
    console.log(
      `one page changed median ${median(changed.map((c) => c.ms)).toFixed(0)} ms (cpu ${median(changed.map((c) => c.cpuMs)).toFixed(0)} ms)   floor ${median(changed.map((c) => c.floorMs)).toFixed(0)} ms   ratio ${median(changed.map((c) => c.ms / c.floorMs)).toFixed(2)}   requests ${Math.max(...changed.map((c) => c.requests))}`,
    )
    console.log(`                 ms per pass ${changed.map((c) => c.ms.toFixed(0)).join(', ')}; files read per pass ${changed.map((c) => c.reads).join(', ')} (of ${PAGES + 1} in the space)`)
    console.log(`                 (a file written less than ${client.settledMs} ms before a pass is read again by it: these passes follow each other closely)`)
    const rssMb = mb(client.maxRssKb)
    console.log(`peak RSS of the client process ${rssMb.toFixed(0)} MB   target <= ${TARGET_RSS_MB} MB   ${verdict(rssMb <= TARGET_RSS_MB)}   (process with module loading: ${(client.processMs / 1000).toFixed(1)} s)`)

    // The floor's plain writes swing with the machine's state (0.5 to 60 s for the same files, nearly all
    // of it the kernel's, within an hour here, slowest after a mass deletion): the ratio is to the median
    // of rounds, each printed; no folder is deleted before the run ends.
    const floor = async (label: string, dir: string, atomic: boolean) => {
      const run = await runChild<FloorReport>(child, 'floor', { urlsFile, mirrored: workspace, dir: path.join(scratch, dir), atomic } satisfies FloorJob, token)
      console.log(
        `${label.padEnd(16)} ${run.workMs.toFixed(0)} ms: the same ${initial.requests} requests 4 at a time ${run.requestsMs.toFixed(0)} ms, the same ${run.files} files ${atomic ? 'written as the promises need (temp O_EXCL|O_DSYNC, link, unlink, folder fsync)' : 'written with writeFile'} ${run.writesMs.toFixed(0)} ms; cpu ${run.cpuMs.toFixed(0)} ms (system ${run.sysMs.toFixed(0)}); load ${load()}`,
      )
      return run.workMs
    }
    const floors: number[] = []
    for (let round = 0; round < FLOOR_ROUNDS; round++) floors.push(await floor(`initial floor ${round + 1}`, `floor-${round}`, false))
    const floorMs = median(floors)
    console.log(`initial mirror   ${initial.ms.toFixed(0)} ms   floor ${floorMs.toFixed(0)} ms (median of ${FLOOR_ROUNDS})   ratio ${(initial.ms / floorMs).toFixed(2)}`)
    // Informational, as bench:mirror's: what the promises cost by themselves, and the engine's cost beyond them.
    const atomicMs = await floor('atomic floor', 'atomic-floor', true)
    console.log(`                 atomic floor / floor ${(atomicMs / floorMs).toFixed(2)}   sync / atomic floor ${(initial.ms / atomicMs).toFixed(2)}`)

    const probe = fs.readdirSync(client.folders[0].folder, { recursive: true, encoding: 'utf8' }).find((f) => f.endsWith('.md') && f !== 'SUMMARY.md')!
    const watchJob: WatchJob = { spaces: client.folders, idleS: IDLE_S, probe }
    const watch = await runChild<WatchReport>(child, 'watch', watchJob, token, { nodeFlags: ['--expose-gc'] })
    const files = readdirCount(workspace)
    console.log(`watcher over ${files.toLocaleString('en')} files in ${client.folders.length} space folders (the session's watcher and source)`)
    console.log(`                 ready ${watch.readyMs.toFixed(0)} ms (cpu ${watch.readyCpuMs.toFixed(0)} ms)   save seen after ${watch.saveMs === undefined ? 'NONE within 10 s' : `${watch.saveMs.toFixed(0)} ms (debounce included)`}`)
    console.log(`                 idle CPU ${watch.idleCpuPct.map((p) => p.toFixed(2)).join(' / ')} % (two ${IDLE_S} s windows)   target (second) < ${TARGET_WATCH_IDLE_CPU_PCT} %   ${verdict(watch.idleCpuPct[1] < TARGET_WATCH_IDLE_CPU_PCT)}`)
    console.log(
      `                 RSS +${watch.rssDeltaMb.toFixed(1)} MB (after ready and a gc, over ${watch.rssBeforeMb.toFixed(0)} MB with modules loaded)   target <= ${TARGET_WATCH_RSS_MB} MB   ${verdict(watch.rssDeltaMb <= TARGET_WATCH_RSS_MB)}   process peak ${watch.peakRssMb.toFixed(0)} MB`,
    )
    console.log(`load average after: ${load()}`)
  } finally {
    service.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

/** How many files are under `root`. */
function readdirCount(root: string): number {
  return fs.readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile()).length
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
  const counter = countRequests()
  try {
    const { main } = await import('../src/main/cli/main')
    const io = { out: () => undefined, err: () => undefined, isTTY: false }
    const quire = async (...args: string[]) => {
      const from = counter.urls.length
      const code = await main(args, io)
      const urls = counter.urls.slice(from).filter((u) => u.startsWith(service.origin))
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
else if (role === 'client') await clientChild(JSON.parse(job) as ClientJob)
else if (role === 'floor') await floorChild(JSON.parse(job) as FloorJob)
else if (role === 'watch') await watchChild(JSON.parse(job) as WatchJob)
else if (role === 'demo') await demo()
else await scale()

/**
 * Initial mirror of a generated space of 2,000 pages (nested five levels deep, GitBook blocks, links
 * between pages and to files) and 200 files, served by the real `quire service` in its own process,
 * against a floor measured in the same invocation.
 *
 * - The space is seeded through the service's store before the service starts (not measured).
 * - sync: a child process that loads what `quire` loads (the CLI's main module, every command) and runs
 *   what `quire sync --once --space ID --workspace DIR` runs, step for step (cache and token from
 *   QUIRE_HOME, the sync-up hold, the CLI's progress sink, resolving the space, one pass),
 *   with one difference: the gateway's politeness cap (50 requests a second) is lifted, for the floor
 *   too, so the figure is the engine's cost and not the cap's. Concurrency as in the CLI: 4 requests.
 * - floor: a child process that makes the GETs any client must make to mirror the space named on the
 *   command line, and no others: the space (its title, organization and revision), its organization
 *   (the folder's name), the tree with every page's markdown (kept when it hashes to the page's
 *   `git.oid`, else that page is fetched alone, as the engine does), and each file's bytes. Checked:
 *   both count their requests by method, path and query, and must match. Four in
 *   flight at all times; the same bytes written (checked: the folders are compared) with plain
 *   writeFile, and nothing else: no journal, no fsync, no rename, no planning, and SUMMARY.md ready
 *   made (rendered before its clock starts).
 * - Both run as compiled JavaScript, as `quire` runs (bin/quire.mjs runs an esbuild bundle): the bench
 *   file is bundled with the CLI build's settings (bench/support/compiled.ts), so neither process holds
 *   tsx's loader thread (~40 MB no user's process has). BENCH_TSX=1 runs them under tsx instead.
 * - Both are timed inside their process, from the start of the work to its end (module loading is
 *   printed apart); CPU is the process's (all threads); peak RSS is each process's getrusage maximum,
 *   the kernel's VmHWM.
 * - atomic floor (informational): the floor with each file written as the promises require and no
 *   more (writeAtomicNoClobber: exclusive temp written O_DSYNC, link, unlink; one fsync per folder).
 *   sync / atomic floor is the engine's own cost; atomic floor / floor is what atomic, durable,
 *   never-clobbering writes cost on this disk.
 * Rounds run the three back to back, rotating which goes first; the ratio is the median of the rounds'
 * ratios, each taken under the same machine load. BENCH_STRACE=DIR counts each child's system calls.
 *
 *   npm run bench:mirror      BENCH_ROUNDS=5 npm run bench:mirror      BENCH_CPU_PROF=DIR npm run bench:mirror
 */
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { screenshotSizes, seedSpace } from './support/generated-space'
import { syncFolder, writeAtomicNoClobber } from './support/atomic-floor'
import { compileBench } from './support/compiled'
import { load, mb, median, startService, verdict } from './support/run'
import { countRequests, cpuMsSince, report, runChild, signedInHome, syncChild, type Run, type SyncJob } from './support/sync-child'

const PAGES = 2000
const FILES = 200
const CONCURRENCY = 4
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// Issue 16's targets.
const TARGET_RATIO = 1.1
const TARGET_RSS_MB = 150
const SCRIPT = 'bench/mirror.ts'

interface FloorJob {
  withCli?: boolean
  /** Each file written atomically and durably, never over a file that appeared (writeAtomicNoClobber). */
  atomic?: boolean
  baseUrl: string
  /** SUMMARY.md, rendered beforehand. */
  summary: string
  spaceId: string
  orgId: string
  dir: string
}

/* ---------- children ---------- */

/**
 * The GETs any client must make for a first `quire sync --once --space ID`, the same bytes written,
 * nothing else: SUMMARY.md comes ready made (rendered before the clock starts), so not even that is
 * computed.
 */
async function floorChild(job: FloorJob) {
  const requests = countRequests()
  // The floor in a process shaped like the CLI's (an informational run): what any pass costs there.
  if (job.withCli) await import('../src/main/cli/main')
  const summary = fs.readFileSync(job.summary)

  const started = performance.now()
  const cpu = process.cpuUsage()
  const auth = { Authorization: `Bearer ${process.env.BENCH_TOKEN ?? ''}` }
  const getJson = async <T>(url: string): Promise<T> => {
    const res = await fetch(url, { headers: auth })
    if (!res.ok) throw new Error(`${url} answered ${res.status}`)
    return (await res.json()) as T
  }
  const writes: Array<Promise<void>> = []
  const folders = new Map<string, Promise<unknown>>()
  let bytes = 0
  const write = (rel: string, data: string | Uint8Array) => {
    bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength
    const full = path.join(job.dir, rel)
    const dir = path.dirname(full)
    let made = folders.get(dir)
    if (!made) folders.set(dir, (made = fs.promises.mkdir(dir, { recursive: true })))
    writes.push(made.then(() => (job.atomic ? writeAtomicNoClobber(full, data) : fs.promises.writeFile(full, data))))
  }

  // The space named on the command line (its organization, revision and title), its organization's
  // title (the folder's name), then the tree, which carries the pages' markdown.
  await getJson(`${job.baseUrl}/spaces/${job.spaceId}`)
  await getJson(`${job.baseUrl}/orgs/${job.orgId}`)
  const revision = await getJson<WireRevision>(`${job.baseUrl}/spaces/${job.spaceId}/content`)
  const documents = documentPages(revision.pages)
  type Job = { kind: 'page'; id: string; path: string } | { kind: 'file'; url: string; path: string }
  const jobs: Job[] = []
  for (const page of documents) {
    // The tree's markdown is the page's file only when it hashes to the page's git oid: a client must check.
    const markdown = page.markdown === undefined ? undefined : Buffer.from(page.markdown)
    if (markdown && gitBlobOid(markdown) === page.git!.oid) write(page.git!.path, markdown)
    else jobs.push({ kind: 'page', id: page.id, path: page.git!.path })
  }
  for (const f of revision.files) jobs.push({ kind: 'file', url: f.downloadURL, path: f.git.path })
  let next = 0
  // Writes are not awaited by the workers: four requests are in flight at all times.
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const item = jobs[next++]
        if (item.kind === 'page') {
          const page = await getJson<{ markdown: string }>(`${job.baseUrl}/spaces/${job.spaceId}/revisions/${revision.id}/page/${item.id}?format=markdown`)
          write(item.path, page.markdown)
        } else {
          const res = await fetch(item.url)
          if (!res.ok) throw new Error(`${item.url} answered ${res.status}`)
          write(item.path, new Uint8Array(await res.arrayBuffer()))
        }
      }
    }),
  )
  write('SUMMARY.md', summary)
  await Promise.all(writes)
  // The atomic floor makes the new names durable: one fsync per folder, after its last file.
  if (job.atomic) await Promise.all([...folders.keys()].map(syncFolder))
  // No link report: since issue 29 a pass reads none (whoever shows one reads it).
  const workMs = performance.now() - started
  report({ workMs, cpuMs: cpuMsSince(cpu), maxRssKb: process.resourceUsage().maxRSS, requests: requests.counts, received: requests.received(), pages: documents.length, bytes })
}

/** Git's blob id of `bytes` (what `git.oid` is): SHA-1 of a `blob <size>` header, a NUL, and the bytes. */
function gitBlobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex')
}

interface WirePage {
  id: string
  type: string
  title: string
  slug?: string
  href?: string
  git?: { path: string; oid: string }
  /** The page's markdown, as the tree carries it. */
  markdown?: string
  pages?: WirePage[]
}

interface WireRevision {
  id: string
  pages: WirePage[]
  files: Array<{ id: string; downloadURL: string; git: { path: string } }>
}

function documentPages(list: WirePage[], out: WirePage[] = []): WirePage[] {
  for (const page of list) {
    if (page.git) out.push(page)
    documentPages(page.pages ?? [], out)
  }
  return out
}

/** SUMMARY.md of the space as Git Sync writes it, rendered once before the runs for the floor. */
async function renderSummaryOf(revision: WireRevision): Promise<string> {
  const { renderSummary } = await import('../src/main/content')
  type SummaryTree = Parameters<typeof renderSummary>[0]
  const treeOf = (list: WirePage[]): SummaryTree['pages'] =>
    list.map((p) => ({
      id: p.id,
      type: p.type === 'group' ? 'group' : p.type === 'link' ? 'link' : 'document',
      title: p.title,
      slug: p.slug ?? '',
      metadata: {},
      ...(p.type === 'link' ? { href: p.href ?? '' } : {}),
      createdAt: '',
      updatedAt: '',
      pages: treeOf(p.pages ?? []),
    }))
  return renderSummary({ pages: treeOf(revision.pages), files: [] }, new Map(documentPages(revision.pages).map((p) => [p.id, p.git!.path])))
}

/* ---------- the run ---------- */

/** Relative path -> content, for comparing the two folders. */
function readTree(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out.set(path.relative(root, full).split(path.sep).join('/'), fs.readFileSync(full))
    }
  }
  walk(root)
  return out
}

function sameTree(a: string, b: string): string | undefined {
  const left = readTree(a)
  const right = readTree(b)
  if (left.size !== right.size) return `${left.size} files vs ${right.size}`
  for (const [rel, data] of left) {
    const other = right.get(rel)
    if (!other) return `${rel} is missing from the floor's folder`
    if (!data.equals(other)) return `${rel} differs`
  }
  return undefined
}

function sameRequests(a: Record<string, number>, b: Record<string, number>): string | undefined {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  const differ = [...keys].filter((key) => a[key] !== b[key]).map((key) => `${key}: sync ${a[key] ?? 0}, floor ${b[key] ?? 0}`)
  if (differ.length === 0) return undefined
  return `${differ.length} differ: ${differ.slice(0, 5).join('; ')}${differ.length > 5 ? '; ...' : ''}`
}


async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-mirror-'))
  const token = `bench-${process.pid}-${Date.now()}`
  const dataDir = path.join(scratch, 'service')
  fs.mkdirSync(dataDir)
  const seedStarted = performance.now()
  const seed = await seedSpace(dataDir, token, { pages: PAGES, files: FILES, fileSize: screenshotSizes })
  console.log(`seeded ${PAGES} pages and ${FILES} files (${(seed.fileBytes / 1e6).toFixed(1)} MB) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (not measured)`)
  const service = await startService(dataDir, token)
  try {
    const content = await fetch(`${service.baseUrl}/spaces/${seed.spaceId}/content`, { headers: { Authorization: `Bearer ${token}` } })
    const summary = path.join(scratch, 'SUMMARY.md')
    fs.writeFileSync(summary, await renderSummaryOf((await content.json()) as WireRevision))
    const floorJob = (dir: string): FloorJob => ({ baseUrl: service.baseUrl, summary, spaceId: seed.spaceId, orgId: seed.orgId, dir })
    const syncJob = async (round: string): Promise<SyncJob> => {
      const home = path.join(scratch, `home-${round}`)
      await signedInHome(home, service.origin, token)
      return { home, workspace: path.join(scratch, `sync-${round}`), spaceId: seed.spaceId }
    }

    // The children run compiled, as `quire` does (BENCH_TSX=1: under tsx, as before).
    const child = process.env.BENCH_TSX === '1' ? SCRIPT : await compileBench(SCRIPT)
    console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
    await runChild(child, 'floor', floorJob(path.join(scratch, 'warm')), token) // warm-up: the service's JIT and caches, the page cache
    await runChild(child, 'sync', await syncJob('warm'), token)
    const syncRuns: Run[] = []
    const floorRuns: Run[] = []
    const atomicRuns: Run[] = []
    for (let round = 0; round < ROUNDS; round++) {
      // Each of the three goes first in turn, so none always runs on a machine the others just warmed.
      const order = (['sync', 'floor', 'atomic'] as const).map((_, i, all) => all[(i + round) % all.length])
      for (const which of order) {
        if (which === 'sync') syncRuns.push(await runChild(child, 'sync', await syncJob(String(round)), token))
        else if (which === 'floor') floorRuns.push(await runChild(child, 'floor', floorJob(path.join(scratch, `floor-${round}`)), token))
        else atomicRuns.push(await runChild(child, 'floor', { ...floorJob(path.join(scratch, `atomic-${round}`)), atomic: true }, token))
      }
      const s = syncRuns[round]
      const f = floorRuns[round]
      const a = atomicRuns[round]
      console.log(
        `round ${round + 1}: sync ${s.workMs.toFixed(0)} ms (cpu ${s.cpuMs.toFixed(0)} ms, ${mb(s.maxRssKb).toFixed(0)} MB), floor ${f.workMs.toFixed(0)} ms (cpu ${f.cpuMs.toFixed(0)} ms, ${mb(f.maxRssKb).toFixed(0)} MB), atomic floor ${a.workMs.toFixed(0)} ms (cpu ${a.cpuMs.toFixed(0)} ms), ratio ${(s.workMs / f.workMs).toFixed(2)} (to the atomic floor ${(s.workMs / a.workMs).toFixed(2)}), load ${load()}`,
      )
    }

    // Informational: the floor in a process that loads what `quire` loads, to show what part of the
    // sync process's peak RSS any pass would have there.
    const floorInCli = await runChild(child, 'floor', { ...floorJob(path.join(scratch, 'floor-cli')), withCli: true }, token)

    const pages = floorRuns[0].pages
    const requestDiff = sameRequests(syncRuns[0].requests, floorRuns[0].requests)
    const gets = Object.values(floorRuns[0].requests).reduce((n, c) => n + c, 0)
    const synced = path.join(scratch, 'sync-0', 'Bench', 'Large Manual')
    const folderDiff = sameTree(synced, path.join(scratch, 'floor-0')) ?? sameTree(synced, path.join(scratch, 'atomic-0'))
    const s = median(syncRuns.map((r) => r.workMs))
    const f = median(floorRuns.map((r) => r.workMs))
    // Each round's two runs are back to back, under the same load: the ratio is the median of the rounds'.
    const ratio = median(syncRuns.map((r, i) => r.workMs / floorRuns[i].workMs))
    const rss = Math.max(...syncRuns.map((r) => mb(r.maxRssKb)))
    console.log('')
    console.log(`space: ${pages} pages, ${FILES} files; ${(floorRuns[0].bytes / 1e6).toFixed(1)} MB written, ${(floorRuns[0].received / 1e6).toFixed(1)} MB received; concurrency ${CONCURRENCY}; ${ROUNDS} rounds`)
    console.log(`same requests: ${requestDiff ? `NO (${requestDiff})` : `yes, ${gets} GETs each`}; same files and bytes: ${folderDiff ? `NO (${folderDiff})` : 'yes'}`)
    console.log(`sync   quire sync --once (engine)  median ${s.toFixed(0)} ms   ${((pages * 1000) / s).toFixed(0)} pages/s   (process with module loading: ${median(syncRuns.map((r) => r.processMs)).toFixed(0)} ms)`)
    console.log(`floor  same GETs + plain writes    median ${f.toFixed(0)} ms   ${((pages * 1000) / f).toFixed(0)} pages/s   (process with module loading: ${median(floorRuns.map((r) => r.processMs)).toFixed(0)} ms)`)
    console.log(`ratio  sync / floor, median of rounds  ${ratio.toFixed(2)}   target <= ${TARGET_RATIO}   ${verdict(ratio <= TARGET_RATIO)}   (ratio of medians ${(s / f).toFixed(2)})`)
    // Informational: what the promises cost by themselves (atomic, no-clobber, durable writes), and the
    // engine's own cost beyond them.
    const a = median(atomicRuns.map((r) => r.workMs))
    const atomicRatio = median(syncRuns.map((r, i) => r.workMs / atomicRuns[i].workMs))
    console.log(`atomic floor  same GETs + writes as the promises need them (temp O_EXCL|O_DSYNC, link, unlink, folder fsync)  median ${a.toFixed(0)} ms   ${((pages * 1000) / a).toFixed(0)} pages/s`)
    console.log(`       atomic floor / floor, median of rounds  ${median(atomicRuns.map((r, i) => r.workMs / floorRuns[i].workMs)).toFixed(2)}   sync / atomic floor  ${atomicRatio.toFixed(2)}`)
    console.log(`peak RSS of the sync process, max of rounds  ${rss.toFixed(0)} MB   target <= ${TARGET_RSS_MB} MB   ${verdict(rss <= TARGET_RSS_MB)}`)
    console.log(`       floor process ${Math.max(...floorRuns.map((r) => mb(r.maxRssKb))).toFixed(0)} MB; the floor in a process loading what quire loads: ${mb(floorInCli.maxRssKb).toFixed(0)} MB`)
    console.log(`load average after: ${load()}`)
    if (requestDiff || folderDiff) process.exitCode = 1
  } finally {
    service.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

const [role, job] = process.argv.slice(2)
if (role === 'sync') await syncChild(JSON.parse(job) as SyncJob)
else if (role === 'floor') await floorChild(JSON.parse(job) as FloorJob)
else await main()

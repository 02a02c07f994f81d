/**
 * One large space mirrored from the local service: 1,000 pages and 10,000 files (BENCH_PAGES,
 * BENCH_FILES), the shape of a real Git Sync space whose every screenshot is a file. Issue 16 measured
 * such a space (799 pages, 9,800 files) at 2.8 pages/s, the service at ~6 CPU-minutes and 1.39 GB.
 *
 * - The space is generated into the service's store before the service starts (not measured).
 * - The service is the compiled `quire service` in its own process, started fresh, so its peak RSS
 *   (VmHWM) is the service's for this mirror; its CPU time is read from /proc around each mirror.
 * - The client is a child process (compiled, as `quire` runs: bench/support/compiled.ts) running what `quire sync --once --space ID --workspace DIR` runs
 *   (bench/support/sync-child.ts), the gateway's politeness cap lifted; its peak RSS is its getrusage
 *   maximum. Pages per second: pages / the whole mirror's time (files included).
 *
 *   npm run bench:big-space      BENCH_ROUNDS=3 npm run bench:big-space      BENCH_CPU_PROF=DIR / BENCH_HEAP_PROF=DIR
 *   npm run bench:big-space -- watch   `quire watch` over a 20,000-page space: save -> change request, idle pass CPU, peak RSS (support/big-watch.ts)
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { bigWatch } from './support/big-watch'
import { seedSpace, type SpaceShape } from './support/generated-space'
import { compileBench } from './support/compiled'
import { load, mb, median, startService, verdict } from './support/run'
import { runChild, signedInHome, syncChild, type SyncJob } from './support/sync-child'

const PAGES = Number(process.env.BENCH_PAGES ?? 1000)
const FILES = Number(process.env.BENCH_FILES ?? 10_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
// Issue 16's targets.
const TARGET_PAGES_PER_S = 100
const TARGET_SERVICE_RSS_MB = 500
const TARGET_CLIENT_RSS_MB = 200
const SCRIPT = 'bench/big-space.ts'

/** Screenshots of a few kilobytes, some diagrams and handouts, one in a hundred large. */
const smallFiles: SpaceShape['fileSize'] = (rnd, kind) => {
  if (kind === 'svg') return rnd.int(1_000, 6_000)
  if (kind === 'pdf') return rnd.int(10_000, 60_000)
  return rnd.next() < 0.01 ? rnd.int(60_000, 200_000) : rnd.int(1_000, 16_000)
}

/** User + system CPU of a process so far, in ms (/proc/PID/stat), undefined off Linux. */
function processCpuMs(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    // utime and stime are fields 14 and 15 of the line, 12 and 13 after the command's closing parenthesis.
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100
  } catch {
    return undefined
  }
}

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-big-space-'))
  const token = `bench-${process.pid}-${Date.now()}`
  const dataDir = path.join(scratch, 'service')
  fs.mkdirSync(dataDir)
  const seedStarted = performance.now()
  const seed = await seedSpace(dataDir, token, { pages: PAGES, files: FILES, fileSize: smallFiles, title: 'Big Space' })
  console.log(`seeded ${PAGES} pages and ${FILES} files (${(seed.fileBytes / 1e6).toFixed(1)} MB) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (not measured)`)
  const service = await startService(dataDir, token)
  try {
    console.log(`service started: ${mb(service.peakRssKb() ?? 0).toFixed(0)} MB peak so far`)
    // The client runs compiled, as `quire` does (BENCH_TSX=1: under tsx).
    const child = process.env.BENCH_TSX === '1' ? SCRIPT : await compileBench(SCRIPT)
    console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
    const rounds: Array<{ workMs: number; clientMb: number; serviceCpuMs: number; requests: number }> = []
    for (let round = 0; round < ROUNDS; round++) {
      const home = path.join(scratch, `home-${round}`)
      await signedInHome(home, service.origin, token)
      const job: SyncJob = { home, workspace: path.join(scratch, `sync-${round}`), spaceId: seed.spaceId }
      const cpuBefore = processCpuMs(service.pid) ?? 0
      const run = await runChild(child, 'sync', job, token)
      const serviceCpuMs = (processCpuMs(service.pid) ?? 0) - cpuBefore
      const requests = Object.values(run.requests).reduce((n, c) => n + c, 0)
      rounds.push({ workMs: run.workMs, clientMb: mb(run.maxRssKb), serviceCpuMs, requests })
      console.log(
        `round ${round + 1}: ${run.workMs.toFixed(0)} ms, ${((PAGES * 1000) / run.workMs).toFixed(0)} pages/s, client cpu ${run.cpuMs.toFixed(0)} ms, ${mb(run.maxRssKb).toFixed(0)} MB; ` +
          `service cpu ${serviceCpuMs.toFixed(0)} ms for ${requests} requests (${(serviceCpuMs / requests).toFixed(2)} ms each), peak ${mb(service.peakRssKb() ?? 0).toFixed(0)} MB; load ${load()}`,
      )
      fs.rmSync(job.workspace, { recursive: true, force: true })
    }
    const workMs = median(rounds.map((r) => r.workMs))
    const pagesPerS = (PAGES * 1000) / workMs
    const clientMb = Math.max(...rounds.map((r) => r.clientMb))
    const serviceMb = mb(service.peakRssKb() ?? 0)
    console.log('')
    console.log(`space: ${PAGES} pages, ${FILES} files (${(seed.fileBytes / 1e6).toFixed(1)} MB); ${ROUNDS} round(s), each into a new folder and cache`)
    console.log(`mirror          median ${workMs.toFixed(0)} ms   ${pagesPerS.toFixed(0)} pages/s   target >= ${TARGET_PAGES_PER_S}   ${verdict(pagesPerS >= TARGET_PAGES_PER_S)}`)
    console.log(`service peak RSS ${serviceMb.toFixed(0)} MB   target <= ${TARGET_SERVICE_RSS_MB} MB   ${verdict(serviceMb <= TARGET_SERVICE_RSS_MB)}`)
    console.log(`client peak RSS  ${clientMb.toFixed(0)} MB   target <= ${TARGET_CLIENT_RSS_MB} MB   ${verdict(clientMb <= TARGET_CLIENT_RSS_MB)}`)
    console.log(`service CPU per mirror ${median(rounds.map((r) => r.serviceCpuMs)).toFixed(0)} ms for ${rounds[0].requests} requests`)
    console.log(`load average after: ${load()}`)
  } finally {
    service.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

const [role, job] = process.argv.slice(2)
if (role === 'sync') await syncChild(JSON.parse(job) as SyncJob)
else if (role === 'watch') await bigWatch()
else await main()

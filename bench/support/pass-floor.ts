/**
 * bench:scale's floors and measures, apart from its run: a pass's requests replayed with plain fetch,
 * the initial mirror's floor (its requests 4 at a time, its files written with writeFile) as a child's
 * role, and where a pass's time goes space by space (from the engine's progress events).
 */
import fs from 'node:fs'
import path from 'node:path'
import { syncFolder, writeAtomicNoClobber } from './atomic-floor'
import { cpuMsSince, report } from './sync-child'

/** The same requests, plain fetch, `inFlight` at a time, bodies read in full. */
export async function replay(urls: string[], token: string, inFlight = 1, plainFetch: typeof fetch = fetch): Promise<number> {
  const started = performance.now()
  let next = 0
  await Promise.all(
    Array.from({ length: inFlight }, async () => {
      while (next < urls.length) {
        const url = urls[next++]
        const own = url.includes('/v1/')
        const res = await plainFetch(url, own ? { headers: { Authorization: `Bearer ${token}` } } : {})
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

/**
 * The files written with plain writeFile, 16 at a time (as many as the engine's writes in flight at most);
 * `atomic`: each as the promises require (writeAtomicNoClobber) and one fsync per folder at the end.
 */
async function writeTree(files: Array<[string, Buffer]>, root: string, atomic = false): Promise<number> {
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
        await (atomic ? writeAtomicNoClobber(path.join(root, rel), data) : fs.promises.writeFile(path.join(root, rel), data))
      }
    }),
  )
  if (atomic) await Promise.all([...folders.keys()].map(syncFolder))
  return performance.now() - started
}

export interface FloorJob {
  /** The initial mirror's requests (a JSON list: too long for a command line). */
  urlsFile: string
  mirrored: string
  dir: string
  /** Written as the promises require (the atomic floor), not with plain writeFile. */
  atomic?: boolean
}

export interface FloorReport {
  workMs: number
  requestsMs: number
  writesMs: number
  files: number
  cpuMs: number
  /** Of cpuMs, the kernel's (file creation, and the writeback it throttles a writer with). */
  sysMs: number
}

/** The initial mirror's floor: its requests 4 at a time, its files written with writeFile (or atomically). */
export async function floorChild(job: FloorJob) {
  const urls = JSON.parse(fs.readFileSync(job.urlsFile, 'utf8')) as string[]
  const files = readTree(job.mirrored)
  const cpu = process.cpuUsage()
  const requestsMs = await replay(urls, process.env.BENCH_TOKEN ?? '', 4)
  const writesMs = await writeTree(files, job.dir, job.atomic)
  const result: FloorReport = { workMs: requestsMs + writesMs, requestsMs, writesMs, files: files.length, cpuMs: cpuMsSince(cpu), sysMs: process.cpuUsage(cpu).system / 1000 }
  report(result)
}

/**
 * Where a pass's time goes, summed over its spaces (a few run at a time, so the sums overlap): from a
 * space's start to its plan (the tree's request, storing it, the scan, the plan), from the plan to its
 * last step (the files written, the journal), from the last step to its end (the state). `spanMs`: from
 * the first space's start to the last one's end.
 */
export interface SpacePhases {
  spaces: number
  planMs: number
  stepsMs: number
  tailMs: number
  spanMs: number
}

export function spacePhases() {
  const totals: SpacePhases = { spaces: 0, planMs: 0, stepsMs: 0, tailMs: 0, spanMs: 0 }
  // Spaces run a few at a time: each one's phases are timed from its own events.
  const running = new Map<string, { at: number; phase: 'plan' | 'steps' }>()
  let first: number | undefined
  const lap = (spaceId: string) => {
    const now = performance.now()
    const space = running.get(spaceId) ?? { at: now, phase: 'plan' as const }
    const ms = now - space.at
    space.at = now
    running.set(spaceId, space)
    return { ms, space }
  }
  return {
    onProgress: (event: { type: string; spaceId: string }) => {
      if (event.type === 'space-started') {
        first ??= performance.now()
        running.set(event.spaceId, { at: performance.now(), phase: 'plan' })
      } else if (event.type === 'space-planned') {
        const { ms, space } = lap(event.spaceId)
        totals.planMs += ms
        space.phase = 'steps'
      } else if (event.type === 'step') totals.stepsMs += lap(event.spaceId).ms
      else if (event.type === 'space-finished') {
        totals.spaces++
        const { ms, space } = lap(event.spaceId)
        if (space.phase === 'plan') totals.planMs += ms
        else totals.tailMs += ms
        running.delete(event.spaceId)
        totals.spanMs = performance.now() - (first ?? performance.now())
      }
    },
    totals: () => ({ ...totals }),
  }
}


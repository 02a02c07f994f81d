/**
 * The workspace watcher over large workspaces: N files in space-like folders (1,000 pages per space in
 * 10 x 10 folders, plus a `.git` folder of 20 files the watcher must ignore), N = 20,000 and 100,000.
 *
 * Each configuration runs in its own child process (so its RSS is its own) and starts the
 * WorkspaceWatcher as the session does (its debounce and rename window, one folder per space):
 * - ready: from start() to its promise (the initial scan), and the CPU it took;
 * - RSS and heap: after ready (and a gc), minus the same process before start() (modules loaded);
 *   peak RSS is the process's getrusage maximum;
 * - idle CPU: the process's CPU (all threads) with nothing changing, over two windows of BENCH_IDLE_S
 *   seconds (10) one after the other from a second after ready: the first still holds the garbage
 *   collection of the scan, the second is the steady state the target is checked against;
 * - save latency: from a write of a page to the onChange that names it, median of 20 saves in
 *   different spaces; the session's 300 ms debounce is part of it and printed apart;
 * - events the sync needs: a rename (both paths in one onChange), a deletion, a new folder with a page
 *   written right away, a folder removed, an editor's save through a temporary file and a rename, and
 *   nothing for a write in `.git`.
 * The floor, in its own child of the same run: an fs.readdir walk of the same tree (time and RSS of
 * holding every path), i.e. what any watcher must at least do to know the tree, and the idle CPU of
 * that process with no watcher (the same two windows).
 *
 * Configurations (BENCH_WATCH_MODES, comma separated; default: default,chokidar,chokidar-lean):
 *   default           the session's source (default-source.ts): @parcel/watcher with its new-folder walk
 *   chokidar          chokidar with the options the session gave it before (atomic, ignoreInitial,
 *                     ignored as a function); still the fallback and the polling source
 *   chokidar-lean     atomic and alwaysStat off (the options chokidar has that change its per-file cost)
 *   chokidar-dirs     every file ignored, so chokidar watches folders only (and reports no file: the
 *                     checks fail; it shows what watching folders rather than files would cost)
 *   chokidar-depth1   depth 1 (folders deeper than that unwatched: the checks fail)
 *   chokidar-awf      awaitWriteFinish (200 ms stability, 100 ms polls of a written file)
 *   chokidar-polling  usePolling (network drives), chokidar's default 100 ms interval
 *   node-recursive    Node's own fs.watch(dir, { recursive: true }) (Node 20 on Linux: a watch per file)
 *   parcel            @parcel/watcher through parcel-source.ts (as default, without the loader)
 *
 *   npm run bench:watch     BENCH_WATCH_FILES=20000 BENCH_WATCH_MODES=default,chokidar npm run bench:watch
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { chokidarSource } from '../src/main/engine/watch/chokidar-source'
import { defaultSource, loadParcel } from '../src/main/engine/watch/default-source'
import type { FileEventSourceFactory } from '../src/main/engine/watch/event-source'
import { parcelSource } from '../src/main/engine/watch/parcel-source'
import { DEFAULT_DEBOUNCE_MS, WorkspaceWatcher } from '../src/main/engine/watch/watcher'

const PAGES_PER_SPACE = 1000
const SIZES = (process.env.BENCH_WATCH_FILES ?? '20000,100000').split(',').map(Number)
const MODES = (process.env.BENCH_WATCH_MODES ?? 'default,chokidar,chokidar-lean').split(',')
const IDLE_S = Number(process.env.BENCH_IDLE_S ?? 10)
const SAVES = 20
const TARGET_IDLE_CPU_PCT = 0.5
const TARGET_RSS_MB = 150
const MB = 1024 * 1024

interface ChildReport {
  mode: string
  readyMs?: number
  readyCpuMs?: number
  walkMs?: number
  rssBeforeMb: number
  rssDeltaMb: number
  heapDeltaMb: number
  peakRssMb: number
  /** The two idle windows, one after the other. */
  idleCpuPct?: [number, number]
  latencyMs?: number
  checks?: Record<string, boolean>
  skipped?: string
}

// ---------------------------------------------------------------------------------------------- tree

function spaceFolder(root: string, space: number) {
  return path.join(root, `space-${String(space).padStart(3, '0')}`)
}

function pagePath(space: number, page: number) {
  const group = Math.floor(page / 100)
  const sub = Math.floor(page / 10) % 10
  return `group-${group}/section-${sub}/page-${page}.md`
}

async function generate(root: string, files: number) {
  const spaces = Math.ceil(files / PAGES_PER_SPACE)
  const jobs: (() => Promise<void>)[] = []
  for (let s = 0; s < spaces; s++) {
    const folder = spaceFolder(root, s)
    for (let g = 0; g < 10; g++) for (let d = 0; d < 10; d++) fs.mkdirSync(path.join(folder, `group-${g}`, `section-${d}`), { recursive: true })
    fs.mkdirSync(path.join(folder, '.git', 'objects'), { recursive: true })
    for (let i = 0; i < 20; i++) jobs.push(() => fs.promises.writeFile(path.join(folder, '.git', 'objects', `o${i}`), 'x'))
    for (let p = 0; p < PAGES_PER_SPACE; p++) {
      jobs.push(() => fs.promises.writeFile(path.join(folder, pagePath(s, p)), `# Page ${p}\n\nSome text of page ${p} in space ${s}.\n`))
    }
  }
  let next = 0
  await Promise.all(
    Array.from({ length: 32 }, async () => {
      while (next < jobs.length) await jobs[next++]()
    }),
  )
  return spaces
}

// --------------------------------------------------------------------------------------------- child

function gc() {
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  collect?.()
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function memory() {
  gc()
  const m = process.memoryUsage()
  return { rss: m.rss, heap: m.heapUsed + m.external + m.arrayBuffers }
}

/** Node's own recursive fs.watch, adapted to a source (for measuring only). */
function nodeRecursiveSource(): FileEventSourceFactory {
  return (options) => {
    const watchers: fs.FSWatcher[] = []
    return {
      async start() {
        for (const folder of options.folders) {
          const watcher = fs.watch(folder, { recursive: true }, (type, name) => {
            if (!name) return
            const full = path.join(folder, name.toString())
            if (options.ignored(full)) return
            if (type === 'change') return options.onEvent('change', full)
            fs.stat(full, (error) => options.onEvent(error ? 'unlink' : 'add', full))
          })
          watcher.on('error', options.onError)
          watchers.push(watcher)
        }
      },
      async close() {
        for (const watcher of watchers) watcher.close()
      },
    }
  }
}

async function sourceFor(mode: string): Promise<FileEventSourceFactory | string> {
  if (mode === 'default') return defaultSource()
  if (mode === 'chokidar') return chokidarSource()
  if (mode === 'chokidar-lean') {
    return chokidarSource({ overrides: { atomic: false, alwaysStat: false } })
  }
  // Measured to see whether any chokidar option reaches the targets (the checks say what each loses).
  if (mode === 'chokidar-dirs') {
    // Directories only: every file ignored, so chokidar holds no handle per file (and reports no file).
    return chokidarSource({ overrides: { atomic: false, alwaysStat: false, ignored: (_p: string, stats?: fs.Stats) => stats?.isFile() ?? false } })
  }
  if (mode === 'chokidar-depth1') return chokidarSource({ overrides: { depth: 1 } })
  if (mode === 'chokidar-awf') return chokidarSource({ overrides: { awaitWriteFinish: { stabilityThreshold: 200, pollInterval: 100 } } })
  if (mode === 'chokidar-polling') return chokidarSource({ usePolling: true })
  if (mode === 'node-recursive') return nodeRecursiveSource()
  if (mode === 'parcel') {
    return loadParcel().then(parcelSource, (error: unknown) => `@parcel/watcher cannot be loaded: ${String(error)}`)
  }
  throw new Error(`unknown mode ${mode}`)
}

/** The process's CPU (all threads) over BENCH_IDLE_S seconds, as a percentage of one core. */
async function idleWindow() {
  const cpu = process.cpuUsage()
  const windowStart = performance.now()
  await sleep(IDLE_S * 1000)
  const used = process.cpuUsage(cpu)
  return ((used.user + used.system) / 1000 / (performance.now() - windowStart)) * 100
}

async function walk(folder: string, into: string[]) {
  for (const entry of await fs.promises.readdir(folder, { withFileTypes: true })) {
    const full = path.join(folder, entry.name)
    into.push(full)
    if (entry.isDirectory()) await walk(full, into)
  }
}

async function runFloor(root: string): Promise<ChildReport> {
  const before = memory()
  const started = performance.now()
  const paths: string[] = []
  await walk(root, paths)
  const walkMs = performance.now() - started
  const after = memory()
  // The same process doing nothing (still holding the paths): what idle costs without any watcher.
  await sleep(1000)
  const idleCpuPct: [number, number] = [await idleWindow(), await idleWindow()]
  return {
    mode: 'floor (readdir walk)',
    walkMs,
    idleCpuPct,
    rssBeforeMb: before.rss / MB,
    rssDeltaMb: (after.rss - before.rss) / MB,
    heapDeltaMb: (after.heap - before.heap) / MB,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
  }
}

/** Resolves with the first onChange call whose paths match (within `ms`), or undefined. */
type Waiter = (match: string[] | ((paths: string[]) => boolean), ms?: number) => Promise<string[] | undefined>

async function runWatcher(mode: string, root: string, spaces: number): Promise<ChildReport> {
  const source = await sourceFor(mode)
  if (typeof source === 'string') return { mode, skipped: source, rssBeforeMb: 0, rssDeltaMb: 0, heapDeltaMb: 0, peakRssMb: 0 }
  const calls: { spaceId: string; paths: string[] }[] = []
  let notify = () => {}
  const watched = Array.from({ length: spaces }, (_, s) => ({ spaceId: `s${s}`, folder: spaceFolder(root, s) }))
  const watcher = new WorkspaceWatcher({
    spaces: watched,
    source,
    onChange: (spaceId, paths) => {
      calls.push({ spaceId, paths })
      notify()
    },
    onError: (error) => console.error(`${mode}: ${String(error)}`),
  })
  const waitFor: Waiter = async (match, ms = 5000) => {
    const matches = typeof match === 'function' ? match : (paths: string[]) => match.every((w) => paths.includes(w))
    const deadline = performance.now() + ms
    for (;;) {
      const hit = calls.find((c) => matches(c.paths))
      if (hit) return hit.paths
      const left = deadline - performance.now()
      if (left <= 0) return undefined
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left)
        notify = () => {
          clearTimeout(timer)
          resolve()
        }
      })
    }
  }

  await sleep(200)
  const before = memory()
  const cpu0 = process.cpuUsage()
  const started = performance.now()
  await watcher.start()
  const readyMs = performance.now() - started
  const readyCpu = process.cpuUsage(cpu0)
  await sleep(1000)
  const after = memory()

  const idleCpuPct: [number, number] = [await idleWindow(), await idleWindow()]

  const latencies: number[] = []
  for (let i = 0; i < SAVES; i++) {
    const s = (i * 7) % spaces
    const relative = pagePath(s, (i * 37) % PAGES_PER_SPACE)
    calls.length = 0
    const at = performance.now()
    await fs.promises.writeFile(path.join(spaceFolder(root, s), relative), `# Saved ${i}\n`)
    if (await waitFor([relative])) latencies.push(performance.now() - at)
    await sleep(50)
  }
  latencies.sort((a, b) => a - b)

  const checks = await eventChecks(spaceFolder(root, 0), (wanted, ms) => {
    calls.length = 0
    return waitFor(wanted, ms)
  }, () => calls.flatMap((c) => c.paths))
  await watcher.close()
  return {
    mode,
    readyMs,
    readyCpuMs: (readyCpu.user + readyCpu.system) / 1000,
    rssBeforeMb: before.rss / MB,
    rssDeltaMb: (after.rss - before.rss) / MB,
    heapDeltaMb: (after.heap - before.heap) / MB,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    idleCpuPct,
    latencyMs: latencies.length === SAVES ? latencies[SAVES / 2] : undefined,
    checks: { ...checks, [`${SAVES} saves seen`]: latencies.length === SAVES },
  }
}

/** The events the sync needs, in space 0 (each check starts from no recorded call). */
async function eventChecks(folder: string, expect: Waiter, seen: () => string[]) {
  const at = (relative: string) => path.join(folder, relative)
  const checks: Record<string, boolean> = {}

  const renamed = expect(['group-1/section-1/page-111.md', 'group-1/section-1/moved.md'])
  await fs.promises.rename(at('group-1/section-1/page-111.md'), at('group-1/section-1/moved.md'))
  checks['rename: both paths in one onChange'] = (await renamed) !== undefined

  const deleted = expect(['group-2/section-2/page-222.md'])
  await fs.promises.rm(at('group-2/section-2/page-222.md'))
  checks['deletion'] = (await deleted) !== undefined

  const created = expect(['new-folder/deeper/new.md'])
  await fs.promises.mkdir(at('new-folder/deeper'), { recursive: true })
  await fs.promises.writeFile(at('new-folder/deeper/new.md'), '# New\n')
  checks['new folder, page written at once'] = (await created) !== undefined

  const later = expect(['new-folder/deeper/later.md'])
  await sleep(300)
  await fs.promises.writeFile(at('new-folder/deeper/later.md'), '# Later\n')
  checks['page added later in the new folder'] = (await later) !== undefined

  const atomic = expect(['group-3/section-3/page-333.md'])
  await fs.promises.writeFile(at('group-3/section-3/page-333.md.tmp'), '# Saved through a temp file\n')
  await fs.promises.rename(at('group-3/section-3/page-333.md.tmp'), at('group-3/section-3/page-333.md'))
  checks['save through temp file + rename'] = (await atomic) !== undefined && !seen().some((p) => p.endsWith('.tmp'))

  const folderGone = expect((paths) => paths.some((p) => p === 'group-4' || p.startsWith('group-4/')))
  await fs.promises.rm(at('group-4'), { recursive: true })
  checks['folder removed'] = (await folderGone) !== undefined

  const quiet = expect(['group-5/section-5/page-555.md'])
  await fs.promises.writeFile(at('.git/objects/o1'), 'changed')
  await fs.promises.writeFile(at('group-5/section-5/page-555.md'), '# Saved\n')
  checks['.git ignored'] = (await quiet) !== undefined && !seen().some((p) => p.startsWith('.git'))
  return checks
}

async function child(job: { mode: string; root: string; spaces: number }) {
  const report = job.mode === 'floor' ? await runFloor(job.root) : await runWatcher(job.mode, job.root, job.spaces)
  process.stdout.write(`REPORT ${JSON.stringify(report)}\n`)
}

// -------------------------------------------------------------------------------------------- parent

function runChild(job: { mode: string; root: string; spaces: number }): Promise<ChildReport> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--expose-gc', '--import', 'tsx', fileURLToPath(import.meta.url), 'child', JSON.stringify(job)], {
      stdio: ['ignore', 'pipe', 'inherit'],
    })
    let out = ''
    proc.stdout.on('data', (chunk) => (out += chunk))
    proc.on('error', reject)
    proc.on('exit', (code) => {
      const line = out.split('\n').find((l) => l.startsWith('REPORT '))
      if (code === 0 && line) resolve(JSON.parse(line.slice('REPORT '.length)) as ChildReport)
      else reject(new Error(`${job.mode}: child exited with ${code}\n${out}`))
    })
  })
}

const fixed = (n: number | undefined, digits = 0) => (n === undefined ? '-' : n.toFixed(digits))

const HEADER = ['mode', 'ready ms', 'x walk', 'ready CPU', 'RSS +MB', 'RSS MB', 'heap +MB', 'peak RSS', 'idle CPU %', 'save ms', '- debounce', 'checks']
const WIDTHS = [14, 8, 6, 9, 8, 6, 8, 8, 13, 7, 10, 6]

function printRow(cells: string[]) {
  console.log(`  ${cells.map((cell, i) => cell.padEnd(WIDTHS[i] ?? 0)).join('  ')}`)
}

function printFloor(files: number, floor: ChildReport) {
  const load = os.loadavg().map((l) => l.toFixed(2)).join(' ')
  console.log(`\n${files.toLocaleString('en')} files (${Math.ceil(files / PAGES_PER_SPACE)} spaces), load ${load}`)
  console.log(
    `  floor: readdir walk ${fixed(floor.walkMs)} ms; RSS +${fixed(floor.rssDeltaMb, 1)} MB holding every path ` +
      `(the process held ${fixed(floor.rssBeforeMb)} MB before: node, tsx and the modules); ` +
      `idle CPU with no watcher ${fixed(floor.idleCpuPct?.[0], 2)} / ${fixed(floor.idleCpuPct?.[1], 2)} %`,
  )
  printRow(HEADER)
}

/** One row per configuration, printed as soon as its child is done. */
function printReport(floor: ChildReport, r: ChildReport) {
  if (r.skipped) return printRow([r.mode, `skipped: ${r.skipped}`])
  const failed = Object.entries(r.checks ?? {})
    .filter(([, ok]) => !ok)
    .map(([name]) => name)
  const [firstIdle, steadyIdle] = r.idleCpuPct ?? [undefined, undefined]
  printRow([
    r.mode,
    fixed(r.readyMs),
    r.readyMs !== undefined && floor.walkMs ? `x${(r.readyMs / floor.walkMs).toFixed(1)}` : '-',
    fixed(r.readyCpuMs),
    `${fixed(r.rssDeltaMb, 1)}${r.rssDeltaMb <= TARGET_RSS_MB ? '' : ' !'}`,
    fixed(r.rssBeforeMb + r.rssDeltaMb),
    fixed(r.heapDeltaMb, 1),
    fixed(r.peakRssMb),
    `${fixed(firstIdle, 2)} / ${fixed(steadyIdle, 2)}${(steadyIdle ?? 0) < TARGET_IDLE_CPU_PCT ? '' : ' !'}`,
    fixed(r.latencyMs),
    fixed(r.latencyMs === undefined ? undefined : r.latencyMs - DEFAULT_DEBOUNCE_MS),
    failed.length ? `FAILED: ${failed.join('; ')}` : 'all ok',
  ])
}

function printLegend() {
  console.log(
    `  RSS +MB: after ready and a gc, minus the same process before start(); RSS MB: the process then; peak RSS: its maximum; ` +
      `idle: first / second ${IDLE_S} s window; save ms: write to onChange, median of ${SAVES}, the debounce included`,
  )
  console.log(`  targets: RSS +MB <= ${TARGET_RSS_MB}, idle CPU (second window) < ${TARGET_IDLE_CPU_PCT} % (! marks a miss); load now ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
}

async function main() {
  console.log(`bench:watch on ${os.cpus().length} cores, node ${process.version}, load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  for (const files of SIZES) {
    const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-watch-'))
    try {
      const started = performance.now()
      const spaces = await generate(root, files)
      console.log(`generated ${files.toLocaleString('en')} files in ${spaces} spaces in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      const floor = await runChild({ mode: 'floor', root, spaces })
      printFloor(files, floor)
      for (const mode of MODES) {
        // Each mode edits space 0; start from a fresh copy of it.
        await fs.promises.rm(spaceFolder(root, 0), { recursive: true, force: true })
        await generate(path.join(root, '.space-0'), PAGES_PER_SPACE)
        await fs.promises.rename(spaceFolder(path.join(root, '.space-0'), 0), spaceFolder(root, 0))
        await fs.promises.rm(path.join(root, '.space-0'), { recursive: true, force: true })
        printReport(floor, await runChild({ mode, root, spaces }).catch((error: unknown) => ({ mode, skipped: String(error), rssBeforeMb: 0, rssDeltaMb: 0, heapDeltaMb: 0, peakRssMb: 0 })))
      }
      printLegend()
    } finally {
      fs.rmSync(root, { recursive: true, force: true })
    }
  }
}

if (process.argv[2] === 'child') {
  child(JSON.parse(process.argv[3]!) as { mode: string; root: string; spaces: number }).then(
    () => process.exit(0),
    (error: unknown) => {
      console.error(error)
      process.exit(1)
    },
  )
} else {
  main().catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}

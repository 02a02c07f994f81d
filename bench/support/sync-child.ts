/**
 * The client side of the mirroring benchmarks: a child process that runs what
 * `quire sync --once --space ID --workspace DIR` (or `--org ID`) runs, counting its requests, and reports
 * one JSON line. Children start with the sync processes' V8 flags (src/main/node-flags.ts) and, from
 * compiled.ts, as compiled JavaScript: the process `quire` is.
 */
import { spawn } from 'node:child_process'
import path from 'node:path'
import { SYNC_PROCESS_NODE_FLAGS } from '../../src/main/node-flags'

export interface ChildReport {
  workMs: number
  /** CPU time of the process during the work (user + system, all threads). */
  cpuMs: number
  maxRssKb: number
  requests: Record<string, number>
  pages: number
  bytes: number
  /** Response bytes (Content-Length) of every request. */
  received: number
}

export interface SyncJob {
  home: string
  workspace: string
  /** `--space ID` ... */
  spaceId?: string
  /** ... or `--org ID`. */
  orgId?: string
}

/**
 * Counts every request the process makes by method, path and query; `urls` keeps each one's URL in the
 * order made (for replaying them as a floor).
 */
export function countRequests(): { counts: Record<string, number>; urls: string[]; received: () => number } {
  const counts: Record<string, number> = {}
  const urls: string[] = []
  let received = 0
  const original = globalThis.fetch
  globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const key = `${method} ${url.pathname}${url.search}`
    counts[key] = (counts[key] ?? 0) + 1
    urls.push(url.href)
    const response = await original(input, init)
    received += Number(response.headers.get('content-length') ?? 0)
    return response
  }
  return { counts, urls, received: () => received }
}

export function cpuMsSince(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

export function report(result: object) {
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

/**
 * What `quire sync --once --space ID --workspace DIR` does (syncCommand in src/main/cli/sync-command.ts,
 * step for step), with the gateway's politeness cap lifted so the figure is the engine's cost.
 */
export async function syncChild(job: SyncJob) {
  const requests = countRequests()
  const sampling = sampleMemory()
  await loadCli()
  // From opening the cache on, as before the engine's set-up was shared with bench:scale.
  const started = performance.now()
  const cpu = process.cpuUsage()
  const client = await openCliEngine(job)
  let inSync = false
  try {
    await client.select()
    const pass = await client.engine.pass()
    inSync = pass.inSync
    if (!inSync) process.stderr.write(`${JSON.stringify(pass)}\n`)
  } finally {
    client.close()
  }
  const workMs = performance.now() - started
  sampling?.stop()
  if (!inSync) process.exit(1)
  report({ workMs, cpuMs: cpuMsSince(cpu), maxRssKb: process.resourceUsage().maxRSS, requests: requests.counts, received: requests.received(), pages: 0, bytes: 0 })
}

/** Everything `quire` loads: bin/quire.mjs imports the CLI's main module, every command with it. */
export async function loadCli(): Promise<void> {
  await import('../../src/main/cli/main')
}

export interface CliEngine {
  engine: import('../../src/main/engine/sync/sync-engine').SyncEngine
  cache: import('../../src/main/engine/cache/cache-repository').CacheRepository
  workspace: string
  /** The job's `--space` or `--org`, as `quire sync` applies it (applySelection: resolving or discovering). */
  select(): Promise<void>
  close(): void
}

/**
 * The engine `quire sync` builds (syncCommand in src/main/cli/sync-command.ts: cache and token from
 * QUIRE_HOME, the sync-up hold, the CLI's progress sink, lists handed over from discovery to the pass),
 * after loading everything `quire` loads, so the process holds what a user's does. The gateway's
 * politeness cap is lifted so the figures are the engine's cost. `onRead` counts local reads;
 * `onProgress` sees the engine's progress events too (the CLI's sink still gets them).
 */
export async function openCliEngine(
  job: SyncJob,
  options: { onRead?: (relative: string) => void; onProgress?: (event: import('../../src/main/engine/sync/sync-engine').SyncProgressEvent) => void } = {},
): Promise<CliEngine> {
  process.env.QUIRE_HOME = job.home
  await loadCli()
  const { quirePaths, selectSpaces, signedIn, SyncEngine, WorkspaceStore } = await import('../../src/main/engine')
  const { workspaceHold } = await import('../../src/main/engine/push/hold')
  const { createProgress } = await import('../../src/main/cli/progress')

  const paths = quirePaths()
  const store = WorkspaceStore.open(paths)
  const { cache } = store
  try {
    const { account, gateway } = await signedIn(cache, paths, { intervalCap: 1_000_000 })
    const workspace = store.folder(job.workspace)
    const cliProgress = createProgress({ isTTY: false, write: (text) => process.stderr.write(text), line: (text) => process.stderr.write(`${text}\n`) })
    const engine = new SyncEngine({
      cache,
      account,
      gateway,
      workspace,
      handOverLists: true,
      hold: workspaceHold(cache, store.outbox, workspace),
      onProgress: (event) => {
        cliProgress(event)
        options.onProgress?.(event)
      },
      folder: { onRead: options.onRead },
    })
    const picks = { all: false, spaces: job.spaceId ? [job.spaceId] : [], organizations: job.orgId ? [job.orgId] : [], collections: [] }
    return { engine, cache, workspace, select: () => selectSpaces({ cache, account, gateway, workspace }, picks, { handOverLists: true }), close: () => store.close() }
  } catch (error) {
    store.close()
    throw error
  }
}

/**
 * BENCH_MEMORY_SAMPLE=MS: process.memoryUsage() every MS milliseconds on stderr (rss, heap, external,
 * array buffers, in MB), and the sample at the highest RSS when the work ends.
 */
export function sampleMemory(): { stop(): void } | undefined {
  const every = Number(process.env.BENCH_MEMORY_SAMPLE ?? 0)
  if (!(every > 0)) return undefined
  const started = performance.now()
  let peak: NodeJS.MemoryUsage | undefined
  const line = (label: string, m: NodeJS.MemoryUsage) =>
    `${label} rss ${(m.rss / 2 ** 20).toFixed(0)} heap ${(m.heapUsed / 2 ** 20).toFixed(0)}/${(m.heapTotal / 2 ** 20).toFixed(0)} external ${(m.external / 2 ** 20).toFixed(0)} arrayBuffers ${(m.arrayBuffers / 2 ** 20).toFixed(0)}\n`
  const timer = setInterval(() => {
    const m = process.memoryUsage()
    if (!peak || m.rss > peak.rss) peak = m
    process.stderr.write(line(`memory ${(performance.now() - started).toFixed(0)} ms`, m))
  }, every)
  return {
    stop: () => {
      clearInterval(timer)
      if (peak) process.stderr.write(line('memory at peak', peak))
    },
  }
}

export interface Run extends ChildReport {
  processMs: number
}

/**
 * Runs `script role job` in a child and reads its report: `script` is a bench file (run under tsx) or
 * its compiled entry (compiled.ts: run by plain node, as `quire` runs). BENCH_CPU_PROF=DIR: a CPU
 * profile of every child (node --cpu-prof), BENCH_HEAP_PROF=DIR: a heap profile, to see where time and
 * memory go. BENCH_STRACE=DIR: each child under `strace -f -c`, its system calls counted per thread pool
 * and main thread together (Linux), to see what the work asks of the kernel. `nodeFlags`: more flags
 * after the sync processes' (e.g. --expose-gc for a child that measures memory after a collection).
 */
export function runChild<R extends object = ChildReport>(script: string, role: string, job: unknown, token: string, options: { nodeFlags?: string[] } = {}): Promise<R & { processMs: number }> {
  const started = performance.now()
  const stamp = `${role}-${Date.now()}`
  const profile = [
    ...(process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`, `--cpu-prof-name=${stamp}.cpuprofile`] : []),
    ...(process.env.BENCH_HEAP_PROF ? ['--heap-prof', `--heap-prof-dir=${path.resolve(process.env.BENCH_HEAP_PROF)}`, `--heap-prof-name=${stamp}.heapprofile`] : []),
  ]
  const loader = script.endsWith('.ts') ? ['--import', 'tsx'] : []
  // Started as `quire` starts (bin/quire.mjs's flags), the floor too: the same runtime on both sides.
  const argv = [process.execPath, ...SYNC_PROCESS_NODE_FLAGS, ...(options.nodeFlags ?? []), ...profile, ...loader, path.resolve(script), role, JSON.stringify(job)]
  if (process.env.BENCH_STRACE) argv.unshift('strace', ...(process.env.BENCH_STRACE_PER_THREAD ? ['-ff'] : ['-f', '-c']), '-o', path.join(path.resolve(process.env.BENCH_STRACE), `${stamp}.strace`))
  const child = spawn(argv[0], argv.slice(1), {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_TOKEN: token },
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => {
    const text = chunk.toString()
    err += text
    // The memory samples asked for (BENCH_MEMORY_SAMPLE) are shown as they come.
    if (process.env.BENCH_MEMORY_SAMPLE) for (const line of text.split('\n')) if (line.startsWith('memory ')) process.stdout.write(`  ${role}: ${line}\n`)
  })
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const processMs = performance.now() - started
      const line = out.trim().split('\n').pop() ?? ''
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${role} child failed (exit ${code}):\n${err.slice(-4000)}\n${out.slice(-2000)}`))
      else resolve({ ...(JSON.parse(line) as R), processMs })
    })
  })
}

/** A signed-in QUIRE_HOME for a sync child (a file token store, as the CLI's `login` writes it). */
export async function signedInHome(home: string, origin: string, token: string): Promise<void> {
  const { login, quirePaths } = await import('../../src/main/engine/account/account')
  const { CacheRepository } = await import('../../src/main/engine/cache/cache-repository')
  const { openCacheDatabase } = await import('../../src/main/engine/cache/open-cache')
  const paths = quirePaths({ QUIRE_HOME: home })
  const cache = new CacheRepository(openCacheDatabase(paths.cacheFile))
  try {
    await login(cache, paths, { endpoint: origin, token, tokenStore: 'file' })
  } finally {
    cache.close()
  }
}

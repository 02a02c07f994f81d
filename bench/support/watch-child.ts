/**
 * The workspace watcher in a child process shaped like the sync process (run through runChild: the sync
 * processes' V8 flags, compiled as `quire` runs; give it --expose-gc so memory is read after a
 * collection), over folders a mirror wrote. It starts WorkspaceWatcher as the workspace session does
 * (its default source, debounce and rename window, one folder per space) and reports:
 * - ready: from start() to its promise (the initial scan), and the CPU it took;
 * - RSS: after ready and a gc, minus the same process before start() (modules loaded), and the
 *   process's peak (getrusage maximum);
 * - idle CPU: the process's CPU (all threads) with nothing changing, over two windows of `idleS`
 *   seconds one after the other from a second after ready (the first still holds the scan's garbage
 *   collection; the second is the steady state);
 * - a save seen: one page rewritten, and the time until onChange names its space (the debounce included).
 * bench/watch.ts measures the same over a generated tree, with every configuration and event check.
 */
import fs from 'node:fs'
import path from 'node:path'
import { loadCli, report } from './sync-child'

export interface WatchJob {
  spaces: Array<{ spaceId: string; folder: string }>
  idleS: number
  /** A file of the first space rewritten once the idle windows are over. */
  probe: string
}

export interface WatchReport {
  readyMs: number
  readyCpuMs: number
  rssBeforeMb: number
  rssDeltaMb: number
  peakRssMb: number
  idleCpuPct: [number, number]
  /** Write to onChange, undefined when none came within 10 s. */
  saveMs?: number
}

const MB = 1024 * 1024
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

function rssAfterGc(): number {
  const collect = (globalThis as { gc?: () => void }).gc
  collect?.()
  collect?.()
  return process.memoryUsage().rss
}

/** The process's CPU (all threads) over `seconds`, as a percentage of one core. */
async function cpuPercentOver(seconds: number): Promise<number> {
  const cpu = process.cpuUsage()
  const started = performance.now()
  await sleep(seconds * 1000)
  const used = process.cpuUsage(cpu)
  return ((used.user + used.system) / 1000 / (performance.now() - started)) * 100
}

export async function watchChild(job: WatchJob) {
  // What the session's process has loaded when it starts watching.
  await loadCli()
  const { WorkspaceWatcher } = await import('../../src/main/engine/watch/watcher')
  const changed: string[] = []
  let onChanged = () => {}
  const watcher = new WorkspaceWatcher({
    spaces: job.spaces,
    onChange: (spaceId) => {
      changed.push(spaceId)
      onChanged()
    },
    onError: (error) => process.stderr.write(`watcher: ${String(error)}\n`),
  })
  await sleep(200)
  const before = rssAfterGc()
  const cpu = process.cpuUsage()
  const started = performance.now()
  await watcher.start()
  const readyMs = performance.now() - started
  const readyCpu = process.cpuUsage(cpu)
  await sleep(1000)
  const after = rssAfterGc()
  const idleCpuPct: [number, number] = [await cpuPercentOver(job.idleS), await cpuPercentOver(job.idleS)]

  changed.length = 0
  const seen = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), 10_000)
    onChanged = () => {
      if (!changed.includes(job.spaces[0].spaceId)) return
      clearTimeout(timer)
      resolve(true)
    }
  })
  const saved = performance.now()
  const probe = path.join(job.spaces[0].folder, job.probe)
  await fs.promises.writeFile(probe, `${await fs.promises.readFile(probe, 'utf8')}\nSaved by the bench.\n`)
  const saveMs = (await seen) ? performance.now() - saved : undefined
  await watcher.close()
  const result: WatchReport = {
    readyMs,
    readyCpuMs: (readyCpu.user + readyCpu.system) / 1000,
    rssBeforeMb: before / MB,
    rssDeltaMb: (after - before) / MB,
    peakRssMb: process.resourceUsage().maxRSS / 1024,
    idleCpuPct,
    saveMs,
  }
  report(result)
}

import http from 'node:http'
import { PerformanceObserver } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { expect } from 'vitest'
import { threadCpuMs, watchLoopHolds, type LoopHolds } from '../../support/loop-turns'
import type { ApiResponse, TestService } from '../../support/service'

export interface BesideBigRequest<R = ApiResponse> {
  res: R
  duration: number
  /** Each small request's wait, in ms. */
  waits: number[]
  /** The event loop's holds over the big request (undefined where thread CPU time cannot be read). */
  holds?: LoopHolds
  /** The longest hold's CPU less the collector's pauses in it, in ms (see watchOwnHolds). */
  worstOwnCpuMs?: number
}

export interface BesideOptions {
  /**
   * A pause between two small requests, in ms (default none: back to back). Back to back, their garbage
   * has the collector run a full mark-compact every few seconds, 5-50 ms of CPU each on a loaded machine,
   * which no change to the big request moves: a bound on the longest hold below that needs them paced.
   */
  paceMs?: number
}

/**
 * Resolves once the event loop's thread has spent less than a tenth of a quarter of a second on the CPU:
 * a service started without response checks loads its request validators after `listen`, compiled in a
 * worker and one module a turn (http/server.ts `warmValidators`), and those turns are not the big request's.
 */
export async function untilLoopQuiet(timeoutMs = 60_000): Promise<void> {
  const deadline = performance.now() + timeoutMs
  while (performance.now() < deadline) {
    const watch = watchLoopHolds()
    if (!watch) return
    await sleep(250)
    const { totalCpuMs, wallMs } = watch.stop()
    if (totalCpuMs < wallMs / 10) return
  }
  throw new Error(`the event loop was not quiet for 250 ms within ${timeoutMs} ms`)
}

/**
 * Sends `GET /user` one after another until `big` settles: the big request's answer, its duration and the
 * small ones' waits. `big` is a function, called once the loop is quiet (see untilLoopQuiet).
 */
export async function besideBigRequest<R = ApiResponse>(t: TestService, send: () => Promise<R>, options: BesideOptions = {}): Promise<BesideBigRequest<R>> {
  await untilLoopQuiet()
  // The client's first request in a test file loads undici's modules: 20 ms in one turn, not the service's.
  expect((await t.api.raw('GET', '/user')).status).toBe(200)
  const own = watchOwnHolds()
  const big = send()
  const watch = watchLoopHolds()
  let done = false
  const started = performance.now()
  const timed = big.finally(() => (done = true)).then((res) => ({ res, duration: performance.now() - started }))
  const waits: number[] = []
  while (!done) {
    const sent = performance.now()
    const res = await t.api.raw('GET', '/user')
    expect(res.status).toBe(200)
    waits.push(performance.now() - sent)
    if (options.paceMs) await sleep(options.paceMs)
  }
  const holds = watch?.stop()
  const worstOwnCpuMs = await own?.stop()
  return { ...(await timed), waits, holds, worstOwnCpuMs }
}

/**
 * Watches the event loop's turns as watchLoopHolds does, and the garbage collector's pauses: resolves
 * with the most CPU a turn took less the collector's pauses within it (their wall time, which is at least
 * their CPU). The collector pauses for all the process's garbage, most of it here the small requests'
 * and the test's own: in a vitest worker, scavenges and mark-compacts of 15-25 ms CPU came every few
 * seconds beside any request on a loaded machine. What is left is the service's own work in one turn.
 */
function watchOwnHolds(): { stop(): Promise<number> } | undefined {
  if (threadCpuMs() === undefined) return undefined
  const turns: Array<{ cpuMs: number; from: number; to: number }> = []
  const pauses: Array<{ from: number; to: number }> = []
  const observer = new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) pauses.push({ from: entry.startTime, to: entry.startTime + entry.duration })
  })
  observer.observe({ entryTypes: ['gc'] })
  let lastCpu = threadCpuMs() as number
  let lastWall = performance.now()
  const tick = (): void => {
    const cpu = threadCpuMs() as number
    const wall = performance.now()
    // Turns of a few ms are never the worst one: not kept.
    if (cpu - lastCpu > 2) turns.push({ cpuMs: cpu - lastCpu, from: lastWall, to: wall })
    lastCpu = cpu
    lastWall = wall
  }
  const timer = setInterval(tick, 1)
  return {
    async stop() {
      clearInterval(timer)
      tick()
      // The collector's entries are delivered a turn or two later.
      for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve))
      observer.disconnect()
      const pausedIn = (turn: { from: number; to: number }) => pauses.reduce((sum, pause) => sum + Math.max(0, Math.min(pause.to, turn.to) - Math.max(pause.from, turn.from)), 0)
      return turns.reduce((worst, turn) => Math.max(worst, turn.cpuMs - pausedIn(turn)), 0)
    },
  }
}

/** An answer's bytes as they came, in the chunks they came in: not joined, decoded nor parsed. */
export interface RawAnswer {
  status: number
  chunks: Buffer[]
}

/**
 * `GET path` read without joining, decoding or parsing the answer. The test runs on the service's thread:
 * decoding and parsing a 16 MB answer there is one turn of 50-150 ms of the test's own, which a stall
 * check around the request would count as the service's (do it after, from `chunks`).
 */
export function rawAnswer(t: TestService, path: string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    http
      .get(`${t.api.baseUrl}${path}`, { headers: { Authorization: `Bearer ${t.api.token}` } }, (res) => {
        const chunks: Buffer[] = []
        res.on('data', (chunk: Buffer) => chunks.push(chunk))
        res.on('end', () => resolve({ status: res.statusCode ?? 0, chunks }))
        res.on('error', reject)
      })
      .on('error', reject)
  })
}

/** The largest share of the request's CPU on the event loop's thread that one hold of the loop may take. */
const MAX_HOLD_SHARE = 0.2

/**
 * Answered throughout, and no turn of the event loop held for a large share of the big request's work on
 * it (and, given `maxHoldCpuMs`, for no longer than that). Both sides are CPU time of the thread the
 * service runs on (this process's main thread), measured in the same run: a busy machine stretches
 * wall-clock waits, not the CPU a turn takes (two `yes` loops on 2 cores: waits of 200-900 ms, holds as on
 * a quiet machine). Listed in one turn, a 5 MB page's links held the loop for 60 % of the read's CPU here
 * and 22-30 % of the edit's; spread over turns, 5-6 % and 9-12 %.
 */
export function expectNoStall({ duration, waits, holds, worstOwnCpuMs }: BesideBigRequest<unknown>, options: { maxHoldCpuMs?: number } = {}): void {
  // Not Math.max(...waits): a long request sees hundreds of thousands of them.
  const worst = waits.reduce((most, wait) => Math.max(most, wait), 0)
  const seen = `${waits.length} small requests in ${duration.toFixed(0)} ms, worst wait ${worst.toFixed(0)} ms`
  expect(waits.length, seen).toBeGreaterThanOrEqual(10)
  if (!holds) {
    // No thread CPU time here (not Linux): wall-clock only, a stall as long as the request itself.
    expect(worst, seen).toBeLessThan(duration / 2)
    return
  }
  const held = `${seen}; longest hold ${holds.worstCpuMs.toFixed(1)} ms CPU (${holds.worstWallMs.toFixed(0)} ms wall) of ${holds.totalCpuMs.toFixed(0)} ms CPU on the thread, ${worstOwnCpuMs?.toFixed(1)} ms without the collector's pauses`
  expect(holds.worstCpuMs, held).toBeLessThan(holds.totalCpuMs * MAX_HOLD_SHARE)
  if (options.maxHoldCpuMs !== undefined) expect(holds.worstCpuMs, held).toBeLessThan(options.maxHoldCpuMs)
}

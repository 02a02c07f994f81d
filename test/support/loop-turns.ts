/**
 * How long this thread's event loop is held between two turns of a 1 ms timer, in CPU time of the thread
 * itself (Linux: /proc/self/task/<pid>/schedstat, nanoseconds on a CPU). Wall-clock waits grow with the
 * machine's load (a busy 2-core machine leaves a runnable thread waiting for a core), CPU time does not
 * much: a stall test that bounds the CPU of the longest hold holds whether the CPU is busy or not.
 * Vitest runs tests in forks, so the test's thread is its process's main thread, where the in-process
 * service's event loop runs too.
 */
import fs from 'node:fs'

const SCHEDSTAT = `/proc/self/task/${process.pid}/schedstat`

/** CPU time this (main) thread has used, in ms; undefined where the kernel does not say. */
export function threadCpuMs(): number | undefined {
  try {
    return Number(fs.readFileSync(SCHEDSTAT, 'utf8').split(' ')[0]) / 1e6
  } catch {
    return undefined
  }
}

export interface LoopHolds {
  /** The most CPU the thread used between two consecutive turns of the timer, in ms. */
  worstCpuMs: number
  /** The longest wall-clock time between two consecutive turns of the timer, in ms. */
  worstWallMs: number
  /** CPU time of the thread over the whole watch, in ms. */
  totalCpuMs: number
  wallMs: number
}

/** Starts watching; `stop()` returns what was seen. Undefined where thread CPU time cannot be read. */
export function watchLoopHolds(): { stop(): LoopHolds } | undefined {
  const first = threadCpuMs()
  if (first === undefined) return undefined
  const started = performance.now()
  let lastCpu = first
  let lastWall = started
  let worstCpuMs = 0
  let worstWallMs = 0
  const tick = (): void => {
    const cpu = threadCpuMs()!
    const wall = performance.now()
    worstCpuMs = Math.max(worstCpuMs, cpu - lastCpu)
    worstWallMs = Math.max(worstWallMs, wall - lastWall)
    lastCpu = cpu
    lastWall = wall
  }
  const timer = setInterval(tick, 1)
  return {
    stop() {
      clearInterval(timer)
      tick()
      return { worstCpuMs, worstWallMs, totalCpuMs: threadCpuMs()! - first, wallMs: performance.now() - started }
    },
  }
}

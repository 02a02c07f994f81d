/**
 * What the benchmarks share: the real `quire service` in its own process (with its peak RSS), medians,
 * the machine's load, verdicts.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

export interface BenchService {
  baseUrl: string
  origin: string
  pid: number
  /** The service process's peak resident set so far (the kernel's VmHWM), in kB; undefined where /proc has none. */
  peakRssKb(): number | undefined
  stop(): void
}

/**
 * `quire service` (the compiled CLI, as a user runs it) on a free port over `dataDir`, answering `token`.
 * BENCH_SERVICE_PROF=DIR: a CPU profile of the service (written when it stops).
 */
export async function startService(dataDir: string, token: string): Promise<BenchService> {
  const profile = process.env.BENCH_SERVICE_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_SERVICE_PROF)}`] : []
  const child = spawn(process.execPath, [...profile, path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--token', token], { stdio: ['ignore', 'pipe', 'pipe'] })
  // The one warning `--token` prints is expected; anything else is shown.
  readline.createInterface({ input: child.stderr }).on('line', (line) => {
    if (!line.includes('--token puts the token')) process.stderr.write(`${line}\n`)
  })
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    readline.createInterface({ input: child.stdout }).once('line', resolve)
  })
  const [baseUrl] = first.split(' token=')
  const pid = child.pid!
  return { baseUrl, origin: baseUrl.replace(/\/v1$/, ''), pid, peakRssKb: () => procStatusKb(pid, 'VmHWM'), stop: () => child.kill('SIGTERM') }
}

/** A field of /proc/PID/status in kB (VmHWM: peak RSS, VmRSS: current), undefined off Linux. */
export function procStatusKb(pid: number, field: 'VmHWM' | 'VmRSS'): number | undefined {
  try {
    const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(fs.readFileSync(`/proc/${pid}/status`, 'utf8'))
    return match ? Number(match[1]) : undefined
  } catch {
    return undefined
  }
}

export const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
export const mb = (kb: number) => kb / 1024
export const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' ')
export const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')

/**
 * Start-up of the CLI as a user runs it (`node bin/quire.mjs`, i.e. the compiled CLI of
 * scripts/build-cli.mjs): `quire --help` and `quire status` over a real cache (QUIRE_HOME in a temporary
 * folder, signed in to the embedded demo service and synced, the service stopped again: status reads
 * the cache only), versus a floor measured in the same run, `node -e 0`: what any Node program pays to
 * start. Rounds alternate between the three; medians of BENCH_ROUNDS (10) are printed, with their ratio
 * to the floor and the target (300 ms). Also printed: the freshness check every start makes (in process),
 * and, once, the sources run through tsx (QUIRE_CLI_TSX=1) as the CLI did before it was compiled.
 *
 *   npm run bench:cli            BENCH_ROUNDS=20 npm run bench:cli
 */
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { buildCli, freshCliEntry } from '../scripts/build-cli.mjs'

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 10)
const TSX_ROUNDS = Number(process.env.BENCH_TSX_ROUNDS ?? 3)
const TARGET_MS = 300
const bin = path.resolve('bin/quire.mjs')

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]

function run(args: string[], env: NodeJS.ProcessEnv): string {
  const result = spawnSync(process.execPath, args, { env, encoding: 'utf8' })
  if (result.status !== 0) throw new Error(`node ${args.join(' ')} exited ${result.status}: ${result.stderr}`)
  return result.stdout
}

/**
 * CPU time (user + system) of this process's finished children, in ms: Linux's /proc/self/stat, in clock
 * ticks (100 a second); undefined elsewhere. Wall time on a busy machine mostly measures the wait for a
 * CPU; this does not.
 */
function childrenCpuMs(): number | undefined {
  try {
    const fields = fs.readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ')
    return (Number(fields[13]) + Number(fields[14])) * 10 // cutime, cstime (fields 16 and 17)
  } catch {
    return undefined
  }
}

interface Sample {
  wallMs: number
  cpuMs: number | undefined
}

function timed(args: string[], env: NodeJS.ProcessEnv): Sample {
  const cpuBefore = childrenCpuMs()
  const started = performance.now()
  run(args, env)
  const wallMs = performance.now() - started
  const cpuAfter = childrenCpuMs()
  return { wallMs, cpuMs: cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore }
}

/**
 * A start of the built CLI as it is when nothing changed: built first (untimed) when stale, and taken again
 * when a source file changed while it ran (it then paid for a rebuild), as happens in a shared tree.
 */
async function timedBuilt(args: string[], env: NodeJS.ProcessEnv): Promise<Sample> {
  for (;;) {
    const entry = freshCliEntry() ?? (await buildCli())
    const sample = timed(args, env)
    if (freshCliEntry() === entry) return sample
  }
}

const medianWall = (samples: Sample[]) => median(samples.map((s) => s.wallMs))
/** The mean, not the median: one start is a few clock ticks, so single samples are too coarse. */
const meanCpu = (samples: Sample[]) => (samples.some((s) => s.cpuMs === undefined) ? undefined : samples.reduce((sum, s) => sum + s.cpuMs!, 0) / samples.length)

/** A QUIRE_HOME signed in to the demo service with its 3 spaces synced; the service stopped afterwards. */
async function homeWithCache(root: string): Promise<NodeJS.ProcessEnv> {
  const home = path.join(root, 'home')
  const env = { ...process.env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file', QUIRE_CLI_TSX: undefined }
  const service = spawn(process.execPath, [bin, 'service', '--port', '0', '--data', path.join(root, 'service'), '--demo'], { stdio: ['ignore', 'pipe', 'inherit'] })
  try {
    const first = await new Promise<string>((resolve) => readline.createInterface({ input: service.stdout }).once('line', resolve))
    const [baseUrl, token] = first.split(' token=')
    run([bin, 'login', '--endpoint', baseUrl], { ...env, QUIRE_TOKEN: token })
    run([bin, 'sync', '--once', '--all', '--workspace', path.join(root, 'workspace')], env)
  } finally {
    service.kill('SIGTERM')
  }
  return env
}

function row(name: string, samples: Sample[], floor: Sample[], target = true): string {
  const [ms, floorMs] = [medianWall(samples), medianWall(floor)]
  const verdict = target ? `   ≤ ${TARGET_MS} ms: ${ms <= TARGET_MS ? 'yes' : 'NO'}` : ''
  const [cpu, floorCpu] = [meanCpu(samples), meanCpu(floor)]
  const cpuText = cpu === undefined || !floorCpu ? '' : `   cpu ${cpu.toFixed(0).padStart(4)} ms ${(cpu / floorCpu).toFixed(2).padStart(5)} × floor`
  return `${name.padEnd(30)} ${ms.toFixed(0).padStart(6)} ms ${(ms / floorMs).toFixed(2).padStart(5)} × floor${cpuText}${verdict}`
}

const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-cli-'))
try {
  if (!freshCliEntry()) await buildCli() // timing starts with a fresh build, as after npm ci
  const env = await homeWithCache(root)
  const status = run([bin, 'status'], env)
  if (!/in sync/.test(status)) throw new Error(`quire status does not show a synced cache:\n${status}`)

  const floor: Sample[] = []
  const help: Sample[] = []
  const statusTimes: Sample[] = []
  for (let round = 0; round < ROUNDS; round++) {
    floor.push(timed(['-e', '0'], env))
    help.push(await timedBuilt([bin, '--help'], env))
    statusTimes.push(await timedBuilt([bin, 'status'], env))
  }
  const checks: number[] = []
  for (let i = 0; i < 50; i++) {
    const started = performance.now()
    freshCliEntry()
    checks.push(performance.now() - started)
  }
  const tsxEnv = { ...env, QUIRE_CLI_TSX: '1' }
  const tsxHelp = Array.from({ length: TSX_ROUNDS }, () => timed([bin, '--help'], tsxEnv))
  const tsxStatus = Array.from({ length: TSX_ROUNDS }, () => timed([bin, 'status'], tsxEnv))

  const [load1] = os.loadavg()
  const floorCpu = meanCpu(floor)
  console.log(`CLI start-up: wall time median of ${ROUNDS}, CPU time (user+system) mean; load ${load1.toFixed(2)} on ${os.availableParallelism()} CPUs`)
  console.log(`${'floor: node -e 0'.padEnd(30)} ${medianWall(floor).toFixed(0).padStart(6)} ms${floorCpu === undefined ? '' : `               cpu ${floorCpu.toFixed(0).padStart(4)} ms`}`)
  console.log(row('quire --help', help, floor))
  console.log(row('quire status (3 spaces)', statusTimes, floor))
  console.log(`${'freshness check (in process)'.padEnd(30)} ${median(checks).toFixed(2).padStart(6)} ms (stats of the build's sources, every start)`)
  console.log(`through tsx (before), ${TSX_ROUNDS} runs:`)
  console.log(row('  quire --help via tsx', tsxHelp, floor, false))
  console.log(row('  quire status via tsx', tsxStatus, floor, false))
} finally {
  fs.rmSync(root, { recursive: true, force: true })
}

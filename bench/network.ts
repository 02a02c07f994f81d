/**
 * bench:network (issue 26): a first mirror by `quire sync --once` as a writer runs it (the compiled CLI,
 * no lifted caps) against `quire service --hosted` (pages one by one, files from a file host, its rate
 * limit), through a shaped network (80 ms round trip, 50 Mbit/s each way, one extra round trip per new
 * connection), on a generated space shaped like a large real tree (800 pages, 300 files, nested five
 * deep), beside `git clone` of the same tree over git's smart HTTP through the same network.
 *
 * Each figure is printed with its floor and their ratio. The mirror's floor: one connection's set-up plus
 * the largest of three lower bounds, since they overlap: the API's fewest requests (the tree, each page)
 * at the pace its rate limit allows (the file host's downloads do not count against it, as on the hosted
 * service), every request (files too) a round trip with at most the gateway's 16 in flight, and the bytes
 * that went over the link / bandwidth. git clone's: its two requests on one connection plus the pack's
 * bytes / bandwidth. The verdict: first mirror within 1.3x its floor.
 *
 * BENCH_NETWORK_PAGES, BENCH_NETWORK_FILES, BENCH_NETWORK_RTT_MS, BENCH_NETWORK_MBIT change the shape.
 *
 * `npm run bench:network -- spaces`: the first sync of many spaces, `quire sync --once --org ID` through
 * the same network against the same service: BENCH_NETWORK_SPACES spaces (50) of BENCH_NETWORK_SPACE_PAGES
 * pages (100) and BENCH_NETWORK_SPACE_FILES files (0). Its floor: the fewest requests (the organization's
 * lists, then each space's tree, pages and files) at the most in flight that the rate limit lets through
 * at this round trip (and the gateway's 16 allow) or the bytes / bandwidth, whichever is larger, plus a connection. The same
 * sync with spaces one after another (QUIRE_SPACE_CONCURRENCY=1, as before issue 31) is printed beside
 * it unless BENCH_NETWORK_SERIAL=0. The verdict: within 1.5x the floor.
 */
import { execFileSync, spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { serveGitOverHttp } from '../test/support/git-http'
import { screenshotSizes, seedSpace, seedSpaces } from './support/generated-space'
import { load, verdict } from './support/run'
import { Network, type NetworkShape } from './support/shaped-proxy'
import { shapedHostedService } from './support/shaped-hosted'
import { HOSTED_RATE_LIMIT } from '../src/main/service/local-service'
import { parseRateLimit } from '../src/main/service/http/rate-limit'

const PAGES = Number(process.env.BENCH_NETWORK_PAGES ?? 800)
const FILES = Number(process.env.BENCH_NETWORK_FILES ?? 300)
const SHAPE: NetworkShape = { rttMs: Number(process.env.BENCH_NETWORK_RTT_MS ?? 80), bitsPerSecond: Number(process.env.BENCH_NETWORK_MBIT ?? 50) * 1e6, extraConnectRtts: 1 }
const MAX_RATIO = 1.3
const TOKEN = 'qs_bench-network-token-0123456789'
const bin = path.resolve('bin/quire.mjs')
const RATE_ARGS = process.env.BENCH_NETWORK_RATE ? ['--rate-limit', process.env.BENCH_NETWORK_RATE] : []

/** Runs the CLI with QUIRE_HOME=home (and `env`); its wall time in ms. */
function quire(home: string, args: string[], env: Record<string, string> = {}): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    // BENCH_CPU_PROF=<dir>: each quire run leaves a CPU profile there (where a figure's time goes).
    const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', '--cpu-prof-dir', process.env.BENCH_CPU_PROF] : []
    const child = spawn(process.execPath, [...profile, bin, ...args], { stdio: ['ignore', 'pipe', 'inherit'], env: { ...process.env, ...env, QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file' } })
    let out = ''
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`quire ${args[0]} exited ${code}: ${out}`))))
  })
}

/** `git clone` in a child, the event loop free meanwhile (the proxy and the git server run in this process). */
function timedAsync(command: string, args: string[], cwd: string): Promise<number> {
  const started = performance.now()
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1' } })
    child.once('exit', (code) => (code === 0 ? resolve(performance.now() - started) : reject(new Error(`${command} ${args[0]} exited ${code}`))))
  })
}

function timed(command: string, args: string[], cwd: string): number {
  const started = performance.now()
  execFileSync(command, args, { cwd, stdio: 'ignore', env: { ...process.env, GIT_CONFIG_GLOBAL: os.devNull, GIT_CONFIG_NOSYSTEM: '1' } })
  return performance.now() - started
}

const NEXT_PASS_RATIO = 1.5
const NEXT_PASS_REQUESTS = 4
const NEXT_PASS_BYTES = 100 * 1024

/** What went through the network while `fn` ran: bytes down, requests, connections. */
async function measured<T>(network: Network, fn: () => Promise<T>): Promise<{ value: T; down: number; requests: number; connections: number }> {
  const before = { down: network.down.bytes, requests: network.requests, connections: network.connections }
  const value = await fn()
  return { value, down: network.down.bytes - before.down, requests: network.requests - before.requests, connections: network.connections - before.connections }
}

/**
 * Edits one page of the space on the service (a change request merged, straight to the service: not
 * measured), times the writer's next pass through the network, then commits the same file to the git
 * repository (pushed locally) and times `git pull` of it through the same network.
 */
async function nextPassAfterOnePage(o: { network: Network; servicePort: number; spaceId: string; home: string; folder: string; work: string; repos: string; clone: string; gitOrigin: string }) {
  const api = async (method: string, apiPath: string, body?: unknown) => {
    const response = await fetch(`http://127.0.0.1:${o.servicePort}/v1${apiPath}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...(body ? { 'Content-Type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
    if (!response.ok) throw new Error(`${method} ${apiPath}: ${response.status} ${await response.text()}`)
    return response.json() as Promise<Record<string, unknown>>
  }
  // A page deep in the tree: the last document of the first top-level chapter with children.
  const tree = (await api('GET', `/spaces/${o.spaceId}/content`)) as unknown as { pages: Array<{ id: string; type: string; git?: { path: string }; pages?: unknown[] }> }
  const chapter = tree.pages.find((p) => (p.pages?.length ?? 0) > 0) ?? tree.pages[0]
  const target = ((chapter.pages ?? []) as typeof tree.pages).filter((p) => p.type === 'document').pop() ?? chapter
  const relative = target.git!.path
  const text = fs.readFileSync(path.join(o.folder, relative), 'utf8')
  const cr = await api('POST', `/spaces/${o.spaceId}/change-requests`, { subject: 'one page changed remotely' })
  await api('POST', `/spaces/${o.spaceId}/change-requests/${String(cr.id)}/content`, { changes: [{ operation: 'update_page', page: target.id, document: { markdown: `${text.replace(/\n*$/, '')}\n\nOne more paragraph, written remotely.\n` } }] })
  await api('POST', `/spaces/${o.spaceId}/change-requests/${String(cr.id)}/merge`)

  const pass = await measured(o.network, () => quire(o.home, ['sync', '--once']))
  const changed = fs.readFileSync(path.join(o.folder, relative), 'utf8')
  if (changed === text) throw new Error(`the next pass did not bring ${relative}`)

  // The same change as a git commit, pushed to the served repository, pulled through the network.
  fs.writeFileSync(path.join(o.work, relative), changed)
  timed('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@quire.local', 'commit', '-q', '-am', 'one page'], o.work)
  timed('git', ['push', '-q', path.join(o.repos, 'manual.git'), 'HEAD:refs/heads/master', 'HEAD:refs/heads/main'], o.work)
  const pull = await measured(o.network, () => timedAsync('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@quire.local', 'pull', '-q', '--ff-only'], o.clone))
  return { passMs: pass.value, pass, pullMs: pull.value, pull }
}

const kbytes = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`
const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`
const mbytes = (bytes: number) => `${(bytes / 1e6).toFixed(2)} MB`

async function main() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-network-'))
  const dataDir = path.join(root, 'service')
  fs.mkdirSync(dataDir)
  const network = new Network(SHAPE)
  const stops: Array<() => unknown> = []
  try {
    const seeded = await seedSpace(dataDir, TOKEN, { pages: PAGES, files: FILES, fileSize: screenshotSizes, title: 'Large Manual' })
    const { service, apiProxy } = await shapedHostedService(network, dataDir, TOKEN, stops, RATE_ARGS)

    // The writer signs in (not timed), then the first mirror.
    const home = path.join(root, 'home')
    await quire(home, ['login', '--endpoint', `${apiProxy.origin}/v1`, '--token', TOKEN])
    const before = { down: network.down.bytes, up: network.up.bytes, connections: network.connections }
    const mirrorMs = await quire(home, ['sync', '--once', '--space', seeded.spaceId, '--workspace', path.join(home, 'ws')])
    const mirror = { down: network.down.bytes - before.down, up: network.up.bytes - before.up, connections: network.connections - before.connections }
    const folder = path.join(home, 'ws', 'Bench', 'Large Manual')

    // The same tree as a git repository, cloned over smart HTTP through the same network.
    const repos = path.join(root, 'git')
    const work = path.join(root, 'tree')
    fs.cpSync(folder, work, { recursive: true, filter: (src) => !path.basename(src).startsWith('.quire') })
    timed('git', ['init', '-q'], work)
    timed('git', ['add', '-A'], work)
    timed('git', ['-c', 'user.name=Bench', '-c', 'user.email=bench@quire.local', 'commit', '-q', '-m', 'tree'], work)
    fs.mkdirSync(repos)
    timed('git', ['clone', '-q', '--bare', work, path.join(repos, 'manual.git')], root)
    const git = await serveGitOverHttp(repos)
    stops.push(git.close)
    const gitProxy = await network.proxy(Number(new URL(git.origin).port))
    stops.push(gitProxy.close)
    const gitBefore = { down: network.down.bytes, connections: network.connections }
    const cloneMs = await timedAsync('git', ['clone', '-q', `${gitProxy.origin}/manual.git`, path.join(root, 'clone')], root)
    const clone = { down: network.down.bytes - gitBefore.down, connections: network.connections - gitBefore.connections }

    // Issue 29: one page changed remotely (a change request merged beside the writer), the next pass
    // (`quire sync --once`, the selection remembered), beside `git pull` of the same change.
    // Twice: the first pass after the mirror (which recorded the stats of what it wrote, so it reads no
    // file) and the steady state the verdict is about.
    const changeOnePage = () => nextPassAfterOnePage({ network, servicePort: service.port, spaceId: seeded.spaceId, home, folder, work, repos, clone: path.join(root, 'clone'), gitOrigin: gitProxy.origin })
    const firstNext = await changeOnePage()
    const next = await changeOnePage()

    // Floors.
    const { rttMs, bitsPerSecond, extraConnectRtts } = SHAPE
    const connectMs = rttMs * (1 + extraConnectRtts)
    const wire = (bytes: number) => (bytes * 8 * 1000) / bitsPerSecond
    const apiRequests = 1 + PAGES
    const requests = apiRequests + FILES
    const ratePerSecond = (HOSTED_RATE_LIMIT.requests * 1000) / HOSTED_RATE_LIMIT.windowMs
    const inFlight = Math.max(1, ratePerSecond * (rttMs / 1000))
    const byRate = (apiRequests * 1000) / ratePerSecond
    const byRoundTrips = (requests * rttMs) / GATEWAY_MAX_IN_FLIGHT
    const mirrorFloor = connectMs + Math.max(byRate, byRoundTrips, wire(mirror.down))
    const cloneFloor = connectMs + 2 * rttMs + wire(clone.down)

    console.log(`bench:network: ${PAGES} pages, ${FILES} files (${mbytes(seeded.fileBytes)}); ${rttMs} ms round trip, ${bitsPerSecond / 1e6} Mbit/s, ${extraConnectRtts} extra round trip a connection; rate limit ${ratePerSecond}/s (${inFlight.toFixed(1)} in flight at that round trip); load ${load()}`)
    console.log(`first mirror (quire sync --once): ${seconds(mirrorMs)}, ${mbytes(mirror.down)} down, ${mbytes(mirror.up)} up, ${mirror.connections} connections`)
    console.log(
      `  floor: ${seconds(mirrorFloor)} (a connection + the largest of: ${apiRequests} API requests / ${ratePerSecond}/s = ${seconds(byRate)}; ${requests} requests × ${rttMs} ms / ${GATEWAY_MAX_IN_FLIGHT} in flight = ${seconds(byRoundTrips)}; ${mbytes(mirror.down)} / bandwidth = ${seconds(wire(mirror.down))}), ratio ${(mirrorMs / mirrorFloor).toFixed(2)}`,
    )
    console.log(`git clone over smart HTTP: ${seconds(cloneMs)}, ${mbytes(clone.down)} down, ${clone.connections} connections`)
    console.log(`  floor: ${seconds(cloneFloor)} (2 requests + ${mbytes(clone.down)} / bandwidth + a connection), ratio ${(cloneMs / cloneFloor).toFixed(2)}`)
    console.log(`quire first mirror / git clone: ${(mirrorMs / cloneMs).toFixed(2)}; floors: ${(mirrorFloor / cloneFloor).toFixed(2)}`)
    console.log(`${verdict(mirrorMs <= MAX_RATIO * mirrorFloor)} first mirror within ${MAX_RATIO}x its floor (${seconds(MAX_RATIO * mirrorFloor)})`)
    console.log(`one page changed remotely, the first pass after the mirror: ${seconds(firstNext.passMs)}, ${firstNext.pass.requests} requests, ${kbytes(firstNext.pass.down)} down; git pull ${seconds(firstNext.pullMs)}`)
    console.log(`one page changed remotely, next pass (quire sync --once): ${seconds(next.passMs)}, ${next.pass.requests} requests, ${kbytes(next.pass.down)} down, ${next.pass.connections} connections`)
    console.log(`git pull of the same change: ${seconds(next.pullMs)}, ${kbytes(next.pull.down)} down, ${next.pull.requests} requests; quire / git pull: ${(next.passMs / next.pullMs).toFixed(2)}`)
    console.log(`${verdict(next.passMs <= NEXT_PASS_RATIO * next.pullMs && next.pass.requests <= NEXT_PASS_REQUESTS && next.pass.down <= NEXT_PASS_BYTES)} next pass within ${NEXT_PASS_RATIO}x git pull's wall (${seconds(NEXT_PASS_RATIO * next.pullMs)}), at most ${NEXT_PASS_REQUESTS} requests and ${kbytes(NEXT_PASS_BYTES)} down`)
  } finally {
    for (const stop of stops.reverse()) await stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

const SPACES = Number(process.env.BENCH_NETWORK_SPACES ?? 50)
const SPACE_PAGES = Number(process.env.BENCH_NETWORK_SPACE_PAGES ?? 100)
const SPACE_FILES = Number(process.env.BENCH_NETWORK_SPACE_FILES ?? 0)
const MAX_SPACES_RATIO = 1.5
/** The gateway's own bound on requests in flight (api-gateway.ts maxConcurrency). */
const GATEWAY_MAX_IN_FLIGHT = 16

/** The first sync of many spaces of one organization (`-- spaces`), in parallel and one after another. */
async function spacesMain() {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-network-spaces-'))
  const dataDir = path.join(root, 'service')
  fs.mkdirSync(dataDir)
  const network = new Network(SHAPE)
  const stops: Array<() => unknown> = []
  try {
    const seeded = await seedSpaces(dataDir, TOKEN, SPACES, { pages: SPACE_PAGES, files: SPACE_FILES, fileSize: screenshotSizes, title: 'Manual' })
    const { apiProxy } = await shapedHostedService(network, dataDir, TOKEN, stops, RATE_ARGS)

    const firstSync = async (name: string, env: Record<string, string>) => {
      const home = path.join(root, name)
      await quire(home, ['login', '--endpoint', `${apiProxy.origin}/v1`, '--token', TOKEN])
      // A new rate-limit window for each: the login's requests and the other run's are not in this one's.
      await new Promise((resolve) => setTimeout(resolve, (HOSTED_RATE_LIMIT.windowMs * 3) / 2))
      const run = await measured(network, () => quire(home, ['sync', '--once', '--org', seeded.orgId, '--workspace', path.join(home, 'ws')], env))
      const written = fs.readdirSync(path.join(home, 'ws', 'Bench'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.md') && path.basename(f) !== 'SUMMARY.md').length
      return { ms: run.value, down: run.down, requests: run.requests, connections: run.connections, written, load: load() }
    }
    const parallel = await firstSync('home-parallel', {})
    const serial = process.env.BENCH_NETWORK_SERIAL === '0' ? undefined : await firstSync('home-serial', { QUIRE_SPACE_CONCURRENCY: '1' })

    const { rttMs, bitsPerSecond, extraConnectRtts } = SHAPE
    const rate = process.env.BENCH_NETWORK_RATE ? parseRateLimit(process.env.BENCH_NETWORK_RATE) : HOSTED_RATE_LIMIT
    const ratePerSecond = (rate.requests * 1000) / rate.windowMs
    const byRate = ratePerSecond * (rttMs / 1000)
    const inFlight = Math.max(1, Math.min(byRate, GATEWAY_MAX_IN_FLIGHT))
    // The organization's spaces list, then each space's tree, pages and files.
    const requests = 1 + SPACES * (1 + SPACE_PAGES + SPACE_FILES)
    // Lower bounds that overlap: the larger of the requests' round trips and the bytes' time on the link.
    const floorMs = rttMs * (1 + extraConnectRtts) + Math.max((requests * rttMs) / inFlight, (parallel.down * 8 * 1000) / bitsPerSecond)
    const pages = SPACES * SPACE_PAGES

    console.log(`bench:network -- spaces: ${SPACES} spaces × ${SPACE_PAGES} pages, ${SPACE_FILES} files each (${mbytes(seeded.fileBytes)}); ${rttMs} ms round trip, ${bitsPerSecond / 1e6} Mbit/s; rate limit ${ratePerSecond}/s (${byRate.toFixed(1)} in flight at that round trip, the gateway's ${GATEWAY_MAX_IN_FLIGHT} at most)`)
    const line = (label: string, run: typeof parallel) =>
      console.log(`${label}: ${seconds(run.ms)}, ${run.requests} requests, ${mbytes(run.down)} down, ${run.connections} connections, ${run.written} of ${pages} pages written; ratio ${(run.ms / floorMs).toFixed(2)}; load ${run.load}`)
    line('first sync, spaces in parallel (quire sync --once --org)', parallel)
    if (serial) line('first sync, one space after another (QUIRE_SPACE_CONCURRENCY=1)', serial)
    console.log(`  floor: ${seconds(floorMs)} (a connection + the larger of ${requests} requests × ${rttMs} ms / ${inFlight.toFixed(1)} in flight and ${mbytes(parallel.down)} / bandwidth)${serial ? `; one after another / parallel ${(serial.ms / parallel.ms).toFixed(2)}` : ''}`)
    console.log(`${verdict(parallel.ms <= MAX_SPACES_RATIO * floorMs && parallel.written === pages)} first sync of ${SPACES} spaces within ${MAX_SPACES_RATIO}x its floor (${seconds(MAX_SPACES_RATIO * floorMs)})`)
  } finally {
    for (const stop of stops.reverse()) await stop()
    fs.rmSync(root, { recursive: true, force: true })
  }
}

if (process.argv[2] === 'spaces') await spacesMain()
else await main()

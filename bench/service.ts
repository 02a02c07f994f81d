/**
 * The local service's speed, against the real `quire service` in its own process (issue 16):
 *
 * - reads: requests per second for `GET /spaces/{id}/content/page/{pageId}?format=markdown` on loopback
 *   with two concurrent keep-alive clients. The floor is `GET /user` (auth + routing + JSON only),
 *   measured in the same run, so the ratio shows what content reads cost.
 * - a 5 MB page edit: one `update_page` of 5 MB of markdown into a change request, timed from the client
 *   (upload, parse, apply, store, answer; target <= 1 s), while a second client sends `GET /user` one
 *   after another: their p99 and worst latencies (target: p99 <= 100 ms). Floors from the same run: the
 *   same `GET /user` with the service idle, and a small `update_page` (a few lines) into the same change
 *   request. Two bodies: "plain" links to ordinary relative paths (what a sync pushes); "batch links"
 *   links in every block to a page the same batch inserts, so every line is parsed to rewrite them.
 *   The service parses links in worker threads (src/main/service/link-workers); its event loop only
 *   hands them the text.
 * - the links of that page: `GET .../change-requests/{id}/content/page/{pageId}/links` right after each
 *   edit (the first read of that revision's links parses the whole 5 MB page, in the workers), timed,
 *   with the same `GET /user` beside it.
 *
 *   npm run bench:service      BENCH_SECONDS=5 BENCH_EDIT_MB=5 npm run bench:service
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { bigMarkdown, percentile, probeLatencies } from './support/latency'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CLIENTS = 2
const EDIT_MB = Number(process.env.BENCH_EDIT_MB ?? 5)
const TARGET_EDIT_MS = 1000
const TARGET_P99_MS = 100

async function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-'))
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--demo'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const first = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  const [baseUrl, token] = first.split(' token=')
  return { baseUrl, token, pid: child.pid as number, stop: () => (child.kill('SIGTERM'), fs.rmSync(dataDir, { recursive: true, force: true })) }
}

/**
 * CPU time the service process has used (all its threads, link workers included), in ms, from
 * /proc (Linux; NaN elsewhere). On a loaded machine req/s and wall times drift with the load, while
 * CPU per request does not much: it says what the service would do with a core of its own.
 */
function cpuMs(pid: number): number {
  try {
    const fields = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100 // utime + stime, in USER_HZ (100)
  } catch {
    return NaN
  }
}

async function getJson(url: string, token: string) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

async function measure(url: string, token: string, pid?: number): Promise<{ rps: number; requests: number; cpuPerRequest: number }> {
  const cpuBefore = pid === undefined ? NaN : cpuMs(pid)
  const deadline = performance.now() + SECONDS * 1000
  let requests = 0
  const client = async () => {
    while (performance.now() < deadline) {
      const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
      if (res.status !== 200) throw new Error(`${url} answered ${res.status}`)
      await res.arrayBuffer()
      requests++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CLIENTS }, client))
  const cpuPerRequest = pid === undefined ? NaN : (cpuMs(pid) - cpuBefore) / requests
  return { rps: requests / ((performance.now() - started) / 1000), requests, cpuPerRequest }
}

async function post(url: string, token: string, body: unknown) {
  const res = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' }, body: JSON.stringify(body) })
  const text = await res.text()
  if (!res.ok) throw new Error(`POST ${url} answered ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' ')

console.log(`load average at start: ${load()} (${os.cpus().length} CPUs)`)
const service = await startService()
try {
  const orgs = await getJson(`${service.baseUrl}/orgs`, service.token)
  const spaces = await getJson(`${service.baseUrl}/orgs/${orgs.items[0].id}/spaces`, service.token)
  const space = spaces.items.find((s: { title: string }) => s.title === 'User Guide') ?? spaces.items[0]
  const { pages } = await getJson(`${service.baseUrl}/spaces/${space.id}/content/pages`, service.token)
  const pageId = pages[0].pages?.[0]?.id ?? pages[0].id
  const pageUrl = `${service.baseUrl}/spaces/${space.id}/content/page/${pageId}?format=markdown`
  const userUrl = `${service.baseUrl}/user`
  const auth = { Authorization: `Bearer ${service.token}` }
  await measure(pageUrl, service.token) // warm-up: JIT and SQLite page cache

  const floor = await measure(userUrl, service.token, service.pid)
  const page = await measure(pageUrl, service.token, service.pid)
  const cpu = (m: { cpuPerRequest: number }) => `service CPU ${(m.cpuPerRequest * 1000).toFixed(0)} us/request (${(1000 / m.cpuPerRequest).toFixed(0)} req/s per core)`
  console.log(`clients: ${CLIENTS}, ${SECONDS} s each`)
  console.log(`floor   GET /user                         ${floor.rps.toFixed(0)} req/s (${floor.requests} requests)   ${cpu(floor)}`)
  console.log(`target  GET page?format=markdown          ${page.rps.toFixed(0)} req/s (${page.requests} requests)   ${cpu(page)}   target >= 3000 req/s   ${verdict(page.rps >= 3000)}`)
  console.log(`ratio   page / floor                      ${(page.rps / floor.rps).toFixed(2)} (CPU per request: ${(page.cpuPerRequest / floor.cpuPerRequest).toFixed(2)}x the floor's)`)

  // The big edit, with GET /user beside it; floors first, in the same run.
  await probeLatencies(userUrl, auth, undefined, 200)
  const idle = await probeLatencies(userUrl, auth, undefined, 500)
  console.log('')
  console.log(`floor   GET /user one at a time, service idle   median ${percentile(idle, 50).toFixed(1)} ms, p99 ${percentile(idle, 99).toFixed(1)} ms, worst ${percentile(idle, 100).toFixed(1)} ms`)
  for (const batchLinks of [false, true]) {
    const label = batchLinks ? 'batch links' : 'plain'
    const cr = await post(`${service.baseUrl}/spaces/${space.id}/change-requests`, service.token, { subject: `${EDIT_MB} MB edit (${label})` })
    const contentUrl = `${service.baseUrl}/spaces/${space.id}/change-requests/${cr.id}/content`
    const small: number[] = []
    for (let i = 0; i < 10; i++) {
      const started = performance.now()
      await post(contentUrl, service.token, { changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Edited\n\nEdit ${i} with [a link](page-1.md).\n` } }] })
      small.push(performance.now() - started)
    }
    const changes = [
      ...(batchLinks ? [{ operation: 'insert_page', ref: 'new-page', title: 'New page', document: { markdown: '# New page\n' } }] : []),
      { operation: 'update_page', page: pageId, document: { markdown: bigMarkdown(EDIT_MB * 1024 * 1024, batchLinks) } },
    ]
    const cpuBefore = cpuMs(service.pid)
    const started = performance.now()
    const edit = post(contentUrl, service.token, { changes })
    const waits = await probeLatencies(userUrl, auth, edit)
    await edit
    const ms = performance.now() - started
    const editCpu = cpuMs(service.pid) - cpuBefore
    const p99 = percentile(waits, 99)
    console.log(`floor   small update_page (${label.padEnd(11)})    median ${percentile(small, 50).toFixed(0)} ms`)
    console.log(`edit    ${EDIT_MB} MB update_page (${label.padEnd(11)})   ${ms.toFixed(0)} ms   target <= ${TARGET_EDIT_MS} ms   ${verdict(ms <= TARGET_EDIT_MS)}   (service CPU ${editCpu.toFixed(0)} ms, its GET /user included)`)
    console.log(`beside  GET /user during it: ${String(waits.length).padStart(4)} answered   p99 ${p99.toFixed(0)} ms, worst ${percentile(waits, 100).toFixed(0)} ms   target p99 <= ${TARGET_P99_MS} ms   ${verdict(p99 <= TARGET_P99_MS)}`)

    const linksCpuBefore = cpuMs(service.pid)
    const linksStarted = performance.now()
    const links = getJson(`${contentUrl}/page/${pageId}/links?limit=1`, service.token)
    const linkWaits = await probeLatencies(userUrl, auth, links)
    const report = (await links) as { stats: { total: number; broken: { total: number } } }
    const linksMs = performance.now() - linksStarted
    const linksP99 = percentile(linkWaits, 99)
    console.log(`links   first read of its links (${label.padEnd(11)}) ${linksMs.toFixed(0)} ms   (${report.stats.total} targets, ${report.stats.broken.total} broken; service CPU ${(cpuMs(service.pid) - linksCpuBefore).toFixed(0)} ms)`)
    console.log(`beside  GET /user during it: ${String(linkWaits.length).padStart(4)} answered   p99 ${linksP99.toFixed(0)} ms, worst ${percentile(linkWaits, 100).toFixed(0)} ms   target p99 <= ${TARGET_P99_MS} ms   ${verdict(linksP99 <= TARGET_P99_MS)}`)
  }
  console.log(`load average at end: ${load()}`)
} finally {
  service.stop()
}

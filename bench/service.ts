/**
 * Requests per second for `GET /spaces/{id}/content/page/{pageId}?format=markdown` on loopback with two
 * concurrent clients, against the real `quire service` in its own process. The floor is `GET /user`
 * (auth + routing + JSON only), measured in the same run, so the ratio shows what content reads cost.
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CLIENTS = 2

async function startService() {
  const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-'))
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--demo'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const first = await new Promise<string>((resolve) => readline.createInterface({ input: child.stdout }).once('line', resolve))
  const [baseUrl, token] = first.split(' token=')
  return { baseUrl, token, stop: () => (child.kill('SIGTERM'), fs.rmSync(dataDir, { recursive: true, force: true })) }
}

async function getJson(url: string, token: string) {
  const res = await fetch(url, { headers: { Authorization: `Bearer ${token}` } })
  if (!res.ok) throw new Error(`${url} answered ${res.status}: ${await res.text()}`)
  return res.json()
}

async function measure(url: string, token: string): Promise<{ rps: number; requests: number }> {
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
  return { rps: requests / ((performance.now() - started) / 1000), requests }
}

const service = await startService()
try {
  const orgs = await getJson(`${service.baseUrl}/orgs`, service.token)
  const spaces = await getJson(`${service.baseUrl}/orgs/${orgs.items[0].id}/spaces`, service.token)
  const space = spaces.items.find((s: { title: string }) => s.title === 'User Guide') ?? spaces.items[0]
  const { pages } = await getJson(`${service.baseUrl}/spaces/${space.id}/content/pages`, service.token)
  const pageId = pages[0].pages?.[0]?.id ?? pages[0].id
  const pageUrl = `${service.baseUrl}/spaces/${space.id}/content/page/${pageId}?format=markdown`
  await measure(pageUrl, service.token) // warm-up: JIT and SQLite page cache

  const floor = await measure(`${service.baseUrl}/user`, service.token)
  const page = await measure(pageUrl, service.token)
  console.log(`clients: ${CLIENTS}, ${SECONDS} s each`)
  console.log(`floor   GET /user                         ${floor.rps.toFixed(0)} req/s (${floor.requests} requests)`)
  console.log(`target  GET page?format=markdown          ${page.rps.toFixed(0)} req/s (${page.requests} requests)`)
  console.log(`ratio   page / floor                      ${(page.rps / floor.rps).toFixed(2)}`)
} finally {
  service.stop()
}

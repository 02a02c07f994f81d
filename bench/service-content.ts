/**
 * Content costs of the real `quire service` in its own process (issue 16):
 *
 * - apply: one `update_page` of 1, 5 and 20 MB of markdown into a change request, timed from the
 *   client (upload, parse, apply, store, answer), in ms per MB. "plain" bodies link to ordinary
 *   relative paths (what a sync pushes); "batch links" bodies link, in every block, to a page the same
 *   batch inserts, so every line of the body has to be parsed by remark to rewrite them.
 * - stall: while each edit is in flight, a client sends `GET /user` one after another; its worst and
 *   99th-percentile latencies are printed beside the same request's median with the service idle
 *   (the floor, measured in the same run).
 * - space size: `GET page?format=markdown` over every page of a 50-page and an 800-page space (ten
 *   files a page) in turn, 2 keep-alive clients; the ratio 800 / 50 of the time per request should stay near 1.
 *   Likewise the median time of a small `update_page` in each space, and of the first read of that page
 *   from the new revision right after it (what a syncing client does next).
 *
 * The spaces are seeded through the service's store before the service starts (not measured).
 *
 *   npm run bench:service-content      BENCH_SECONDS=5 BENCH_SIZES=1,5,20 npm run bench:service-content
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'
import { bigMarkdown, percentile, probeLatencies } from './support/latency'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const SIZES = (process.env.BENCH_SIZES ?? '1,5,20').split(',').filter(Boolean).map(Number)
/** The worst case parses everything: remark's seconds per MB, so only the smaller sizes by default. */
const WORST_SIZES = (process.env.BENCH_WORST_SIZES ?? '1,5').split(',').filter(Boolean).map(Number)
const CLIENTS = 2
const WRITES = 30
const TOKEN = 'bench-service-content-token'
const MB = 1024 * 1024

function pageBody(i: number, pages: number): string {
  const other = (i * 7 + 3) % pages
  return [
    `Page ${i} explains **a topic** in a few paragraphs, with [a link](page-${other}.md) and \`code\`.`,
    `{% hint style="info" %}\nA hint on page ${i}.\n{% endhint %}`,
    '| Setting | Default |\n| --- | --- |\n| `interval` | 60 |',
    `See also [the next page](page-${(i + 1) % pages}.md#details) and ![a picture](.gitbook/assets/none.png).`,
  ].join('\n\n')
}

async function seed(dataDir: string) {
  const { openServiceDatabase } = await import('../src/main/service/store/database')
  const { ServiceStore } = await import('../src/main/service/store/service-store')
  const { UsersRepository } = await import('../src/main/service/store/users')
  const { OrganizationsRepository } = await import('../src/main/service/store/organizations')
  const { SpacesRepository } = await import('../src/main/service/store/spaces')
  const { createSpaceRevision } = await import('../src/main/service/store/revisions')
  const { newId } = await import('../src/main/service/store/ids')
  const { applyContentChanges } = await import('../src/main/content/revision/apply')
  type Tree = import('../src/main/content').RevisionTree
  type Change = import('../src/main/content').ContentChange

  const store = new ServiceStore(openServiceDatabase(path.join(dataDir, 'service.db')))
  try {
    return store.transaction(() => {
      const users = store.repo(UsersRepository)
      const owner = users.create({ displayName: 'Bench Owner', email: 'owner@bench.local' })
      users.issueToken(owner.id, TOKEN)
      const org = store.repo(OrganizationsRepository).create({ title: 'Bench', owner: owner.id })
      const space = (title: string, pages: number) => {
        const created = store.repo(SpacesRepository).create({ orgId: org.id, title })
        // Sections of 20 pages (a root page and its 19 children), as a manual is laid out.
        let tree: Tree = { pages: [], files: [] }
        const blobs = new Map<string, Uint8Array>()
        for (let i = 0; i < pages; i += 20) {
          const changes: Change[] = []
          for (let j = i; j < Math.min(pages, i + 20); j++) {
            const document = { markdown: `# Page ${j}\n\n${pageBody(j, pages)}\n` }
            changes.push(j === i ? { operation: 'insert_page', ref: 'section', document } : { operation: 'insert_page', into: 'section', document })
          }
          const result = applyContentChanges(tree, changes, { newId, now: store.now() })
          tree = result.tree
          for (const [oid, bytes] of result.blobs) blobs.set(oid, bytes)
        }
        // Ten files a page, as in the real 799-page space of issue 16 (9,800 files).
        for (let i = 0; i < pages * 10; i += 20 * 40) {
          const changes: Change[] = []
          for (let c = i; c < Math.min(pages * 10, i + 20 * 40); c += 20) {
            const files = Array.from({ length: Math.min(20, pages * 10 - c) }, (_, k) => ({ name: `image-${c + k}.png`, contentType: 'image/png', base64: Buffer.from(`png ${c + k}`).toString('base64') }))
            changes.push({ operation: 'insert_files', files })
          }
          const result = applyContentChanges(tree, changes, { newId, now: store.now() })
          tree = result.tree
          for (const [oid, bytes] of result.blobs) blobs.set(oid, bytes)
        }
        createSpaceRevision(store, created.id, tree, blobs, [], { createdBy: owner.id, message: 'Generated' })
        return created.id
      }
      return { small: space('Small', 50), large: space('Large', 800), edits: space('Edits', 2) }
    })
  } finally {
    store.close()
  }
}

async function startService(dataDir: string) {
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--token', TOKEN], { stdio: ['ignore', 'pipe', 'inherit'] })
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    readline.createInterface({ input: child.stdout }).once('line', resolve)
  })
  const [baseUrl] = first.split(' token=')
  return { baseUrl, stop: () => child.kill('SIGTERM') }
}

const headers = { Authorization: `Bearer ${TOKEN}`, 'Content-Type': 'application/json' }

async function call(url: string, init: RequestInit = {}) {
  const res = await fetch(url, { ...init, headers })
  const text = await res.text()
  if (!res.ok) throw new Error(`${init.method ?? 'GET'} ${url} answered ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

function pageIds(pages: Array<{ id: string; type: string; pages?: unknown[] }>): string[] {
  return pages.flatMap((p) => [...(p.type === 'document' ? [p.id] : []), ...pageIds((p.pages ?? []) as never)])
}

/** Requests per second over `urls` in turn, `CLIENTS` always in flight. */
async function rate(urls: string[]): Promise<{ rps: number; requests: number }> {
  const deadline = performance.now() + SECONDS * 1000
  let next = 0
  let requests = 0
  const client = async () => {
    while (performance.now() < deadline) {
      const res = await fetch(urls[next++ % urls.length], { headers })
      if (res.status !== 200) throw new Error(`answered ${res.status}`)
      await res.arrayBuffer()
      requests++
    }
  }
  const started = performance.now()
  await Promise.all(Array.from({ length: CLIENTS }, client))
  return { rps: requests / ((performance.now() - started) / 1000), requests }
}

const probeFailures: string[] = []
const probe = (baseUrl: string, until: Promise<unknown> | undefined, count = 0) => probeLatencies(`${baseUrl}/user`, headers, until, count, probeFailures)

const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-content-'))
console.log(`load average at start: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')} (${os.cpus().length} CPUs)`)
const seeded = await seed(dataDir)
const service = await startService(dataDir)
try {
  const { baseUrl } = service
  // Floor: GET /user with the service idle.
  await probe(baseUrl, undefined, 200)
  const idle = await probe(baseUrl, undefined, 500)
  const floorMedian = percentile(idle, 50)
  console.log(`floor    GET /user, service idle: median ${floorMedian.toFixed(2)} ms, p99 ${percentile(idle, 99).toFixed(2)} ms`)

  // Per-request cost against the size of the space.
  const urlsOf = async (spaceId: string) => {
    const { pages } = await call(`${baseUrl}/spaces/${spaceId}/content/pages`)
    return pageIds(pages).map((id) => `${baseUrl}/spaces/${spaceId}/content/page/${id}?format=markdown`)
  }
  const small = await urlsOf(seeded.small)
  const large = await urlsOf(seeded.large)
  await rate(small)
  await rate(large) // warm-up: JIT, SQLite page cache, parsed revisions
  const user = await rate([`${baseUrl}/user`])
  const r50 = await rate(small)
  const r800 = await rate(large)
  console.log(`size     GET /user                              ${user.rps.toFixed(0)} req/s`)
  console.log(`size     GET page?format=markdown,  ${String(small.length).padStart(3)} pages     ${r50.rps.toFixed(0)} req/s (${(1000 / r50.rps).toFixed(2)} ms/req)`)
  console.log(`size     GET page?format=markdown,  ${String(large.length).padStart(3)} pages     ${r800.rps.toFixed(0)} req/s (${(1000 / r800.rps).toFixed(2)} ms/req)`)
  console.log(`ratio    time per request, 800 / 50 pages        ${(r50.rps / r800.rps).toFixed(2)}`)

  // A small write (one page of a few lines) against the size of the space: median of sequential edits.
  const smallWrite = async (spaceId: string, urls: string[]) => {
    const cr = await call(`${baseUrl}/spaces/${spaceId}/change-requests`, { method: 'POST', body: JSON.stringify({ subject: 'small edits' }) })
    const pageId = new URL(urls[urls.length - 1]).pathname.split('/').pop()
    const writes: number[] = []
    const reads: number[] = []
    for (let i = 0; i < WRITES; i++) {
      const body = JSON.stringify({ changes: [{ operation: 'update_page', page: pageId, document: { markdown: `# Edited\n\nEdit ${i} with [a link](page-1.md).\n` } }] })
      const started = performance.now()
      await call(`${baseUrl}/spaces/${spaceId}/change-requests/${cr.id}/content`, { method: 'POST', body })
      const written = performance.now()
      // What a client does next: read the page back from the new revision (its first read).
      await call(`${baseUrl}/spaces/${spaceId}/change-requests/${cr.id}/content/page/${pageId}?format=markdown`)
      writes.push(written - started)
      reads.push(performance.now() - written)
    }
    return { write: percentile(writes, 50), read: percentile(reads, 50) }
  }
  await smallWrite(seeded.small, small)
  const w50 = await smallWrite(seeded.small, small)
  const w800 = await smallWrite(seeded.large, large)
  for (const [pages, w] of [[small.length, w50], [large.length, w800]] as const) {
    console.log(`size     small update_page,  ${String(pages).padStart(3)} pages          median ${w.write.toFixed(1)} ms, then its first read ${w.read.toFixed(1)} ms`)
  }
  console.log(`ratio    small write, 800 / 50 pages             ${(w800.write / w50.write).toFixed(2)}`)
  console.log(`ratio    small write + first read, 800 / 50      ${((w800.write + w800.read) / (w50.write + w50.read)).toFixed(2)}`)

  // Big edits, with a probe beside each.
  const { pages: editPages } = await call(`${baseUrl}/spaces/${seeded.edits}/content/pages`)
  const target = pageIds(editPages)[0]
  const runs: Array<[string, number, boolean]> = [...SIZES.map((mb): [string, number, boolean] => ['plain', mb, false]), ...WORST_SIZES.map((mb): [string, number, boolean] => ['batch links', mb, true])]
  for (const [label, mb, batchLinks] of runs) {
    const cr = await call(`${baseUrl}/spaces/${seeded.edits}/change-requests`, { method: 'POST', body: JSON.stringify({ subject: `${mb} MB` }) })
    const changes = [
      ...(batchLinks ? [{ operation: 'insert_page', ref: 'new-page', title: 'New page', document: { markdown: '# New page\n' } }] : []),
      { operation: 'update_page', page: target, document: { markdown: bigMarkdown(mb * MB, batchLinks) } },
    ]
    const body = JSON.stringify({ changes })
    const started = performance.now()
    const edit = call(`${baseUrl}/spaces/${seeded.edits}/change-requests/${cr.id}/content`, { method: 'POST', body })
    const waits = await probe(baseUrl, edit)
    await edit
    const ms = performance.now() - started
    console.log(
      `apply    ${label.padEnd(11)} ${String(mb).padStart(2)} MB: ${(ms / 1000).toFixed(2)} s, ${(ms / mb).toFixed(0)} ms/MB; ` +
        `GET /user beside it: ${waits.length} answered, worst ${percentile(waits, 100).toFixed(0)} ms, p99 ${percentile(waits, 99).toFixed(0)} ms ` +
        `(worst / idle median ${(percentile(waits, 100) / floorMedian).toFixed(0)}x)` +
        (probeFailures.length > 0 ? `; ${probeFailures.length} failed: ${probeFailures.splice(0).join(', ')}` : ''),
    )
  }
} finally {
  service.stop()
  fs.rmSync(dataDir, { recursive: true, force: true })
  console.log(`load average at end: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
}

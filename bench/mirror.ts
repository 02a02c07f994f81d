/**
 * Initial mirror of a generated space of 2,000 pages (nested five levels deep, GitBook blocks, links
 * between pages and to files) and 200 files, served by the real `quire service` in its own process,
 * against a floor measured in the same invocation.
 *
 * - The space is seeded through the service's store before the service starts (not measured).
 * - sync: a child process that loads what `quire` loads (the CLI's main module, every command) and runs
 *   what `quire sync --once --space ID --workspace DIR` runs, step for step (cache and token from
 *   QUIRE_HOME, the sync-up hold, the CLI's progress sink, resolving the space, one pass, link report),
 *   with one difference: the gateway's politeness cap (50 requests a second) is lifted, for the floor
 *   too, so the figure is the engine's cost and not the cap's. Concurrency as in the CLI: 4 requests.
 * - floor: a child process that makes the GETs any client must make to mirror the space named on the
 *   command line, and no others: the space (its title, organization and revision), its organization
 *   (the folder's name), the tree with every page's markdown (kept when it hashes to the page's
 *   `git.oid`, else that page is fetched alone, as the engine does), each file's bytes, and the link
 *   report. Checked: both count their requests by method, path and query, and must match. Four in
 *   flight at all times; the same bytes written (checked: the folders are compared) with plain
 *   writeFile, and nothing else: no journal, no fsync, no rename, no planning, and SUMMARY.md ready
 *   made (rendered before its clock starts).
 * - Both are timed inside their process, from the start of the work to its end (module loading is
 *   printed apart); CPU is the process's (all threads); peak RSS is each process's getrusage maximum,
 *   the kernel's VmHWM.
 * Rounds run the two back to back, alternating which goes first; the ratio is the median of the rounds'
 * ratios, each taken under the same machine load.
 *
 *   npm run bench:mirror      BENCH_ROUNDS=5 npm run bench:mirror      BENCH_CPU_PROF=DIR npm run bench:mirror
 */
import { spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import readline from 'node:readline'

const PAGES = 2000
const FILES = 200
const CONCURRENCY = 4
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3)
// Issue 16's targets.
const TARGET_RATIO = 1.1
const TARGET_RSS_MB = 150

interface ChildReport {
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

interface SyncJob {
  home: string
  workspace: string
  spaceId: string
}

interface FloorJob {
  withCli?: boolean
  baseUrl: string
  /** SUMMARY.md, rendered beforehand. */
  summary: string
  spaceId: string
  orgId: string
  dir: string
}

/* ---------- children ---------- */

/** Counts every request the process makes, the same way in both children. */
function countRequests(): { counts: Record<string, number>; received: () => number } {
  const counts: Record<string, number> = {}
  let received = 0
  const original = globalThis.fetch
  globalThis.fetch = async (input, init) => {
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
    const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
    const key = `${method} ${url.pathname}${url.search}`
    counts[key] = (counts[key] ?? 0) + 1
    const response = await original(input, init)
    received += Number(response.headers.get('content-length') ?? 0)
    return response
  }
  return { counts, received: () => received }
}

function cpuMs(since: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(since)
  return (used.user + used.system) / 1000
}

function report(result: ChildReport) {
  process.stdout.write(`${JSON.stringify(result)}\n`)
}

/**
 * What `quire sync --once --space ID --workspace DIR` does (syncCommand in src/main/cli/sync-command.ts,
 * step for step), with the gateway's politeness cap lifted.
 */
async function syncChild(job: SyncJob) {
  process.env.QUIRE_HOME = job.home
  const requests = countRequests()
  // Everything `quire` loads (bin/quire.mjs imports the CLI's main module, every command with it), so
  // the process holds what a user's does.
  await import('../src/main/cli/main')
  const { quirePaths, signedIn } = await import('../src/main/engine/account/account')
  const { CacheRepository } = await import('../src/main/engine/cache/cache-repository')
  const { openCacheDatabase } = await import('../src/main/engine/cache/open-cache')
  const { OutboxRepository } = await import('../src/main/engine/outbox/outbox-repository')
  const { workspaceHold } = await import('../src/main/engine/push/hold')
  const { workspaceFolder } = await import('../src/main/cli/sync-command')
  const { createProgress } = await import('../src/main/cli/progress')
  const { SyncEngine } = await import('../src/main/engine/sync/sync-engine')

  const started = performance.now()
  const cpu = process.cpuUsage()
  const paths = quirePaths()
  const db = openCacheDatabase(paths.cacheFile)
  const cache = new CacheRepository(db)
  let inSync = false
  try {
    const { account, gateway } = await signedIn(cache, paths, { intervalCap: 1_000_000 })
    const workspace = workspaceFolder(cache, job.workspace)
    // As the CLI's: what resolving the space fetched stands in for the pass's own space list.
    const engine = new SyncEngine({
      cache,
      account,
      gateway,
      workspace,
      handOverLists: true,
      hold: workspaceHold(cache, new OutboxRepository(db), workspace),
      onProgress: createProgress({ isTTY: false, write: (text) => process.stderr.write(text), line: (text) => process.stderr.write(`${text}\n`) }),
    })
    await engine.resolveSpaces([job.spaceId])
    cache.setSelection({ spaces: [job.spaceId] })
    const pass = await engine.pass()
    inSync = pass.inSync
    if (!inSync) process.stderr.write(`${JSON.stringify(pass)}\n`)
  } finally {
    cache.close()
  }
  const workMs = performance.now() - started
  if (!inSync) process.exit(1)
  report({ workMs, cpuMs: cpuMs(cpu), maxRssKb: process.resourceUsage().maxRSS, requests: requests.counts, received: requests.received(), pages: 0, bytes: 0 })
}

/**
 * The GETs any client must make for a first `quire sync --once --space ID`, the same bytes written,
 * nothing else: SUMMARY.md comes ready made (rendered before the clock starts), so not even that is
 * computed.
 */
async function floorChild(job: FloorJob) {
  const requests = countRequests()
  // The floor in a process shaped like the CLI's (an informational run): what any pass costs there.
  if (job.withCli) await import('../src/main/cli/main')
  const summary = fs.readFileSync(job.summary)

  const started = performance.now()
  const cpu = process.cpuUsage()
  const auth = { Authorization: `Bearer ${process.env.BENCH_TOKEN ?? ''}` }
  const getJson = async <T>(url: string): Promise<T> => {
    const res = await fetch(url, { headers: auth })
    if (!res.ok) throw new Error(`${url} answered ${res.status}`)
    return (await res.json()) as T
  }
  const writes: Array<Promise<void>> = []
  const folders = new Map<string, Promise<unknown>>()
  let bytes = 0
  const write = (rel: string, data: string | Uint8Array) => {
    bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength
    const full = path.join(job.dir, rel)
    const dir = path.dirname(full)
    let made = folders.get(dir)
    if (!made) folders.set(dir, (made = fs.promises.mkdir(dir, { recursive: true })))
    writes.push(made.then(() => fs.promises.writeFile(full, data)))
  }

  // The space named on the command line (its organization, revision and title), its organization's
  // title (the folder's name), then the tree, which carries the pages' markdown.
  await getJson(`${job.baseUrl}/spaces/${job.spaceId}`)
  await getJson(`${job.baseUrl}/orgs/${job.orgId}`)
  const revision = await getJson<WireRevision>(`${job.baseUrl}/spaces/${job.spaceId}/content`)
  const documents = documentPages(revision.pages)
  type Job = { kind: 'page'; id: string; path: string } | { kind: 'file'; url: string; path: string }
  const jobs: Job[] = []
  for (const page of documents) {
    // The tree's markdown is the page's file only when it hashes to the page's git oid: a client must check.
    const markdown = page.markdown === undefined ? undefined : Buffer.from(page.markdown)
    if (markdown && gitBlobOid(markdown) === page.git!.oid) write(page.git!.path, markdown)
    else jobs.push({ kind: 'page', id: page.id, path: page.git!.path })
  }
  for (const f of revision.files) jobs.push({ kind: 'file', url: f.downloadURL, path: f.git.path })
  let next = 0
  // Writes are not awaited by the workers: four requests are in flight at all times.
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (next < jobs.length) {
        const item = jobs[next++]
        if (item.kind === 'page') {
          const page = await getJson<{ markdown: string }>(`${job.baseUrl}/spaces/${job.spaceId}/revisions/${revision.id}/page/${item.id}?format=markdown`)
          write(item.path, page.markdown)
        } else {
          const res = await fetch(item.url)
          if (!res.ok) throw new Error(`${item.url} answered ${res.status}`)
          write(item.path, new Uint8Array(await res.arrayBuffer()))
        }
      }
    }),
  )
  write('SUMMARY.md', summary)
  await Promise.all(writes)
  let page: string | undefined
  do {
    const links: { next?: { page: string } } = await getJson(`${job.baseUrl}/spaces/${job.spaceId}/links?limit=1000${page ? `&page=${encodeURIComponent(page)}` : ''}`)
    page = links.next?.page
  } while (page)
  const workMs = performance.now() - started
  report({ workMs, cpuMs: cpuMs(cpu), maxRssKb: process.resourceUsage().maxRSS, requests: requests.counts, received: requests.received(), pages: documents.length, bytes })
}

/** Git's blob id of `bytes` (what `git.oid` is): SHA-1 of a `blob <size>` header, a NUL, and the bytes. */
function gitBlobOid(bytes: Uint8Array): string {
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex')
}

interface WirePage {
  id: string
  type: string
  title: string
  slug?: string
  href?: string
  git?: { path: string; oid: string }
  /** The page's markdown, as the tree carries it. */
  markdown?: string
  pages?: WirePage[]
}

interface WireRevision {
  id: string
  pages: WirePage[]
  files: Array<{ id: string; downloadURL: string; git: { path: string } }>
}

function documentPages(list: WirePage[], out: WirePage[] = []): WirePage[] {
  for (const page of list) {
    if (page.git) out.push(page)
    documentPages(page.pages ?? [], out)
  }
  return out
}

/** SUMMARY.md of the space as Git Sync writes it, rendered once before the runs for the floor. */
async function renderSummaryOf(revision: WireRevision): Promise<string> {
  const { renderSummary } = await import('../src/main/content')
  type SummaryTree = Parameters<typeof renderSummary>[0]
  const treeOf = (list: WirePage[]): SummaryTree['pages'] =>
    list.map((p) => ({
      id: p.id,
      type: p.type === 'group' ? 'group' : p.type === 'link' ? 'link' : 'document',
      title: p.title,
      slug: p.slug ?? '',
      metadata: {},
      ...(p.type === 'link' ? { href: p.href ?? '' } : {}),
      createdAt: '',
      updatedAt: '',
      pages: treeOf(p.pages ?? []),
    }))
  return renderSummary({ pages: treeOf(revision.pages), files: [] }, new Map(documentPages(revision.pages).map((p) => [p.id, p.git!.path])))
}

/* ---------- the generated space ---------- */

/** Small deterministic generator, so every run mirrors the same space. */
function prng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return { next, int: (lo: number, hi: number) => lo + Math.floor(next() * (hi - lo + 1)), pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)] }
}

const AREAS = ['Accounts', 'Billing', 'Workspaces', 'Permissions', 'Webhooks', 'Exports', 'Imports', 'Search', 'Themes', 'Integrations', 'Analytics', 'Security', 'Deployments', 'Storage', 'Notifications', 'Reports']
const TOPICS = ['overview', 'setup', 'configuration', 'limits', 'troubleshooting', 'migration guide', 'best practices', 'reference', 'examples', 'FAQ', 'retries', 'auditing', 'quotas', 'scheduling', 'templates', 'roles']
const WORDS = 'the service keeps every change in a revision so a writer can review it before it reaches readers and each space holds pages files and the links between them while the sync engine mirrors them into plain markdown'.split(' ')

async function seedSpace(dataDir: string, token: string) {
  const { openServiceDatabase } = await import('../src/main/service/store/database')
  const { ServiceStore } = await import('../src/main/service/store/service-store')
  const { UsersRepository } = await import('../src/main/service/store/users')
  const { OrganizationsRepository } = await import('../src/main/service/store/organizations')
  const { SpacesRepository } = await import('../src/main/service/store/spaces')
  const { createSpaceRevision } = await import('../src/main/service/store/revisions')
  const { newId } = await import('../src/main/service/store/ids')
  const { buildDemoContent } = await import('../src/main/service/demo/demo-tree')
  type Outline = import('../src/main/service/demo/demo-tree').OutlinePage
  type OutlineFile = import('../src/main/service/demo/demo-tree').OutlineFile

  const rnd = prng(20_26)
  const files: OutlineFile[] = Array.from({ length: FILES }, (_, i) => {
    const kind = i % 10 === 9 ? 'pdf' : i % 5 === 4 ? 'svg' : 'png'
    // Mostly screenshots of tens of kilobytes, a few large diagrams.
    const size = kind === 'svg' ? rnd.int(2_000, 12_000) : rnd.next() < 0.1 ? rnd.int(200_000, 600_000) : rnd.int(8_000, 80_000)
    const bytes = new Uint8Array(size)
    for (let b = 0; b < size; b++) bytes[b] = (rnd.next() * 256) | 0
    if (kind === 'png') bytes.set([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])
    const name = kind === 'png' ? (i % 3 === 0 ? `image (${i}).png` : `screenshot-${i}.png`) : kind === 'svg' ? `diagram-${i}.svg` : `handout-${i}.pdf`
    return { name, contentType: kind === 'png' ? 'image/png' : kind === 'svg' ? 'image/svg+xml' : 'application/pdf', bytes }
  })

  const titles: string[] = []
  const sentence = () => {
    const n = rnd.int(8, 22)
    const words = Array.from({ length: n }, () => rnd.pick(WORDS))
    return `${words.join(' ').replace(/^./, (c) => c.toUpperCase())}.`
  }
  const paragraph = () => Array.from({ length: rnd.int(2, 6) }, sentence).join(' ')
  const body = (title: string, children: string[]) => (l: import('../src/main/service/demo/demo-tree').BodyLinks) => {
    const blocks = [`This page covers **${title}**. ${paragraph()}`]
    for (let i = rnd.int(2, 7); i > 0; i--) {
      const choice = rnd.int(0, 8)
      if (choice === 0) blocks.push(`{% hint style="${rnd.pick(['info', 'warning', 'danger', 'success'])}" %}\n${sentence()}\n{% endhint %}`)
      else if (choice === 1) blocks.push(`{% tabs %}\n{% tab title="macOS" %}\n${sentence()}\n{% endtab %}\n\n{% tab title="Linux" %}\n\`\`\`bash\nquire sync --once --space ${rnd.int(1, 99)}\n\`\`\`\n{% endtab %}\n{% endtabs %}`)
      else if (choice === 2) blocks.push(`{% code title="config-${rnd.int(1, 50)}.yaml" %}\n\`\`\`yaml\nworkspace: ~/Quire\ninterval: ${rnd.int(10, 300)}\nspaces:\n  - id: space-${rnd.int(1, 99)}\n\`\`\`\n{% endcode %}`)
      else if (choice === 3) blocks.push(`| Setting | Default | Notes |\n| --- | --- | --- |\n${Array.from({ length: rnd.int(2, 6) }, () => `| \`${rnd.pick(WORDS)}\` | ${rnd.int(0, 500)} | ${sentence()} |`).join('\n')}`)
      else if (choice === 4) {
        const target = l.page(children.length > 0 && rnd.next() < 0.5 ? rnd.pick(children) : rnd.pick(titles))
        blocks.push(`{% content-ref url="${target}" %}\n[${target.replace(/^<|>$/g, '')}](${target})\n{% endcontent-ref %}`)
      } else if (choice === 5) {
        const src = l.asset(rnd.pick(files).name).replace(/^<|>$/g, '')
        blocks.push(`<figure><img src="${src}" alt=""><figcaption><p>${sentence()}</p></figcaption></figure>`)
      } else if (choice === 6) blocks.push(Array.from({ length: rnd.int(2, 5) }, () => `* [${rnd.pick(TOPICS)}](${l.page(rnd.pick(titles))})`).join('\n'))
      else blocks.push(`## ${rnd.pick(TOPICS).replace(/^./, (c) => c.toUpperCase())}\n\n${paragraph()}`)
    }
    return blocks.join('\n\n')
  }

  // Breadth first, 2 to 9 children a page, so the top levels are full and the deepest partly so.
  const roots: Outline[] = []
  const queue: Array<{ page: Outline; depth: number; label: string }> = []
  let made = 0
  const makePage = (label: string): Outline => {
    const title = `${rnd.pick(AREAS)} ${rnd.pick(TOPICS)} ${label}`
    titles.push(title)
    made++
    const page: Outline = { title, body: () => '', children: [] }
    if (rnd.next() < 0.2) page.description = sentence()
    if (rnd.next() < 0.05) page.hidden = true
    return page
  }
  for (let i = 1; i <= 12; i++) {
    const page = makePage(`${i}`)
    roots.push(page)
    queue.push({ page, depth: 1, label: `${i}` })
  }
  while (made < PAGES) {
    const parent = queue.shift()
    if (!parent) throw new Error('the outline ran out of places for pages')
    if (parent.depth >= 5) continue
    for (let c = 1, n = rnd.int(2, 9); c <= n && made < PAGES; c++) {
      const label = `${parent.label}.${c}`
      const child = makePage(label)
      parent.page.children!.push(child)
      queue.push({ page: child, depth: parent.depth + 1, label })
    }
  }
  const attach = (list: Outline[]) => {
    for (const page of list) {
      page.body = body(page.title, (page.children ?? []).map((c) => c.title))
      attach(page.children ?? [])
    }
  }
  attach(roots)

  const db = openServiceDatabase(path.join(dataDir, 'service.db'))
  const store = new ServiceStore(db)
  try {
    return store.transaction(() => {
      const users = store.repo(UsersRepository)
      const owner = users.create({ displayName: 'Bench Owner', email: 'owner@bench.local' })
      users.issueToken(owner.id, token)
      const org = store.repo(OrganizationsRepository).create({ title: 'Bench', owner: owner.id })
      const space = store.repo(SpacesRepository).create({ orgId: org.id, title: 'Large Manual' })
      const content = buildDemoContent(roots, files, { newId, now: store.now() })
      createSpaceRevision(store, space.id, content.tree, content.blobs, [], { createdBy: owner.id, message: 'Generated' })
      const fileBytes = files.reduce((n, f) => n + f.bytes.byteLength, 0)
      return { orgId: org.id, spaceId: space.id, fileBytes }
    })
  } finally {
    store.close()
  }
}

/* ---------- the run ---------- */

async function startService(dataDir: string, token: string) {
  const child = spawn(process.execPath, [path.resolve('bin/quire.mjs'), 'service', '--port', '0', '--data', dataDir, '--token', token], { stdio: ['ignore', 'pipe', 'inherit'] })
  const first = await new Promise<string>((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the service exited (${code})`)))
    readline.createInterface({ input: child.stdout }).once('line', resolve)
  })
  const [baseUrl] = first.split(' token=')
  return { baseUrl, origin: baseUrl.replace(/\/v1$/, ''), stop: () => child.kill('SIGTERM') }
}

interface Run extends ChildReport {
  processMs: number
}

function runChild(role: 'sync' | 'floor', job: SyncJob | FloorJob, token: string): Promise<Run> {
  const started = performance.now()
  // BENCH_CPU_PROF=DIR: a CPU profile of every child (node --cpu-prof), to see where the time goes.
  const profile = process.env.BENCH_CPU_PROF ? ['--cpu-prof', `--cpu-prof-dir=${path.resolve(process.env.BENCH_CPU_PROF)}`, `--cpu-prof-name=${role}-${Date.now()}.cpuprofile`] : []
  const child = spawn(process.execPath, [...profile, '--import', 'tsx', path.resolve('bench/mirror.ts'), role, JSON.stringify(job)], {
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, BENCH_TOKEN: token },
  })
  let out = ''
  let err = ''
  child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()))
  return new Promise((resolve, reject) => {
    child.on('exit', (code) => {
      const processMs = performance.now() - started
      const line = out.trim().split('\n').pop() ?? ''
      if (code !== 0 || !line.startsWith('{')) reject(new Error(`${role} child failed (exit ${code}):\n${err}\n${out}`))
      else resolve({ ...(JSON.parse(line) as ChildReport), processMs })
    })
  })
}

/** Relative path -> content, for comparing the two folders. */
function readTree(root: string): Map<string, Buffer> {
  const out = new Map<string, Buffer>()
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out.set(path.relative(root, full).split(path.sep).join('/'), fs.readFileSync(full))
    }
  }
  walk(root)
  return out
}

function sameTree(a: string, b: string): string | undefined {
  const left = readTree(a)
  const right = readTree(b)
  if (left.size !== right.size) return `${left.size} files vs ${right.size}`
  for (const [rel, data] of left) {
    const other = right.get(rel)
    if (!other) return `${rel} is missing from the floor's folder`
    if (!data.equals(other)) return `${rel} differs`
  }
  return undefined
}

function sameRequests(a: Record<string, number>, b: Record<string, number>): string | undefined {
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  const differ = [...keys].filter((key) => a[key] !== b[key]).map((key) => `${key}: sync ${a[key] ?? 0}, floor ${b[key] ?? 0}`)
  if (differ.length === 0) return undefined
  return `${differ.length} differ: ${differ.slice(0, 5).join('; ')}${differ.length > 5 ? '; ...' : ''}`
}

const median = (values: number[]) => [...values].sort((x, y) => x - y)[Math.floor(values.length / 2)]
const mb = (kb: number) => kb / 1024
const load = () => os.loadavg().map((n) => n.toFixed(2)).join(' ')

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-mirror-'))
  const token = `bench-${process.pid}-${Date.now()}`
  const dataDir = path.join(scratch, 'service')
  fs.mkdirSync(dataDir)
  const seedStarted = performance.now()
  const seed = await seedSpace(dataDir, token)
  console.log(`seeded ${PAGES} pages and ${FILES} files (${(seed.fileBytes / 1e6).toFixed(1)} MB) in ${((performance.now() - seedStarted) / 1000).toFixed(1)} s (not measured)`)
  const service = await startService(dataDir, token)
  try {
    const { login, quirePaths } = await import('../src/main/engine/account/account')
    const { CacheRepository } = await import('../src/main/engine/cache/cache-repository')
    const { openCacheDatabase } = await import('../src/main/engine/cache/open-cache')
    const content = await fetch(`${service.baseUrl}/spaces/${seed.spaceId}/content`, { headers: { Authorization: `Bearer ${token}` } })
    const summary = path.join(scratch, 'SUMMARY.md')
    fs.writeFileSync(summary, await renderSummaryOf((await content.json()) as WireRevision))
    const floorJob = (dir: string): FloorJob => ({ baseUrl: service.baseUrl, summary, spaceId: seed.spaceId, orgId: seed.orgId, dir })
    const syncJob = async (round: string): Promise<SyncJob> => {
      const home = path.join(scratch, `home-${round}`)
      const paths = quirePaths({ QUIRE_HOME: home })
      const cache = new CacheRepository(openCacheDatabase(paths.cacheFile))
      try {
        await login(cache, paths, { endpoint: service.origin, token, tokenStore: 'file' })
      } finally {
        cache.close()
      }
      return { home, workspace: path.join(scratch, `sync-${round}`), spaceId: seed.spaceId }
    }

    console.log(`load average before: ${load()} (${os.cpus().length} cores)`)
    await runChild('floor', floorJob(path.join(scratch, 'warm')), token) // warm-up: the service's JIT and caches, tsx's transform cache
    await runChild('sync', await syncJob('warm'), token)
    const syncRuns: Run[] = []
    const floorRuns: Run[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const order = round % 2 === 0 ? (['sync', 'floor'] as const) : (['floor', 'sync'] as const)
      for (const which of order) {
        if (which === 'sync') syncRuns.push(await runChild('sync', await syncJob(String(round)), token))
        else floorRuns.push(await runChild('floor', floorJob(path.join(scratch, `floor-${round}`)), token))
      }
      const s = syncRuns[round]
      const f = floorRuns[round]
      console.log(
        `round ${round + 1}: sync ${s.workMs.toFixed(0)} ms (cpu ${s.cpuMs.toFixed(0)} ms, ${mb(s.maxRssKb).toFixed(0)} MB), floor ${f.workMs.toFixed(0)} ms (cpu ${f.cpuMs.toFixed(0)} ms, ${mb(f.maxRssKb).toFixed(0)} MB), ratio ${(s.workMs / f.workMs).toFixed(2)}, load ${load()}`,
      )
    }

    // Informational: the floor in a process that loads what `quire` loads, to show what part of the
    // sync process's peak RSS any pass would have there.
    const floorInCli = await runChild('floor', { ...floorJob(path.join(scratch, 'floor-cli')), withCli: true }, token)

    const pages = floorRuns[0].pages
    const requestDiff = sameRequests(syncRuns[0].requests, floorRuns[0].requests)
    const gets = Object.values(floorRuns[0].requests).reduce((n, c) => n + c, 0)
    const folderDiff = sameTree(path.join(scratch, 'sync-0', 'Bench', 'Large Manual'), path.join(scratch, 'floor-0'))
    const s = median(syncRuns.map((r) => r.workMs))
    const f = median(floorRuns.map((r) => r.workMs))
    // Each round's two runs are back to back, under the same load: the ratio is the median of the rounds'.
    const ratio = median(syncRuns.map((r, i) => r.workMs / floorRuns[i].workMs))
    const rss = Math.max(...syncRuns.map((r) => mb(r.maxRssKb)))
    const verdict = (ok: boolean) => (ok ? 'PASS' : 'FAIL')
    console.log('')
    console.log(`space: ${pages} pages, ${FILES} files; ${(floorRuns[0].bytes / 1e6).toFixed(1)} MB written, ${(floorRuns[0].received / 1e6).toFixed(1)} MB received; concurrency ${CONCURRENCY}; ${ROUNDS} rounds`)
    console.log(`same requests: ${requestDiff ? `NO (${requestDiff})` : `yes, ${gets} GETs each`}; same files and bytes: ${folderDiff ? `NO (${folderDiff})` : 'yes'}`)
    console.log(`sync   quire sync --once (engine)  median ${s.toFixed(0)} ms   ${((pages * 1000) / s).toFixed(0)} pages/s   (process with module loading: ${median(syncRuns.map((r) => r.processMs)).toFixed(0)} ms)`)
    console.log(`floor  same GETs + plain writes    median ${f.toFixed(0)} ms   ${((pages * 1000) / f).toFixed(0)} pages/s   (process with module loading: ${median(floorRuns.map((r) => r.processMs)).toFixed(0)} ms)`)
    console.log(`ratio  sync / floor, median of rounds  ${ratio.toFixed(2)}   target <= ${TARGET_RATIO}   ${verdict(ratio <= TARGET_RATIO)}   (ratio of medians ${(s / f).toFixed(2)})`)
    console.log(`peak RSS of the sync process, max of rounds  ${rss.toFixed(0)} MB   target <= ${TARGET_RSS_MB} MB   ${verdict(rss <= TARGET_RSS_MB)}`)
    console.log(`       floor process ${Math.max(...floorRuns.map((r) => mb(r.maxRssKb))).toFixed(0)} MB; the floor in a process loading what quire loads: ${mb(floorInCli.maxRssKb).toFixed(0)} MB`)
    console.log(`load average after: ${load()}`)
    if (requestDiff || folderDiff) process.exitCode = 1
  } finally {
    service.stop()
    fs.rmSync(scratch, { recursive: true, force: true })
  }
}

const [role, job] = process.argv.slice(2)
if (role === 'sync') await syncChild(JSON.parse(job) as SyncJob)
else if (role === 'floor') await floorChild(JSON.parse(job) as FloorJob)
else await main()

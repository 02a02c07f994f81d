/**
 * Memory of the push path (issue 14): the corpus's larger real Git Sync tree (gitbook-docs: 182 pages,
 * 594 assets, 126 MB; test/support/gitsync-corpus.ts) written into the folder of an empty synced space,
 * then one `quire watch --once` (send, sync down, send: the pass `quire watch` makes when the tree lands)
 * as a child process, run as a user runs it (bin/quire.mjs, the compiled CLI), against the real
 * `quire service` in its own process.
 *
 * - push: the child's peak resident set (the kernel's VmHWM, read by the child itself as it exits) and
 *   its wall time; every SUMMARY page and every asset under the upload limit must be in the change
 *   request afterwards, or the run fails.
 * - floor: the same CLI in the same kind of process loading its modules and doing nothing (`quire --help`),
 *   measured in the same run, so the figure above it is the push's own.
 * The faster stand-in for test/e2e/drop-tree-watch.test.ts (which asserts watch peaks <= 300 MB).
 *
 *   npm run bench:push-memory
 *   BENCH_ROUNDS=3 npm run bench:push-memory
 *   BENCH_NODE_FLAGS='--heap-prof --heap-prof-dir=/tmp/prof' npm run bench:push-memory   (flags for the push child)
 *   BENCH_SAMPLE_MS=250 npm run bench:push-memory   (the child prints process.memoryUsage() every 250 ms)
 *   BENCH_IMPORT=1 npm run bench:push-memory   (`quire import <tree> --space ID` instead of watch --once)
 */
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { load, mb, median, startService, verdict } from './support/run'
import { signedInHome } from './support/sync-child'

const TREE = 'gitbook-docs'
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 1)
// Issue 14's target for watch; the brief's aim is well under it.
const TARGET_RSS_MB = 300
const AIM_RSS_MB = 250
const BIN = path.resolve('bin/quire.mjs')

interface ChildRun {
  code: number | null
  peakKb: number
  wallMs: number
  output: string
}

/** Preloaded into the children: their VmHWM as they exit (and, with BENCH_SAMPLE_MS, samples). */
const PEAK_REPORTER = pathToFileURL(path.resolve('bench/support/peak-on-exit.mjs')).href

function runCli(args: string[], env: Record<string, string>, nodeFlags: string[] = []): Promise<ChildRun> {
  return new Promise((resolve, reject) => {
    const started = performance.now()
    const child = spawn(process.execPath, [...nodeFlags, BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
    child.once('error', reject)
    child.once('exit', (code) => {
      const peak = /BENCH_PEAK_KB (\d+)/.exec(output)
      resolve({ code, peakKb: peak ? Number(peak[1]) : 0, wallMs: performance.now() - started, output })
    })
  })
}

async function api<T>(baseUrl: string, token: string, method: string, route: string, body?: unknown): Promise<T> {
  const res = await fetch(`${baseUrl}${route}`, {
    method,
    headers: { Authorization: `Bearer ${token}`, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  })
  if (!res.ok) throw new Error(`${method} ${route} answered ${res.status}: ${await res.text()}`)
  return (await res.json()) as T
}

/** A user with `token` and an organization, written into the service's store before it starts. */
async function seedOrganization(dataDir: string, token: string): Promise<string> {
  const { openServiceDatabase } = await import('../src/main/service/store/database')
  const { ServiceStore } = await import('../src/main/service/store/service-store')
  const { UsersRepository } = await import('../src/main/service/store/users')
  const { OrganizationsRepository } = await import('../src/main/service/store/organizations')
  const store = new ServiceStore(openServiceDatabase(path.join(dataDir, 'service.db')))
  try {
    return store.transaction(() => {
      const users = store.repo(UsersRepository)
      const owner = users.create({ displayName: 'Bench Owner', email: 'owner@bench.local' })
      users.issueToken(owner.id, token)
      return store.repo(OrganizationsRepository).create({ title: 'Acme', owner: owner.id }).id
    })
  } finally {
    store.close()
  }
}

interface WireRevision {
  pages: Array<{ type: string; pages?: WireRevision['pages'] }>
  files: unknown[]
}

function countPages(pages: WireRevision['pages']): number {
  return pages.reduce((n, p) => n + (p.type === 'document' ? 1 : 0) + countPages(p.pages ?? []), 0)
}

type CorpusModule = typeof import('../test/support/gitsync-corpus')

/** The tests' corpus helper; it finds the corpus by `__dirname`, which an ES module run by tsx lacks. */
async function corpus(): Promise<CorpusModule> {
  const scope = globalThis as { __dirname?: string }
  scope.__dirname ??= path.resolve('test/support')
  return import('../test/support/gitsync-corpus')
}

/** The tree written into a folder outside the workspace, for `quire import`. */
function importFolder(scratch: string, index: number, tree: Map<string, Buffer>, writeTree: CorpusModule['writeTree']): string {
  const dir = path.join(scratch, `tree-${index}`)
  writeTree(dir, tree)
  return dir
}

async function round(index: number, tree: Map<string, Buffer>, expected: { pages: number; files: number }, scratch: string, reporter: string) {
  const dataDir = path.join(scratch, `service-${index}`)
  fs.mkdirSync(dataDir, { recursive: true })
  const token = `bench-token-${index}`
  const orgId = await seedOrganization(dataDir, token)
  const service = await startService(dataDir, token)
  try {
    const space = await api<{ id: string }>(service.baseUrl, token, 'POST', `/orgs/${orgId}/spaces`, { title: 'Docs' })
    const home = path.join(scratch, `home-${index}`)
    await signedInHome(home, service.origin, token)
    const workspace = path.join(home, 'ws')
    const env = { QUIRE_HOME: home, QUIRE_TOKEN_STORE: 'file' }
    const args = ['--workspace', workspace, '--space', space.id]
    const mirrored = await runCli(['sync', '--once', ...args], env)
    if (mirrored.code !== 0) throw new Error(`the first sync failed:\n${mirrored.output}`)
    const folder = path.join(workspace, 'Acme', 'Docs')
    const { writeTree } = await corpus()
    if (process.env.BENCH_IMPORT !== '1') writeTree(folder, tree)

    const nodeFlags = (process.env.BENCH_NODE_FLAGS ?? '').split(' ').filter(Boolean)
    const floor = await runCli(['--help'], env, ['--import', reporter])
    // BENCH_IMPORT=1: `quire import` of the same tree (from a folder of its own) into the same empty space.
    const command = process.env.BENCH_IMPORT === '1' ? ['import', importFolder(scratch, index, tree, writeTree), ...args] : ['watch', '--once', ...args]
    const push = await runCli(command, env, ['--import', reporter, ...nodeFlags])
    if (push.code !== 0) throw new Error(`watch --once failed (${push.code}):\n${push.output.slice(-4000)}`)
    // Sampling: the child's lines in the order they came, to see which step holds what.
    if (process.env.BENCH_SAMPLE_MS) for (const line of push.output.split('\n')) if (line && !line.includes('upload limit')) console.log(`  ${line.slice(0, 160)}`)

    const crs = await api<{ items: Array<{ id: string; status: string }> }>(service.baseUrl, token, 'GET', `/spaces/${space.id}/change-requests?status=draft`)
    const cr = crs.items[0]
    if (!cr) throw new Error(`no change request was opened:\n${push.output.slice(-4000)}`)
    const content = await api<WireRevision>(service.baseUrl, token, 'GET', `/spaces/${space.id}/change-requests/${cr.id}/content`)
    const carried = { pages: countPages(content.pages), files: content.files.length }
    // A pass that sent less would measure less: the run counts only when everything arrived.
    if (carried.pages < expected.pages || carried.files < expected.files) {
      throw new Error(`the change request carries ${carried.pages}/${expected.pages} pages and ${carried.files}/${expected.files} files:\n${push.output.slice(-4000)}`)
    }
    return { floor, push, ...carried }
  } finally {
    service.stop()
  }
}

async function main() {
  const scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-bench-push-memory-'))
  const reporter = PEAK_REPORTER
  const tree = (await corpus()).corpusTree(TREE)
  const assets = [...tree.keys()].filter((rel) => rel.startsWith('.gitbook/assets/'))
  const bytes = [...tree.values()].reduce((n, b) => n + b.byteLength, 0)
  const { MAX_FILE_BYTES, parseSummary } = await import('../src/main/content')
  type Entry = ReturnType<typeof parseSummary>[number]
  const summaryPages = new Set<string>()
  const visit = (entries: Entry[]) => {
    for (const e of entries) {
      // Anchor entries (`page.md#part`) name a page listed elsewhere.
      if (e.kind === 'page' && e.path) summaryPages.add(e.path.replace(/#.*$/, ''))
      visit(e.children)
    }
  }
  visit(parseSummary(tree.get('SUMMARY.md')!.toString('utf8')))
  // Files over the upload limit are reported, not sent.
  const expected = { pages: summaryPages.size, files: assets.filter((rel) => tree.get(rel)!.byteLength <= MAX_FILE_BYTES).length }
  console.log(`tree: ${TREE}, ${tree.size} files (${assets.length} assets), ${(bytes / 1024 / 1024).toFixed(0)} MB; load ${load()}`)
  const floors: number[] = []
  const peaks: number[] = []
  try {
    for (let i = 0; i < ROUNDS; i++) {
      const run = await round(i, tree, expected, scratch, reporter)
      floors.push(mb(run.floor.peakKb))
      peaks.push(mb(run.push.peakKb))
      console.log(
        `round ${i + 1}: ${process.env.BENCH_IMPORT === '1' ? 'import' : 'push'} peak RSS ${mb(run.push.peakKb).toFixed(0)} MB in ${(run.push.wallMs / 1000).toFixed(1)} s; ` +
          `floor ${mb(run.floor.peakKb).toFixed(0)} MB; change request: ${run.pages} pages, ${run.files} files; load ${load()}`,
      )
    }
  } finally {
    fs.rmSync(scratch, { recursive: true, force: true })
  }
  const peak = median(peaks)
  console.log(`push peak RSS (median of ${ROUNDS}): ${peak.toFixed(0)} MB, floor ${median(floors).toFixed(0)} MB, above the floor ${(peak - median(floors)).toFixed(0)} MB`)
  console.log(`target <= ${TARGET_RSS_MB} MB: ${verdict(peak <= TARGET_RSS_MB)}; aim <= ${AIM_RSS_MB} MB: ${verdict(peak <= AIM_RSS_MB)}`)
}

main().catch((error: unknown) => {
  console.error(error)
  process.exitCode = 1
})

/**
 * The two operations the fault-injection test fails at every access: one push (a writer's edits of a few
 * pages, a new page and a comment marker become a change request, its content and a comment) and one
 * pass (sync down of a few remote changes, beside an edit the writer has not pushed). Each scenario
 * prepares a fresh space and workstation, runs its operation, completes after a failure the way Quire
 * would (the next rounds of `quire watch`), and states what must hold then: P1 (no edit lost), P3
 * (exactly once) and, after a clean pass, P4 (the folder equals the service).
 */
import fs from 'node:fs'
import path from 'node:path'
import type { Comment, Revision } from '@gitbook/api'
import { gitBlobOid } from '../../../src/main/content'
import { TEMP_MARK } from '../../../src/main/engine/workspace/atomic-write'
import { startLocalService, type LocalService } from '../../../src/main/service/local-service'
import { specRegistry } from '../../../src/main/service/spec/openapi-spec'
import { startTestService, type TestService } from '../../support/service'
import type { ScenarioName } from './fault-operation'
import { pagesOf, PNG, seedSpace, SEED_PAGES, tempDir, Workstation, type Remote, type SeededSpace } from '../sync-up/support/workspace'


/**
 * A scenario's starting point, made once: the service's data folder and the writer's folder (cache and
 * workspace), both closed. Every run starts from copies of them, so every i begins from the same bytes
 * and the seeding is not paid again.
 */
export interface Template {
  scenario: ScenarioName
  root: string
  token: string
  seeded: SeededSpace
  /** Texts the writer saved: each must survive (P1). */
  saved: Array<{ path: string; text: string }>
  /** A page file the writer deleted: the deletion must survive too (in the change request, or held by the pass). */
  removed: string
}

/** One run: a fresh service and workstation folder, copied from the template. */
export interface Instance extends Template {
  service: LocalService
  remote: Remote
  /** The workstation's folder (cache.db and workspace/). */
  dir: string
  close(): Promise<void>
}

export async function buildTemplate(scenario: ScenarioName): Promise<Template> {
  const root = tempDir(`quire-fault-${scenario}-`)
  const t = await startTestService({ dataDir: path.join(root, 'service') })
  try {
    const seeded = await seedSpace(t)
    const ws = new Workstation(t, seeded, path.join(root, 'writer'))
    try {
      await ws.pull()
      const saved = scenario === 'push' ? writerEdits(ws) : await remoteChanges(t, ws)
      // A deletion the writer made and has not pushed: a push sends it, a pass leaves the page out.
      const removed = scenario === 'push' ? 'getting-started.md' : 'faq.md'
      fs.rmSync(ws.file(removed))
      return { scenario, root, token: t.service.token, seeded, saved, removed }
    } finally {
      ws.close()
    }
  } finally {
    await t.close()
  }
}

let runs = 0

export async function instantiate(template: Template): Promise<Instance> {
  const dir = path.join(template.root, `run-${++runs}`)
  fs.cpSync(path.join(template.root, 'service'), path.join(dir, 'service'), { recursive: true, preserveTimestamps: true })
  fs.cpSync(path.join(template.root, 'writer'), path.join(dir, 'writer'), { recursive: true, preserveTimestamps: true })
  const service = await startLocalService({ dataDir: path.join(dir, 'service'), port: 0, token: template.token, log: () => {} })
  return {
    ...template,
    service,
    remote: { origin: service.origin, token: service.token, userId: service.ownerId },
    dir: path.join(dir, 'writer'),
    async close() {
      await service.close()
      fs.rmSync(dir, { recursive: true, force: true })
    },
  }
}

export function removeTemplate(template: Template) {
  fs.rmSync(template.root, { recursive: true, force: true })
}

/** The writer's session before a push: three edited pages, a new page, a comment marker (and a deletion). */
function writerEdits(ws: Workstation): Template['saved'] {
  const saved = [
    { path: 'guide/install.md', text: 'Run the installer, then restart the service.' },
    { path: 'README.md', text: 'Welcome to the guide, second edition.' },
    { path: 'guide/upgrade.md', text: 'Upgrading from v1 keeps your settings.' },
    { path: 'faq.md', text: 'How do I reset my password?' },
  ]
  ws.write('guide/install.md', `# Install\n\n${saved[0].text}\n`)
  ws.write('README.md', `# Home\n\n${saved[1].text}\n`)
  ws.write('guide/upgrade.md', `# Upgrade\n\n${saved[2].text}\n`)
  ws.write('faq.md', `${SEED_PAGES.faq}\n${saved[3].text}\n\n<!-- comment: ${COMMENT} -->\n`)
  return saved
}

export const COMMENT = 'Is the FAQ complete?'

/**
 * Another writer's merged change request (two edits, a new page with an image, a deletion, a rename)
 * for the pass to bring down, and one unpushed local edit the pass must leave alone (and a deletion).
 */
async function remoteChanges(t: TestService, ws: Workstation): Promise<Template['saved']> {
  const { spaceId } = ws.seeded
  const main = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body as Revision
  const ids = new Map([...pagesOf(main)].map(([id, p]) => [p.path, id]))
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Other writer' } })).body as { id: string }
  await t.api.call('updateChangeRequestContent', {
    params: { spaceId, changeRequestId: cr.id },
    body: {
      changes: [
        { operation: 'update_page', page: ids.get('guide/install.md'), document: { markdown: '# Install\n\nRun the installer as an administrator.\n' } },
        { operation: 'update_page', page: ids.get('guide/README.md'), document: { markdown: '# Guide\n\nThe guide, revised.\n' } },
        { operation: 'insert_files', files: [{ ref: 'chart', name: 'chart.png', base64: CHART.toString('base64') }] },
        { operation: 'insert_page', document: { markdown: '# Release notes\n\n![Chart](./chart)\n\nVersion 2 is out.\n' }, slug: 'release-notes' },
        { operation: 'delete_page', page: ids.get('getting-started.md') },
        { operation: 'update_page', page: ids.get('guide/configure.md'), slug: 'settings' },
      ],
    },
  })
  const merged = await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  if (merged.body.result !== 'merge') throw new Error(`the other writer's change request did not merge: ${JSON.stringify(merged.body)}`)
  const saved = [{ path: 'README.md', text: 'A local note the writer has not pushed yet.' }]
  ws.write('README.md', `${SEED_PAGES.home}\n${saved[0].text}\n`)
  return saved
}

const CHART = Buffer.concat([PNG, Buffer.from('chart')])

/**
 * What Quire does after a failed or killed operation: the next rounds of `quire watch` (push, pull when
 * a change request was settled) until nothing is left to send; then a clean pass. A round that throws
 * without any fault injected fails the test.
 */
export async function complete(ws: Workstation, scenario: ScenarioName): Promise<void> {
  if (scenario === 'pass') {
    for (let round = 0; round < 4; round++) {
      const pulled = await ws.pull()
      if (pulled.state === 'synced') return
    }
    throw new Error(`the pass does not reach "synced": ${JSON.stringify(ws.cache.space(ws.seeded.spaceId))}`)
  }
  for (let round = 0; round < 6; round++) {
    const result = await ws.push()
    if (result.settled) await ws.pull()
    if (!result.stopped && ws.outbox.unfinished(ws.seeded.spaceId).length === 0 && result.planned === 0) {
      await ws.pull()
      return
    }
  }
  throw new Error(`the outbox does not drain: ${JSON.stringify(ws.outbox.unfinished(ws.seeded.spaceId))}`)
}

/**
 * Every `.md` file of the folder (relative, sorted), conflicted copies included; not in hidden folders,
 * and not Quire's own temp files (a write that failed or was killed leaves one; the scanner and the
 * watcher ignore them and the next pass that writes removes them).
 */
export function pageFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(path.join(dir, entry.name), r)
      } else if (entry.name.endsWith('.md') && !entry.name.startsWith(TEMP_MARK)) out.push(r)
    }
  }
  walk(root, '')
  return out.sort()
}

const isCopy = (p: string) => / \(conflicted copy [^)]*\)\.md$/.test(p)

/** A read of the instance's service by operation id, without the spec checks (other tests make those). */
async function read<T>(i: Instance, operationId: string, params: Record<string, string>, query: Record<string, string> = {}): Promise<T> {
  const op = specRegistry().operation(operationId)
  const url = new URL(i.service.baseUrl + op.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name])))
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value)
  const response = await fetch(url, { headers: { Authorization: `Bearer ${i.service.token}` } })
  if (!response.ok) throw new Error(`${operationId} answered ${response.status}: ${await response.text()}`)
  return (await response.json()) as T
}

/**
 * The promises, after `complete`. Returns the problems found (empty when all hold), one line each, so a
 * failing i reports everything at once.
 */
export async function violations(i: Instance): Promise<string[]> {
  const problems: string[] = []
  const { spaceId } = i.seeded
  const ws = new Workstation(i.remote, i.seeded, i.dir)
  try {
    const local = pageFiles(ws.folder)
    const copies = local.filter(isCopy)
    const crs: Array<{ id: string; subject?: string }> = []
    for (const status of ['draft', 'open']) crs.push(...(await read<{ items: typeof crs }>(i, 'listChangeRequestsForSpace', { spaceId }, { status })).items)
    const main = await read<Revision>(i, 'getCurrentRevision', { spaceId })
    const markdownOf = async (pageId: string, changeRequestId?: string) =>
      (changeRequestId
        ? await read<{ markdown: string }>(i, 'getPageInChangeRequestById', { spaceId, changeRequestId, pageId }, { format: 'markdown' })
        : await read<{ markdown: string }>(i, 'getPageById', { spaceId, pageId }, { format: 'markdown' })
      ).markdown

    // P3: one change request for a push, none for a pass; every operation out of the outbox.
    const expectedCrs = i.scenario === 'push' ? 1 : 0
    if (crs.length !== expectedCrs) problems.push(`P3: ${crs.length} open change requests, expected ${expectedCrs}: ${crs.map((c) => c.subject).join(', ')}`)
    const unfinished = ws.outbox.unfinished(spaceId)
    if (unfinished.length > 0) problems.push(`outbox not drained: ${unfinished.map((op) => `${op.kind} ${op.state}`).join(', ')}`)
    const failures = ws.outbox.failures(spaceId)
    if (failures.length > 0) problems.push(`outbox failures: ${failures.map((op) => `${op.kind}: ${op.lastError}`).join('; ')}`)
    const space = ws.cache.space(spaceId)
    if (space?.state !== 'synced') problems.push(`space state ${space?.state}: ${space?.lastError ?? ''}`)

    // Where the service has the pages: the change request for a push, main for a pass. Files are
    // compared by git blob id with the revision's page oids (the oid is that of the page's markdown);
    // markdown is fetched only to show a difference or to look for a text that is not where expected.
    const cr = i.scenario === 'push' ? crs[0] : undefined
    const revision = cr ? await read<Revision>(i, 'getRevisionOfChangeRequestById', { spaceId, changeRequestId: cr.id }) : main
    const served = new Map([...pagesOf(revision)].map(([id, page]) => [page.path, { id, ...page }]))
    const titles = [...served.values()].map((p) => p.title)
    const localOid = (file: string) => (fs.existsSync(ws.file(file)) ? gitBlobOid(fs.readFileSync(ws.file(file))) : undefined)
    let everything: string[] | undefined
    const allServed = async () =>
      (everything ??= [
        ...(await Promise.all([...served.values()].map((p) => markdownOf(p.id, cr?.id)))),
        ...(cr ? await Promise.all([...pagesOf(main).keys()].map((id) => markdownOf(id))) : []),
      ])

    // P1: every saved text is on the service (the change request, or main) or in a conflicted copy; for
    // a pass, whose edit was never pushed, still in its file (or a conflicted copy).
    for (const s of i.saved) {
      const inCopy = copies.some((c) => ws.read(c).includes(s.text))
      const onDisk = fs.existsSync(ws.file(s.path)) && ws.read(s.path).includes(s.text)
      const kept =
        i.scenario === 'pass'
          ? onDisk
          : (onDisk && served.get(s.path)?.oid === localOid(s.path)) || (await allServed()).some((m) => m.includes(s.text))
      if (!kept && !inCopy) problems.push(`P1: "${s.text}" (saved in ${s.path}) is lost`)
    }
    // The writer's deletion is an edit too: its file stays gone, and a push takes the page out of the change request.
    if (fs.existsSync(ws.file(i.removed))) problems.push(`P1: ${i.removed}, deleted by the writer, is back`)
    if (i.scenario === 'push' && served.has(i.removed)) problems.push(`P1: the change request still has ${i.removed}, deleted by the writer`)

    // P3: each page once (the new one too), the comment once.
    for (const title of new Set(titles)) {
      const n = titles.filter((x) => x === title).length
      if (n > 1) problems.push(`P3: ${n} pages titled "${title}"`)
    }
    if (i.scenario === 'push') {
      if (!titles.includes('Upgrade')) problems.push('P1: the new page "Upgrade" is not in the change request')
      const posted = (await read<{ items: Comment[] }>(i, 'listCommentsInSpace', { spaceId }, { limit: '1000' })).items
      if (cr) posted.push(...(await read<{ items: Comment[] }>(i, 'listCommentsInChangeRequest', { spaceId, changeRequestId: cr.id }, { limit: '1000' })).items)
      const texts = posted.map((c) => (c.body as { markdown: string }).markdown)
      if (texts.length !== 1 || texts[0] !== COMMENT) problems.push(`P3: comments posted ${JSON.stringify(texts)}, expected "${COMMENT}" once`)
    }

    // P4 after a clean pass: every page of the service has its file, byte for byte, and no page file is
    // left over (SUMMARY.md and conflicted copies aside). For a push the service's version is the change
    // request's (main and the writer's edits); for a pass it is main's, the unpushed edit and deletion aside.
    const pages = local.filter((f) => f !== 'SUMMARY.md' && !isCopy(f))
    const missing = [...served.keys()].filter((f) => !pages.includes(f) && !(i.scenario === 'pass' && f === i.removed))
    const extra = pages.filter((f) => !served.has(f))
    if (missing.length > 0) problems.push(`P4: pages without a file: ${missing.join(', ')}`)
    if (extra.length > 0) problems.push(`P4: files without a page: ${extra.join(', ')}`)
    const unpushed = new Set(i.scenario === 'pass' ? i.saved.map((s) => s.path) : [])
    for (const [file, page] of served) {
      if (!pages.includes(file) || unpushed.has(file) || localOid(file) === page.oid) continue
      problems.push(`P4: ${file} differs from the service: ${JSON.stringify(ws.read(file))}, served ${JSON.stringify(await markdownOf(page.id, cr?.id))}`)
    }
    if (i.scenario === 'pass') {
      const chart = path.join(ws.folder, '.gitbook', 'assets', 'chart.png')
      if (!fs.existsSync(chart) || !fs.readFileSync(chart).equals(CHART)) problems.push('P4: .gitbook/assets/chart.png is missing or differs')
    }
    if (copies.length > 0) problems.push(`conflicted copies with no conflict: ${copies.join(', ')}`)
  } finally {
    ws.close()
  }
  return problems
}

import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest, Comment } from '@gitbook/api'
import { describe, expect, it } from 'vitest'
import { isPageFile } from '../../../src/main/engine/push/push-planner'
import { serviceForFile } from './support/hooks'
import { rng, type Rng } from './support/rng'
import { mainRevision, openChangeRequests, pagesOf, seedSpace, tempDir, Workstation, type SeededSpace } from './support/workspace'

/**
 * Random sequences of local edits, remote edits through the API, merges, 429 and 5xx answers, lost
 * answers and process kills, against the real local service. After convergence (faults off, the
 * writer's change request merged, pulls and pushes until nothing moves): every local edit is in the
 * service's content or in a conflicted copy, each comment marker is posted once, and the workspace
 * equals the service. Replay one sequence with QUIRE_FUZZ_SEED; run more with QUIRE_FUZZ_SEQUENCES.
 */

const SEQUENCES = Number(process.env.QUIRE_FUZZ_SEQUENCES ?? 200)
const BASE_SEED = Number(process.env.QUIRE_FUZZ_SEED ?? Date.now() % 1_000_000)

/** The network between the writer's Quire and the service, misbehaving on purpose. */
class Faults {
  on = true
  killed = false
  constructor(private readonly r: Rng) {}

  fetch: typeof fetch = async (input, init) => {
    if (!this.on || this.killed) return fetch(input, init)
    const roll = this.r.next()
    const error = (status: number, message: string) =>
      new Response(JSON.stringify({ error: { code: status, message } }), { status, headers: { 'content-type': 'application/json', ...(status === 429 ? { 'retry-after': '0' } : {}) } })
    if (roll < 0.05) return error(429, 'rate limited')
    if (roll < 0.08) return error(503, 'unavailable')
    const response = await fetch(input, init)
    if (roll < 0.1) {
      await response.body?.cancel()
      throw new TypeError('fetch failed: the connection dropped before the answer')
    }
    if (roll < 0.12) {
      // The process dies right after the service acted: nothing of the answer is recorded.
      await response.body?.cancel()
      this.killed = true
      throw new TypeError('fetch failed: killed')
    }
    return response
  }
}

const t = serviceForFile()

interface Run {
  seeded: SeededSpace
  dir: string
  ws: Workstation
  faults: Faults
  /** Unique words the writer typed, each expected in the service's content or a conflicted copy. */
  written: Set<string>
  /** Comment texts typed as markers, by page file at the time. */
  comments: string[]
  /** Words whose file the writer deleted afterwards (a deletion is an edit too), or whose page someone deleted after they were merged. */
  deletedWords: Set<string>
  token: number
}

function open(run: Pick<Run, 'faults' | 'seeded' | 'dir'>): Workstation {
  run.faults.killed = false
  return new Workstation(t, run.seeded, run.dir, { gateway: { fetch: run.faults.fetch, maxAttempts: 3 } })
}

function pageFiles(ws: Workstation): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    if (!fs.existsSync(dir)) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(path.join(dir, entry.name), r)
      } else if (isPageFile(r)) out.push(r)
    }
  }
  walk(ws.folder, '')
  return out.sort()
}

async function step(r: Rng, run: Run): Promise<string> {
  const ws = run.ws
  const files = pageFiles(ws)
  const editable = files.filter((f) => f !== 'README.md')
  const word = () => `w${run.token++}x`
  const roll = r.next()
  if (roll < 0.25 && files.length > 0) {
    const file = r.pick(files)
    const w = word()
    ws.write(file, `${ws.read(file).trimEnd()}\n\nLocal ${w}.\n`)
    run.written.add(w)
    return `edit ${file}`
  }
  if (roll < 0.32) {
    const w = word()
    const file = `${r.chance(0.5) && fs.existsSync(ws.file('guide/README.md')) ? 'guide/' : ''}page-${w}.md`
    ws.write(file, `# Page ${w}\n\nNew ${w}.\n`)
    run.written.add(w)
    return `new ${file}`
  }
  if (roll < 0.36 && editable.length > 0) {
    const file = r.pick(editable.filter((f) => !f.endsWith('/README.md')))
    if (file) fs.rmSync(ws.file(file))
    return `delete ${file}`
  }
  if (roll < 0.4 && editable.length > 0) {
    const file = r.pick(editable.filter((f) => !f.endsWith('README.md')))
    if (!file) return 'noop'
    // A rename in place, or a move between the top level and the guide.
    const folder = r.chance(0.3) && fs.existsSync(ws.file('guide/README.md')) ? (path.posix.dirname(file) === '.' ? 'guide/' : '') : path.posix.dirname(file) === '.' ? '' : `${path.posix.dirname(file)}/`
    const target = `${folder}renamed-${run.token++}.md`
    fs.renameSync(ws.file(file), ws.file(target))
    return `rename ${file} ${target}`
  }
  if (roll < 0.46 && files.length > 0) {
    const file = r.pick(files)
    const text = `Question ${run.token++}?`
    ws.write(file, `${ws.read(file).trimEnd()}\n\n<!-- comment: ${text} -->\n`)
    run.comments.push(text)
    return `marker ${file}`
  }
  if (roll < 0.56) return remoteEdit(r, run)
  if (roll < 0.62) {
    const [cr] = await openChangeRequests(t.api, run.seeded.spaceId)
    if (!cr) return 'merge: none'
    if (r.chance(0.5)) {
      // Merged by Quire (through its outbox), then the workspace follows.
      try {
        const answer = await ws.pusher.merge(cr.id)
        return `quire merge ${answer.result}`
      } catch (error) {
        return `quire merge refused: ${error instanceof Error ? error.message : String(error)}`
      } finally {
        if (run.faults.killed) {
          ws.close()
          run.ws = open(run)
        }
      }
    }
    const merged = await t.api.call('mergeChangeRequest', { params: { spaceId: run.seeded.spaceId, changeRequestId: cr.id } })
    return `merge ${merged.body.result}`
  }
  if (roll < 0.85) {
    await ws.push()
    if (run.faults.killed) {
      ws.close()
      run.ws = open(run)
      return 'push (killed)'
    }
    return 'push'
  }
  try {
    await ws.pull()
  } catch {
    return 'pull (failed)'
  }
  return 'pull'
}

/** Someone else changes the space: a page's text, or a deletion, merged at once. */
async function remoteEdit(r: Rng, run: Run): Promise<string> {
  const spaceId = run.seeded.spaceId
  const pages = [...pagesOf(await mainRevision(t.api, spaceId))].filter(([, p]) => p.path !== 'README.md')
  if (pages.length === 0) return 'remote: nothing'
  const [id, page] = r.pick(pages)
  const cr = (await t.api.call('createChangeRequest', { params: { spaceId }, body: { subject: 'Someone else' } })).body as ChangeRequest
  const remove = r.chance(0.2) && !page.path.endsWith('README.md')
  const markdown = (await t.api.call('getPageById', { params: { spaceId, pageId: id }, query: { format: 'markdown' } })).body.markdown as string
  // Words already merged into the page are the remote's to delete: that is no lost local edit.
  if (remove) for (const w of run.written) if (markdown.includes(w)) run.deletedWords.add(w)
  const changes = remove ? [{ operation: 'delete_page', page: id }] : [{ operation: 'update_page', page: id, document: { markdown: `${markdown.trimEnd()}\n\nRemote r${run.token++}.\n` } }]
  await t.api.call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  return `remote ${remove ? 'delete' : 'edit'} ${page.path}`
}

/** Faults off; push and pull until nothing moves; merge the writer's change request; again. */
async function converge(run: Run) {
  run.faults.on = false
  const spaceId = run.seeded.spaceId
  for (let round = 0; round < 6; round++) {
    for (let i = 0; i < 3; i++) {
      await run.ws.push()
      await run.ws.pull()
    }
    const crs = await openChangeRequests(t.api, spaceId)
    if (crs.length === 0 && (await run.ws.push()).planned === 0) break
    for (const cr of crs) {
      let merged = await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
      if (merged.body.result === 'conflicts') {
        await t.api.call('updateChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
        merged = await t.api.call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
      }
    }
  }
}

async function check(run: Run, label: string) {
  const spaceId = run.seeded.spaceId
  const ws = run.ws
  expect(await openChangeRequests(t.api, spaceId), `${label}: open change requests`).toEqual([])
  expect(ws.outbox.unfinished(spaceId), `${label}: outbox`).toEqual([])
  const main = pagesOf(await mainRevision(t.api, spaceId))
  const served = new Map<string, string>()
  for (const [id, page] of main) served.set(page.path, (await t.api.call('getPageById', { params: { spaceId, pageId: id }, query: { format: 'markdown' } })).body.markdown)
  // The workspace equals the service (conflicted copies aside).
  const files = pageFiles(ws)
  const debug = () => JSON.stringify({ ops: ws.outbox.ops(spaceId).map((o) => [o.seq, o.kind, o.state, o.lastError, o.key.slice(0, 60), o.kind === 'content' ? o.payload.changes.map((c) => c.operation + ':' + ('page' in c ? c.page : '') + ':' + ('slug' in c ? c.slug : '')) : '']), entries: ws.outbox.entries(spaceId), journal: ws.cache.journal(spaceId).map((j) => `${j.id}@${j.path}`) }, null, 1)
  expect(files, `${label}: page files ${process.env.QUIRE_FUZZ_DEBUG ? debug() : ''}`).toEqual([...served.keys()].sort())
  for (const file of files) expect(ws.read(file), `${label}: ${file}`).toBe(served.get(file))
  // Every local edit is in the service's content or in a conflicted copy.
  const copies = fs.existsSync(ws.folder) ? listCopies(ws.folder).map((p) => fs.readFileSync(p, 'utf8')) : []
  const everything = [...served.values(), ...copies].join('\n')
  const deleted = new Set<string>()
  for (const w of run.written) if (!everything.includes(w)) deleted.add(w)
  // A word can only be missing when its page was deleted locally afterwards (a deletion is an edit too).
  expect([...deleted].filter((w) => !run.deletedWords.has(w)), `${label}: lost edits ${process.env.QUIRE_FUZZ_DEBUG ? debug() : ''}`).toEqual([])
  // Each marker posted once.
  const posted: Comment[] = (await t.api.call('listCommentsInSpace', { params: { spaceId }, query: { limit: 1000 } })).body.items
  const crComments: Comment[] = []
  for (const status of ['merged', 'archived']) {
    for (const cr of (await t.api.call('listChangeRequestsForSpace', { params: { spaceId }, query: { status, limit: 1000 } })).body.items as ChangeRequest[]) {
      crComments.push(...((await t.api.call('listCommentsInChangeRequest', { params: { spaceId, changeRequestId: cr.id }, query: { limit: 1000 } })).body.items as Comment[]))
    }
  }
  const bodies = [...posted, ...crComments].map((c) => (c.body as { markdown: string }).markdown)
  for (const text of new Set(run.comments)) expect(bodies.filter((b) => b === text).length, `${label}: comment "${text}" ${process.env.QUIRE_FUZZ_DEBUG ? debug() + JSON.stringify([...posted, ...crComments].map((c) => [c.id, c.target, (c.body as { markdown: string }).markdown])) : ''}`).toBeLessThanOrEqual(1)
  for (const file of files) expect(ws.read(file), `${label}: marker left in ${file}`).not.toMatch(/<!-- comment:/)
}

function listCopies(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else if (entry.name.includes('(conflicted copy ')) out.push(full)
    }
  }
  walk(root)
  return out
}

describe('randomized sequences against the real service', () => {
  it(`${SEQUENCES} sequences converge without losing an edit (base seed ${BASE_SEED})`, { timeout: 900_000 }, async () => {
    const started = Date.now()
    for (let n = 0; n < SEQUENCES; n++) {
      const seed = BASE_SEED + n
      const r = rng(seed)
      const dir = tempDir('quire-fuzz-')
      const seeded = await seedSpace(t)
      const partial = { seeded, dir, faults: new Faults(r), written: new Set<string>(), comments: [], token: 0, deletedWords: new Set<string>() }
      const run: Run = { ...partial, ws: open(partial) }
      const history: string[] = []
      try {
        run.faults.on = false
        await run.ws.pull()
        run.faults.on = true
        const steps = 4 + r.int(10)
        for (let i = 0; i < steps; i++) {
          const before = new Map(pageFiles(run.ws).map((f) => [f, run.ws.read(f)]))
          history.push(await step(r, run))
          // Words in files the writer deleted are gone by the writer's own hand.
          for (const [file, text] of before) if (!fs.existsSync(run.ws.file(file)) && history[history.length - 1].startsWith('delete')) for (const w of run.written) if (text.includes(w)) run.deletedWords.add(w)
        }
        await converge(run)
        await check(run, `seed ${seed} [${history.join('; ')}]`)
      } catch (error) {
        if (error instanceof Error && !error.message.startsWith('seed ')) error.message = `seed ${seed} [${history.join('; ')}]: ${error.message}\n${error.stack}`
        throw error
      } finally {
        run.ws.close()
        fs.rmSync(dir, { recursive: true, force: true })
      }
    }
    console.log(`randomized: ${SEQUENCES} sequences from seed ${BASE_SEED} in ${Date.now() - started} ms`)
  })
})

import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import type { RemotePageRow } from '../../../src/main/engine/cache/cache-repository'
import { findMarkers, stripMarkers } from '../../../src/main/engine/comments/markers'
import { isPageFile, planPush } from '../../../src/main/engine/push/push-planner'
import type { EntryUpdate, LocalFile, PushedEntry, PushInput, PushPlan, SkipReason } from '../../../src/main/engine/push/push-types'
import type { JournalEntry } from '../../../src/main/engine/sync/plan-types'
import { rng, type Rng } from '../../support/rng'

/**
 * The push planner on generated cases: a small synced space (the merge base), random remote changes,
 * random local edits, renames, moves, deletions, new pages and comment markers, and several rounds of
 * "plan, apply, edit more". Replayable: QUIRE_PLAN_SEED, QUIRE_PLAN_CASES.
 *
 * Files the scanner sees but does not read come and go too: a page file or the guide/ folder replaced
 * by a symlink, grown too large, hidden (the scan's `skipped`), later put back.
 *
 * Properties: planning terminates; no local edit is lost (each is sent, already carried, already the
 * remote content, or kept in a conflicted copy); applying a plan and planning again gives nothing
 * (convergence); nothing is deleted whose file is still there, read or not; no path is inserted twice.
 */

const CASES = Number(process.env.QUIRE_PLAN_CASES ?? 100_000)
const SEED = Number(process.env.QUIRE_PLAN_SEED ?? Date.now() % 1_000_000)

interface World {
  journal: JournalEntry[]
  main: RemotePageRow[]
  /** Remote page texts by oid (to give a conflicted file its remote version). */
  remoteText: Map<string, string>
  local: Map<string, string>
  pushed: Map<string, PushedEntry>
  posted: Set<string>
  fresh: number
  /** Paths the scan sees and does not read (a folder for all under it), with the files they hide. */
  skipped: Map<string, { reason: SkipReason; files: Map<string, string> }>
}

const LAYOUT: Array<{ id: string; path: string; parent?: string; slug: string; title: string }> = [
  { id: 'home', path: 'README.md', slug: 'home', title: 'Home' },
  { id: 'start', path: 'start.md', slug: 'start', title: 'Start' },
  { id: 'guide', path: 'guide/README.md', slug: 'guide', title: 'Guide' },
  { id: 'install', path: 'guide/install.md', parent: 'guide', slug: 'install', title: 'Install' },
  { id: 'config', path: 'guide/config.md', parent: 'guide', slug: 'config', title: 'Config' },
  { id: 'faq', path: 'faq.md', slug: 'faq', title: 'FAQ' },
]

const page = (title: string, body: string) => `# ${title}\n\n${body}\n`

function makeWorld(r: Rng): World {
  const chosen = LAYOUT.filter((p) => p.id === 'home' || p.id === 'guide' || r.chance(0.7))
  const world: World = { journal: [], main: [], remoteText: new Map(), local: new Map(), pushed: new Map(), posted: new Set(), fresh: 0, skipped: new Map() }
  chosen.forEach((p, position) => {
    const text = page(p.title, `Body of ${p.id}.`)
    const oid = gitBlobOid(text)
    world.journal.push({ id: p.id, kind: 'page', path: p.path, oid, baseHash: oid })
    world.main.push({ id: p.id, parentId: p.parent, position, kind: 'document', title: p.title, slug: p.slug, gitPath: p.path, gitOid: oid })
    world.remoteText.set(oid, text)
    world.local.set(p.path, text)
  })
  return world
}

function remoteChanges(r: Rng, w: World) {
  for (const row of w.main) {
    if (row.id === 'home') continue
    if (r.chance(0.12)) {
      const text = page(row.title, `Remote text ${r.int(1000)}.`)
      row.gitOid = gitBlobOid(text)
      w.remoteText.set(row.gitOid, text)
    } else if (r.chance(0.05) && !w.main.some((c) => c.parentId === row.id)) {
      w.main = w.main.filter((m) => m !== row)
    }
  }
}

/** Files become unreadable to the scan (symlink, too large, hidden folder) or are put back. */
function unreadable(r: Rng, w: World) {
  if (w.skipped.size > 0 && r.chance(0.4)) {
    for (const { files } of w.skipped.values()) for (const [p, text] of files) w.local.set(p, text)
    w.skipped.clear()
  }
  if (r.chance(0.08) && w.local.has('guide/README.md')) {
    const files = new Map([...w.local].filter(([p]) => p.startsWith('guide/')))
    for (const p of files.keys()) w.local.delete(p)
    w.skipped.set('guide', { reason: r.pick<SkipReason>(['symlink', 'hidden', 'unreadable']), files })
  }
  for (const p of [...w.local.keys()].filter(isPageFile)) {
    if (!r.chance(0.05)) continue
    w.skipped.set(p, { reason: r.pick<SkipReason>(['symlink', 'too-large', 'not-a-file']), files: new Map([[p, w.local.get(p)!]]) })
    w.local.delete(p)
  }
}

function localChanges(r: Rng, w: World) {
  unreadable(r, w)
  const pages = [...w.local.keys()].filter(isPageFile)
  for (const path of pages) {
    const text = w.local.get(path)!
    const roll = r.next()
    if (roll < 0.25) w.local.set(path, `${text.trimEnd()}\n\nLocal edit ${r.int(1000)}.\n`)
    else if (roll < 0.32) w.local.set(path, `${text.trimEnd()}\n\n<!-- comment: Question ${r.int(5)}? -->\n`)
    else if (roll < 0.37 && path !== 'README.md' && !path.endsWith('/README.md')) w.local.delete(path)
    else if (roll < 0.44 && path !== 'README.md' && !path.endsWith('/README.md')) {
      const target = r.pick(['', 'guide/']) + `renamed-${w.fresh++}.md`
      if (!w.local.has(target) && w.local.has('guide/README.md')) {
        w.local.delete(path)
        w.local.set(target, text)
      }
    }
  }
  if (r.chance(0.3)) {
    const target = r.pick(['', 'guide/']) + `new-${w.fresh++}.md`
    if (!target.startsWith('guide/') || w.local.has('guide/README.md')) w.local.set(target, page(`New ${w.fresh}`, `Fresh page.${r.chance(0.2) ? '\n\n<!-- comment: New page question -->' : ''}`))
  }
}

function input(w: World): PushInput {
  const local = new Map<string, LocalFile>([...w.local].map(([p, text]) => [p, { hash: gitBlobOid(text), size: text.length, text }]))
  return {
    spaceId: 's',
    journal: w.journal,
    main: { pages: w.main, files: [] },
    local,
    skipped: new Map([...w.skipped].map(([p, s]) => [p, s.reason])),
    pushed: [...w.pushed.values()],
    posted: w.posted,
    refused: new Set(),
    stamp: '2026-01-01 000000',
  }
}

/** What the engine does with a plan, minus the network: entries recorded, ids given, markers posted and removed, conflicts written. */
function apply(w: World, plan: PushPlan) {
  const setEntries = (updates: readonly EntryUpdate[]) => {
    for (const u of updates) {
      if (u.op === 'remove') w.pushed.delete(u.path)
      else {
        const previous = w.pushed.get(u.path)
        const { op: _op, ...entry } = u
        w.pushed.set(u.path, { ...entry, pageId: entry.pageId ?? previous?.pageId ?? (entry.ref ? `id-${entry.ref}` : undefined), ref: entry.ref ?? previous?.ref })
      }
    }
  }
  for (const c of plan.changes) setEntries(c.entries)
  setEntries(plan.bookkeeping)
  for (const m of plan.markers) {
    w.posted.add(m.key)
    const text = w.local.get(m.path)
    if (text !== undefined) w.local.set(m.path, stripMarkers(text, findMarkers(text).filter((x) => x.source === m.marker.source)))
  }
  for (const r of plan.relocations) w.journal = w.journal.map((j) => (j.id === r.pageId ? { ...j, path: r.to, baseHash: r.hash } : j))
  for (const o of plan.orphans) {
    w.local.set(o.copyPath, o.text)
    w.local.set(o.path, stripMarkers(o.text))
  }
  for (const c of plan.conflicts) {
    w.local.set(c.copyPath, c.localText)
    const remote = w.remoteText.get(c.remoteOid)!
    w.local.set(c.path, remote)
    w.journal = w.journal.map((j) => (j.id === c.pageId ? { ...j, path: c.path, oid: c.remoteOid, baseHash: gitBlobOid(remote) } : j))
    const entry = w.pushed.get(c.path)
    if (entry) w.pushed.set(c.path, { ...entry, state: 'conflict' })
  }
}

function sentMarkdown(plan: PushPlan): Set<string> {
  const out = new Set<string>()
  for (const { change } of plan.changes) {
    if ((change.operation === 'insert_page' || change.operation === 'update_page') && change.document && 'markdown' in change.document) out.add(change.document.markdown as string)
  }
  return out
}

function checkNoLostEdit(w: World, plan: PushPlan, label: string) {
  const sent = sentMarkdown(plan)
  const mainOids = new Set(w.main.map((m) => m.gitOid))
  // Content equal to a merge base is no edit (a rename of an unedited file, say).
  const bases = new Set(w.journal.map((j) => j.baseHash))
  const kept = new Set([...plan.conflicts.map((c) => c.localText), ...plan.orphans.map((o) => o.text)])
  const planned = new Map<string, string>()
  for (const u of [...plan.changes.flatMap((c) => c.entries), ...plan.bookkeeping]) if (u.op === 'set') planned.set(u.path, u.hash)
  for (const [path, text] of w.local) {
    if (!isPageFile(path)) continue
    const content = stripMarkers(text)
    const hash = gitBlobOid(content)
    if (content.trim() === '') continue
    const ok = bases.has(hash) || planned.get(path) === hash || sent.has(content) || w.pushed.get(path)?.hash === hash || mainOids.has(hash) || kept.has(text) || [...w.pushed.values()].some((e) => e.hash === hash && e.state !== 'deleted')
    if (!ok) throw new Error(`${label}: the edit of ${path} is neither sent, carried, remote nor kept\n${dump(w, plan)}`)
  }
}

function dump(w: World, plan: PushPlan): string {
  return JSON.stringify(
    { local: [...w.local.keys()], journal: w.journal.map((j) => `${j.id}@${j.path}`), main: w.main.map((m) => `${m.id}<${m.parentId ?? ''}`), pushed: [...w.pushed.values()], changes: plan.changes.map((c) => ({ ...c.change, document: undefined })), bookkeeping: plan.bookkeeping },
    null,
    1,
  )
}

function checkShape(w: World, plan: PushPlan, label: string) {
  const inserted = new Set<string>()
  for (const c of plan.changes) {
    for (const e of c.entries) {
      if (c.change.operation === 'insert_page' && e.op === 'set') {
        if (inserted.has(e.path)) throw new Error(`${label}: ${e.path} inserted twice`)
        inserted.add(e.path)
      }
    }
    if (c.change.operation === 'delete_page') {
      const id = c.change.page
      const j = w.journal.find((x) => x.id === id)
      const carriedAt = [...w.pushed.values()].find((p) => p.pageId === id && p.state !== 'deleted')?.path
      const path = carriedAt ?? j?.path
      if (path && w.local.has(path)) throw new Error(`${label}: deletes ${id} whose file ${path} is still there`)
      const hidden = path && [...w.skipped.values()].some((sk) => sk.files.has(path))
      if (hidden) throw new Error(`${label}: deletes ${id} whose file ${path} is there but not read`)
    }
  }
}

describe('push planner, generated cases', () => {
  it(`holds its properties on ${CASES} cases (seed ${SEED})`, { timeout: 600_000 }, () => {
    const r = rng(SEED)
    let changes = 0
    for (let n = 0; n < CASES; n++) {
      const label = `seed ${SEED} case ${n}`
      const w = makeWorld(r)
      const rounds = 1 + r.int(3)
      for (let round = 0; round < rounds; round++) {
        if (r.chance(0.5)) remoteChanges(r, w)
        localChanges(r, w)
        let settled = false
        // One plan sends everything; a marker on a page that plan creates goes out with the next one.
        for (let step = 0; step < 4 && !settled; step++) {
          const plan = planPush(input(w))
          checkShape(w, plan, `${label} round ${round} step ${step}`)
          checkNoLostEdit(w, plan, `${label} round ${round} step ${step}`)
          changes += plan.changes.length
          apply(w, plan)
          settled = plan.changes.length === 0 && plan.conflicts.length === 0 && plan.orphans.length === 0 && plan.relocations.length === 0 && plan.markers.every((m) => !m.post)
          if (step === 2 && !settled) {
            const again = planPush(input(w))
            throw new Error(`${label}: not converged after applying a plan: ${JSON.stringify({ changes: again.changes.map((c) => c.change), conflicts: again.conflicts.length })}`)
          }
        }
        for (const key of [...w.posted]) expect(key.startsWith('marker:s:')).toBe(true)
      }
    }
    expect(changes).toBeGreaterThan(CASES / 10)
  })
})

import fs from 'node:fs'
import path from 'node:path'
import type { ChangeRequest, Comment, Revision } from '@gitbook/api'
import { describe, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { openCacheDatabase } from '../../../src/main/engine/cache/open-cache'
import { isPageFile } from '../../../src/main/engine/push/push-planner'
import { isIgnoredPath } from '../../../src/main/engine/watch/ignore'
import { OrganizationsRepository } from '../../../src/main/service/store/organizations'
import { ApiClient } from '../../support/service'
import { changeRequestsOf, checkConvergence, conflictCopies, checkExactlyOnce, checkNoEditLost, checkNoMergedEditUndone, checkOnlyWhatTheWriterDid, checkPageIdentity, checkSummaryOrder, Ledger, mainPages, noteCreated, pagesWithText, pageTexts, wordsIn } from './support/fuzz-invariants'
import { CACHE_DAMAGES, type CacheDamage, damageCache, EDGE_DRAWS, type EdgeHarness, lostAnswerThenCollaborator, repeatedAction, updateAfterConflictingMerge } from './support/fuzz-edge-draws'
import { FuzzNetwork } from './support/fuzz-network'
import { restartableServiceForFile, UncheckedApiClient } from './support/restartable-service'
import { rng, type Rng } from '../../support/rng'
import { AppWorkstation, type Writer } from './support/app-workstation'
import { remoteOf, seedSpace, tempDir, Workstation, type SeededSpace } from './support/workspace'

// The writers here save in one synchronous call (open, write, close), never paused between the open and
// the write: the wait for such a paused save after each pass (ReplacedFiles, 100 ms) would only add up,
// pass after pass. The files a pass replaced are still looked at when it ends.
process.env.QUIRE_LATE_SAVE_MS = '0'

/**
 * Random sequences of a writer's saves (edits, new pages, deletions, renames, comment and reply markers,
 * saves during sync down passes, page files replaced by symlinks or grown past 8 MB), someone else's work
 * (edits and deletions merged at once, pages with hidden or editor-junk slugs, edits inside the writer's
 * change request, "update from main" after an unrelated merge), merges, issue 25's edges
 * (support/fuzz-edge-draws.ts: a reviewer's update from main after a conflicting merge, run through the
 * writer's front end, quire cr update or the app's Update from main; a lost answer, applied or not, then a
 * collaborator's paragraph in the same page inside the writer's change request; the same comment, reply or
 * resolve asked twice from the CLI or the app; cache.db truncated, zeroed or byte-flipped between steps,
 * set aside and rebuilt; and, during passes, saves by a temp file renamed over the page file), and a
 * network that answers 429
 * and 5xx, loses answers, cuts bodies mid-read, refuses connections while the service restarts, and a
 * process killed after the service acted. Against the real local service, after every merge (only a
 * merge changes the space's content) and at the quiet points before and after the final merge (P1 is
 * checked before it too, so no edit lost while a change request was open is hidden by merging it), the
 * promises of /work/shared/PROMISES.md hold:
 * P1 no edit lost, P2 no merged edit undone, P3 exactly once, P4 convergence, P6 only what the writer
 * did, P8 every pass and push ends.
 *
 * Each sequence runs twice: through the CLI's engine (a workstation pushing and pulling as `quire watch`
 * does) and through the app (QuireBackend, the class the Electron app and `quire serve` run, its own
 * workspace session doing every push and pass; a kill closes the backend and opens a new one over the
 * same data folder). QUIRE_FUZZ_FRONT_END=cli|app runs one of them.
 *
 * QUIRE_FUZZ_SEQUENCES sequences from QUIRE_FUZZ_SEED; a failure names its seed: replay it with
 * QUIRE_FUZZ_SEED=<seed> QUIRE_FUZZ_SEQUENCES=1 (QUIRE_FUZZ_DEBUG=1 adds the outbox, journal and files;
 * QUIRE_FUZZ_ALL=1 runs every sequence and reports all failures; QUIRE_FUZZ_TIMING=1 prints each step's
 * CPU time; QUIRE_FUZZ_TRACE=1 prints the outbox after each step). Faults are drawn per request shape and rank, so a seed replays the same faults; how a save
 * during a pass interleaves with the pass's own writes depends on timing, so that part may not replay exactly.
 */

const SEQUENCES = Number(process.env.QUIRE_FUZZ_SEQUENCES ?? 200)
// CI runs a fixed window of seeds (replayable, and the same every run); set QUIRE_FUZZ_SEED to explore others.
const BASE_SEED = Number(process.env.QUIRE_FUZZ_SEED ?? 9000)

/**
 * Sequences of the default window that still break a promise, each an open bug (issue 25's closing
 * note), keyed `<front end>:<seed>`. They are skipped only in the default window (and listed at the end
 * of the run); any other failing sequence fails the test, and an explicit QUIRE_FUZZ_SEED replays them.
 */
const KNOWN_OPEN: Record<string, string> = process.env.QUIRE_FUZZ_SEED
  ? {}
  : {
      // None open now; an entry reads `'cli:9096': 'P4: what breaks, and after what'`.
    }
/** P8: a push or pass that takes longer than this did not end. */
const ENDS_WITHIN_MS = 60_000
const OVERSIZED_BYTES = 8 * 1024 * 1024 + 4096
const JUNK_SLUGS = ['.notes', 'drafts~', '4913', 'x.swp', 'work.tmp']

// Answers are not checked against the spec here (the service's conformance tests do that): a sequence reads
// whole revisions after every step, and 200 of them run in every CI run.
const t = restartableServiceForFile({ validateResponses: false })
let other: { id: string; api: ApiClient } | undefined

interface Run {
  seed: number
  r: Rng
  seeded: SeededSpace
  dir: string
  frontEnd: FrontEnd
  /**
   * Paragraph-level sequences (even seeds): the writer's saves (edits, markers, saves during passes) add
   * paragraphs under the title, everyone else's at the end, and nobody edits inside the writer's change
   * request, so no paragraph is changed on both sides: no conflicted copy may appear (issue 15), but for
   * the copy that keeps comment markers of a page someone else deleted before they were posted.
   */
  disjoint: boolean
  ws: Writer
  net: FuzzNetwork
  ledger: Ledger
  step: number
  token: number
  /** Files sync up must not read (symlinks, over 8 MB): never picked again, not compared byte for byte. */
  special: Map<string, 'symlink' | 'oversized'>
  /** Saves scheduled from inside a pass, awaited before the next step. */
  saves: Set<Promise<void>>
  /** The journal's pages (path -> id) as they were when the cache was lost: the writer still knows them. */
  lostJournal: Map<string, string>
  /**
   * Files the writer renamed or moved (path -> page), for as long as neither the journal nor the change
   * request knows them there: a deletion of such a file is the writer's deletion of that page (P6, P9).
   */
  movedTo: Map<string, string>
}

const someoneElse = () => other!.api

// The gateway's own pace (50 requests a second by default, for the hosted service) would make a sequence
// wait on a quiet machine; the 429 faults still exercise rate limiting.
/** An empty cache database at the latest schema, copied for each sequence (migrating a new file costs a dozen fsyncs). */
let template: string | undefined

type FrontEnd = 'cli' | 'app'
const FRONT_ENDS: FrontEnd[] = process.env.QUIRE_FUZZ_FRONT_END ? [process.env.QUIRE_FUZZ_FRONT_END as FrontEnd] : ['cli', 'app']

async function open(run: Pick<Run, 'net' | 'seeded' | 'dir' | 'frontEnd'>): Promise<Writer> {
  run.net.killed = false
  const cache = path.join(run.dir, 'cache.db')
  if (template && !fs.existsSync(cache)) fs.copyFileSync(template, cache)
  const gateway = { fetch: run.net.fetch, maxAttempts: 3, intervalCap: 100_000, backoff: { baseMs: 5, capMs: 20 } }
  if (run.frontEnd === 'cli') return new Workstation(t, run.seeded, run.dir, { gateway })
  // The app's start (sign-in, discovery, selection) runs with faults off and the service up; what follows is faulted.
  return AppWorkstation.open(remoteOf(t), run.seeded, run.dir, gateway, async (work) => {
    const on = run.net.on
    run.net.on = false
    await ensureUp()
    try {
      await work()
    } finally {
      run.net.on = on
    }
  })
}

/** Page files the writer may pick: not hidden, not junk, not special, not conflicted copies. */
function pageFiles(run: Run): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    if (!fs.existsSync(dir)) return
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(path.join(dir, entry.name), r)
      } else if (entry.isFile() && isPageFile(r) && !isIgnoredPath(r) && !run.special.has(r)) out.push(r)
    }
  }
  walk(run.ws.folder, '')
  return out.sort()
}

/** The page the writer's file at `file` stands for (journal, then the change request's entries). */
function pageAt(run: Run, file: string): string | undefined {
  const spaceId = run.seeded.spaceId
  return run.ws.cache.journal(spaceId).find((j) => j.kind === 'page' && j.path === file)?.id ?? run.ws.outbox.entries(spaceId).find((e) => e.path === file)?.pageId ?? run.movedTo.get(file) ?? run.lostJournal.get(file)
}

function touch(run: Run, file: string) {
  const id = pageAt(run, file)
  if (id) run.ledger.touched.add(id)
}

async function ensureUp() {
  if (!t.running) await t.start()
}

/** P8: every push and pass ends. */
async function ends<T>(what: string, work: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`P8 termination: the ${what} did not end within ${ENDS_WITHIN_MS} ms`)), ENDS_WITHIN_MS)
  })
  try {
    return await Promise.race([work, late])
  } finally {
    clearTimeout(timer)
  }
}

async function push(run: Run): Promise<string> {
  let label = 'push'
  try {
    const result = await ends('push', run.ws.push())
    if (result.stopped) label += ` (stopped: ${result.stopped.reason})`
  } catch (error) {
    label += ` (threw: ${error instanceof Error ? error.message.slice(0, 120) : String(error)})`
    if (String(error).includes('P8')) throw error
  }
  return await reopenIfKilled(run, label)
}

async function pull(run: Run): Promise<string> {
  let label = 'pull'
  run.net.passing = true
  try {
    await ends('sync down pass', run.ws.pull())
  } catch (error) {
    label += ` (failed: ${error instanceof Error ? error.message.slice(0, 120) : String(error)})`
    if (String(error).includes('P8')) throw error
  } finally {
    run.net.passing = false
  }
  await Promise.all(run.saves)
  return await reopenIfKilled(run, label)
}

async function reopenIfKilled(run: Run, label: string): Promise<string> {
  if (!run.net.killed) return label
  await run.ws.close()
  run.ws = await open(run)
  return `${label} (killed)`
}

function append(run: Run, file: string, line: string) {
  run.ws.write(file, `${run.ws.read(file).trimEnd()}\n\n${line}\n`)
}

/** The writer's save: a paragraph at the end, or under the title in a paragraph-level sequence. */
function localEdit(run: Run, file: string, line: string) {
  if (!run.disjoint) return append(run, file, line)
  run.ws.write(file, underTitle(run.ws.read(file), line))
}

/**
 * A change inside a paragraph (not a new one): the writer's first paragraph under the title in a
 * paragraph-level sequence (only one of the writer's own), else the last paragraph, which someone else
 * may change too (then a conflicted copy keeps the writer's version). False when there is none to change.
 */
function changeParagraph(run: Run, file: string, words: string): boolean {
  const text = run.ws.read(file)
  const paragraphs = [...text.matchAll(/^[A-Z][^\n]*\.$/gm)]
  const target = run.disjoint ? paragraphs.find((p) => p[0].startsWith('Local ')) : paragraphs.at(-1)
  if (!target || (run.disjoint && target !== paragraphs[0])) return false
  const end = target.index + target[0].length
  run.ws.write(file, `${text.slice(0, end - 1)}, ${words}.${text.slice(end)}`)
  return true
}

function underTitle(text: string, line: string): string {
  const title = /^# .*\n/m.exec(text)
  if (!title) return `${line}\n\n${text}`
  const at = title.index + title[0].length
  return `${text.slice(0, at)}\n${line}\n${text.slice(at)}`
}

/**
 * The writer's save of a page whose content a pass is downloading, a few milliseconds after it arrived:
 * in place, or by writing a temp file beside it and renaming it over the page file (vim's writebackup,
 * VS Code, JetBrains' safe write), the window atomic-write.ts closes.
 */
function saveDuringPass(run: Run, pageId: string, delayMs: number, how: 'in-place' | 'rename') {
  const row = run.ws.cache.journal(run.seeded.spaceId).find((j) => j.kind === 'page' && j.id === pageId)
  const file = row?.path ?? run.ws.cache.remoteTree(run.seeded.spaceId).pages.find((p) => p.id === pageId)?.gitPath
  if (!file || !pageFiles(run).includes(file)) return
  const w = `w${run.token++}x`
  run.ledger.save(w, `saved during a pass in ${file}${how === 'rename' ? ' (by a rename over it)' : ''}`)
  run.ledger.touched.add(pageId)
  const save = new Promise<void>((resolve) => setTimeout(resolve, delayMs)).then(() => {
    const full = run.ws.file(file)
    const temp = path.join(path.dirname(full), `.${path.basename(full)}.${w}.tmp`)
    try {
      const saved = (text: string) => (run.disjoint ? underTitle(text, `During ${w}.`) : `${text}\nDuring ${w}.\n`)
      if (how === 'rename') {
        fs.writeFileSync(temp, saved(fs.readFileSync(full, 'utf8')))
        fs.renameSync(temp, full)
      } else if (run.disjoint) fs.writeFileSync(full, saved(fs.readFileSync(full, 'utf8')))
      else fs.appendFileSync(full, `\nDuring ${w}.\n`)
    } catch {
      fs.rmSync(temp, { force: true })
      run.ledger.removed.add(w) // the file was gone (moved by the pass): nothing was saved
    }
  })
  run.saves.add(save)
  void save.finally(() => run.saves.delete(save))
}

/** Someone else moves the head of the writer's open change request: an edit inside it, or an update from main after an unrelated merge. */
async function moveHead(run: Run, drawn: 'edit' | 'update' = run.r.chance(0.5) ? 'edit' : 'update'): Promise<string | undefined> {
  const kind = run.disjoint ? 'update' : drawn
  await ensureUp()
  const spaceId = run.seeded.spaceId
  const [cr] = await changeRequestsOf(someoneElse(), spaceId, t.service.ownerId)
  if (!cr) return undefined
  if (kind === 'edit') {
    const pages = [...pagesWithText((await someoneElse().call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision).values()]
    // Any page of it (those the writer's change request carries and the writer is editing too), except
    // pages of a batch in flight. KNOWN LIMIT: an edit of theirs that lands between the writer's plan and
    // the arrival of the writer's batch for the same page is overwritten by it; the content API has no
    // conditional write (If-Match on the change request's revision) to refuse that batch.
    const inFlight = new Set<string>()
    for (const op of run.ws.outbox.unfinished(run.seeded.spaceId)) if (op.kind === 'content') for (const c of op.payload.changes) if ('page' in c && typeof c.page === 'string') inFlight.add(c.page)
    const page = run.r.pick(pages.filter((p) => p.path !== 'README.md' && !inFlight.has(p.id)))
    if (!page) return undefined
    const w = `o${run.token++}x`
    run.ledger.save(w, `someone else's edit of ${page.path} inside #${cr.number}`)
    run.ledger.touched.add(page.id)
    const written = await someoneElse().call('updateChangeRequestContent', {
      params: { spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: page.id, document: { markdown: `${page.markdown.trimEnd()}\n\nInside ${w}.\n` } }] },
    })
    if (written.status !== 200) throw new Error(`someone else's edit inside #${cr.number} was refused: ${JSON.stringify(written.body)}`)
    return `edit of ${page.path} inside #${cr.number}`
  }
  const w = `o${run.token++}x`
  run.ledger.save(w, 'an unrelated page merged by someone else')
  await mergedBySomeoneElse(run, [{ operation: 'insert_page', document: { markdown: `# Aside ${w}\n\nUnrelated ${w}.\n` }, slug: `aside-${w}` }])
  const updated = await someoneElse().call('updateChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  return `update of #${cr.number} from main: ${updated.body.result}`
}

async function mergedBySomeoneElse(run: Run, changes: unknown[]) {
  const spaceId = run.seeded.spaceId
  const cr = (await someoneElse().call('createChangeRequest', { params: { spaceId }, body: { subject: 'Someone else' } })).body as ChangeRequest
  const written = await someoneElse().call('updateChangeRequestContent', { params: { spaceId, changeRequestId: cr.id }, body: { changes } })
  if (written.status !== 200) throw new Error(`someone else's change was refused: ${JSON.stringify(written.body)}`)
  const merged = await someoneElse().call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  if (merged.body.result !== 'merge') throw new Error(`someone else's change did not merge: ${JSON.stringify(merged.body)}`)
  await observeMain(run)
}

/**
 * P2 after every merge: only a merge changes the space's content, so every state main goes through is
 * seen (a word first seen there is remembered; one remembered must stay unless a later save removed it).
 */
async function observeMain(run: Run) {
  checkNoMergedEditUndone(run.ledger, await mainPages(someoneElse(), run.seeded.spaceId), run.step)
}

/** Someone else changes the space: a page's text or a deletion, merged at once. */
async function remoteEdit(run: Run): Promise<string> {
  const main = [...(await mainPages(someoneElse(), run.seeded.spaceId)).values()].filter((p) => p.path !== 'README.md')
  const page = run.r.pick(main)
  if (!page) return 'remote: nothing'
  if (run.r.chance(0.2) && !page.path?.endsWith('README.md')) {
    // What the page says is the remover's to delete: no lost edit, and no merged edit undone.
    run.ledger.removeWordsOf(page.markdown)
    run.ledger.othersDeleted.add(page.id)
    await mergedBySomeoneElse(run, [{ operation: 'delete_page', page: page.id }])
    return `remote delete ${page.path}`
  }
  const w = `o${run.token++}x`
  run.ledger.save(w, `someone else's edit of ${page.path}`)
  // A new paragraph at the end, or a change inside the last one (in a paragraph-level sequence only one
  // of their own, which the writer never changes).
  const last = [...page.markdown.matchAll(/^[A-Z][^\n]*\.$/gm)].at(-1)
  const changeLast = last && run.r.chance(0.4) && (!run.disjoint || last[0].startsWith('Remote '))
  const markdown = changeLast ? `${page.markdown.slice(0, last.index + last[0].length - 1)}, theirs ${w}.${page.markdown.slice(last.index + last[0].length)}` : `${page.markdown.trimEnd()}\n\nRemote ${w}.\n`
  await mergedBySomeoneElse(run, [{ operation: 'update_page', page: page.id, document: { markdown } }])
  return `remote edit ${page.path}`
}

/** Someone else adds pages whose slugs are hidden or editor-junk names, each with a subpage (a folder on disk). */
async function junkPages(run: Run): Promise<string> {
  const taken = new Set([...(await mainPages(someoneElse(), run.seeded.spaceId)).values()].filter((p) => p.parent === undefined).map((p) => p.slug))
  const slug = run.r.pick(JUNK_SLUGS.filter((s) => !taken.has(s)))
  if (!slug) return 'remote pages: every junk name taken'
  const w = `o${run.token++}x`
  run.ledger.save(w, `someone else's page ${slug}`)
  await mergedBySomeoneElse(run, [
    { operation: 'insert_page', document: { markdown: `# Notes ${w}\n\nJunk ${w}.\n` }, slug, ref: 'junk' },
    { operation: 'insert_page', document: { markdown: `# Inside\n\nUnder ${slug}.\n` }, slug: 'inside', into: 'junk' },
  ])
  return `remote pages under ${slug}`
}

async function merge(run: Run): Promise<string> {
  const spaceId = run.seeded.spaceId
  const [cr] = await changeRequestsOf(someoneElse(), spaceId, t.service.ownerId)
  if (!cr) return 'merge: none'
  await checkOnlyWhatTheWriterDid(someoneElse(), spaceId, t.service.ownerId, run.ledger.touched)
  if (run.r.chance(0.5)) {
    // Merged by Quire (through its outbox), then the workspace follows.
    let label: string
    try {
      noteCreated(run.ledger, run.ws)
      // The app's merge returns once its cycle after the merge is over; a kill in that cycle restarts it.
      label = await reopenIfKilled(run, `quire merge ${await run.ws.merge(cr.id)}`)
    } catch (error) {
      label = await reopenIfKilled(run, `quire merge refused: ${error instanceof Error ? error.message.slice(0, 120) : String(error)}`)
    }
    await ensureUp()
    await observeMain(run)
    return label
  }
  const merged = await someoneElse().call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
  await observeMain(run)
  return `merge ${merged.body.result}`
}

async function step(run: Run): Promise<string> {
  const { r, ws, ledger } = run
  const files = pageFiles(run)
  const leaves = files.filter((f) => !f.endsWith('README.md'))
  // Files as last synced: replaced by a symlink or grown past 8 MB, they hold no unsent edit.
  const unedited = leaves.filter((f) => run.ws.cache.journal(run.seeded.spaceId).some((j) => j.path === f && j.baseHash === gitBlobOid(fs.readFileSync(run.ws.file(f)))))
  const word = () => `w${run.token++}x`
  // The service comes back after a while; the writer's Quire may meet it down a step or two.
  if (!t.running && r.chance(0.5)) await t.start()
  // An op left `sending`: someone moves the change request's head while it is in flight.
  if (ws.outbox.unfinished(run.seeded.spaceId).some((op) => op.state === 'sending') && r.chance(0.5)) return `head moved while sending: ${await moveHead(run)}`
  const roll = r.next()
  if (roll < 0.2 && files.length > 0) {
    const file = r.pick(files)
    const w = word()
    if (!(r.chance(0.4) && changeParagraph(run, file, `changed ${w}`))) localEdit(run, file, `Local ${w}.`)
    ledger.save(w, `edit of ${file}`)
    touch(run, file)
    return `edit ${file}`
  }
  if (roll < 0.25) {
    const w = word()
    const file = `${r.chance(0.5) && fs.existsSync(ws.file('guide/README.md')) ? 'guide/' : ''}page-${w}.md`
    ws.write(file, `# Page ${w}\n\nNew ${w}.\n`)
    ledger.save(w, `new ${file}`)
    return `new ${file}`
  }
  if (roll < 0.28 && leaves.length > 0) {
    const file = r.pick(leaves)
    ledger.removeWordsOf(ws.read(file))
    touch(run, file)
    const id = pageAt(run, file)
    if (id) ledger.writerDeleted.add(id)
    fs.rmSync(ws.file(file))
    // With the page goes its editor's backup, if one was left (a backup holds its page, by design:
    // page-identity.test.ts asserts that; here the writer's deletion is meant).
    fs.rmSync(ws.file(`${file}~`), { force: true })
    return `delete ${file}`
  }
  if (roll < 0.31 && leaves.length > 0) {
    const file = r.pick(leaves)
    const guide = fs.existsSync(ws.file('guide/README.md'))
    const folder = r.chance(0.3) && guide ? (path.posix.dirname(file) === '.' ? 'guide/' : '') : path.posix.dirname(file) === '.' ? '' : `${path.posix.dirname(file)}/`
    const target = `${folder}renamed-${run.token++}.md`
    touch(run, file)
    const id = pageAt(run, file)
    if (id) run.movedTo.set(target, id)
    fs.renameSync(ws.file(file), ws.file(target))
    return `rename ${file} ${target}`
  }
  if (roll < 0.36 && files.length > 0) {
    const file = r.pick(files)
    const text = `Question ${run.token++}?`
    localEdit(run, file, `<!-- comment: ${text} -->`)
    ledger.markers.add(text)
    return `marker ${file}`
  }
  if (roll < 0.38 && files.length > 0) {
    await ensureUp()
    const comments = (await someoneElse().call('listCommentsInSpace', { params: { spaceId: run.seeded.spaceId }, query: { limit: 1000 } })).body.items as Comment[]
    const thread = r.pick(comments)
    if (!thread) return 'reply: no thread'
    const file = r.pick(files)
    const text = `Answer ${run.token++}.`
    localEdit(run, file, `<!-- reply ${thread.id}: ${text} -->`)
    ledger.markers.add(text)
    return `reply marker ${file}`
  }
  if (roll < 0.39 && unedited.length > 0) {
    // The writer keeps the file elsewhere and links it in: the page is not deleted for it.
    const file = r.pick(unedited)
    const outside = path.join(run.dir, 'outside', file.replace(/\//g, '_'))
    fs.mkdirSync(path.dirname(outside), { recursive: true })
    fs.copyFileSync(ws.file(file), outside)
    fs.rmSync(ws.file(file))
    fs.symlinkSync(outside, ws.file(file))
    run.special.set(file, 'symlink')
    return `symlink ${file}`
  }
  if (roll < 0.395 && unedited.length > 0) {
    const file = r.pick(unedited)
    const w = word()
    const filler = `${'x'.repeat(99)}\n`.repeat(Math.ceil(OVERSIZED_BYTES / 100))
    ws.write(file, `${ws.read(file).trimEnd()}\n\nHuge ${w}.\n\n\`\`\`\n${filler}\`\`\`\n`)
    ledger.save(w, `over 8 MB in ${file}`)
    ledger.unsendable.add(w)
    run.special.set(file, 'oversized')
    return `oversized ${file}`
  }
  if (roll < 0.47) {
    await ensureUp()
    return remoteEdit(run)
  }
  if (roll < 0.49) {
    await ensureUp()
    return junkPages(run)
  }
  if (roll < 0.55) return `head moved: ${await moveHead(run)}`
  if (roll < 0.6) {
    await ensureUp()
    return merge(run)
  }
  if (roll < 0.68) return identityStep(run, leaves)
  if (roll < 0.77) return edgeStep(run)
  if (roll < 0.88) return push(run)
  return pull(run)
}

/** Issue 25's draws (support/fuzz-edge-draws.ts), over the harness of this file. */
async function edgeStep(run: Run): Promise<string> {
  const draw = run.r.pick([...EDGE_DRAWS])!
  const harness: EdgeHarness = {
    other: someoneElse,
    writerId: t.service.ownerId,
    ensureUp,
    push: () => push(run),
    reopenIfKilled: (label) => reopenIfKilled(run, label),
    mergedBySomeoneElse: (changes) => mergedBySomeoneElse(run, changes),
    observeMain: () => observeMain(run),
    pageFiles: () => pageFiles(run),
    pageAt: (file) => pageAt(run, file),
    localEdit: (file, line) => localEdit(run, file, line),
  }
  if (draw === 'update-after-conflict') return updateAfterConflictingMerge(run, harness)
  if (draw === 'lost-answer-then-collaborator') return lostAnswerThenCollaborator(run, harness)
  if (draw === 'repeat-action') return repeatedAction(run, harness)
  return loseCache(run, run.r.pick([...CACHE_DAMAGES])!)
}

const IDENTITY_DRAWS = ['restore', 'rename-back', 'file-manager-move', 'backup-save', 'hidden-and-back', 'cache-loss', 'summary-swap'] as const

/**
 * P9's draws: the desk breaks the tie between a page and its path (an editor's backup-save, delete then
 * restore, a rename away and back, a file manager's move as delete + create, a rename to a hidden or
 * editor's name and back, a lost cache), with pushes in between as a watcher would make them; the page
 * must stay itself (its id) however its file went and came back.
 */
async function identityStep(run: Run, leaves: string[]): Promise<string> {
  const { r, ledger } = run
  const draw = r.pick([...IDENTITY_DRAWS])!
  if (draw === 'cache-loss') return loseCache(run)
  if (draw === 'summary-swap') return swapInSummary(run)
  const file = r.pick(leaves)
  const id = file === undefined ? undefined : pageAt(run, file)
  if (file === undefined || id === undefined) return `${draw}: no page file`
  const text = run.ws.read(file)
  // Half the time the page comes back with the writer's edit in it.
  const edited = (from = text): string => {
    if (!r.chance(0.5)) return from
    const w = `w${run.token++}x`
    ledger.save(w, `${draw} of ${file}`)
    return run.disjoint ? underTitle(from, `Local ${w}.`) : `${from.trimEnd()}\n\nLocal ${w}.\n`
  }
  const pushed = async () => (r.chance(0.6) ? ` ${await push(run)}` : '')
  touch(run, file)
  ledger.keptIdentity.set(id, `${draw} of ${file}`)
  const dir = path.posix.dirname(file) === '.' ? '' : `${path.posix.dirname(file)}/`
  const base = path.posix.basename(file)
  if (draw === 'restore') {
    fs.rmSync(run.ws.file(file))
    const label = await pushed()
    // Quire put the file back (someone else changed the page: their edit beats the deletion): the writer
    // finds it there and edits that file; else the writer's copy comes back.
    const back = fs.existsSync(run.ws.file(file))
    run.ws.write(file, edited(back ? run.ws.read(file) : text))
    return `delete and restore ${file}${label}${back ? ' (put back by Quire)' : ''}`
  }
  if (draw === 'rename-back') {
    const away = `${dir}renamed-${run.token++}.md`
    fs.renameSync(run.ws.file(file), run.ws.file(away))
    const label = await pushed()
    savedOver(run, file, fs.readFileSync(run.ws.file(away), 'utf8'))
    fs.renameSync(run.ws.file(away), run.ws.file(file))
    return `rename ${file} to ${away} and back${label}`
  }
  if (draw === 'file-manager-move') {
    const to = `${dir}moved-${run.token++}.md`
    // A file manager's move is over within the quiet interval a deletion waits for (the harness's interval
    // is 0, so a push here would play a move slower than it: that is 'restore').
    fs.rmSync(run.ws.file(file))
    run.ws.write(to, edited())
    run.movedTo.set(to, id)
    return `file manager moves ${file} to ${to}`
  }
  if (draw === 'backup-save') {
    // vim with backupcopy=no: the page is renamed to its backup name, the buffer written as a new file.
    fs.renameSync(run.ws.file(file), run.ws.file(`${file}~`))
    const label = await pushed()
    const buffer = edited()
    savedOver(run, file, buffer)
    run.ws.write(file, buffer)
    if (r.chance(0.5)) fs.rmSync(run.ws.file(`${file}~`))
    return `backup-save ${file}${label}`
  }
  const hidden = `${dir}${r.pick([`.${base}.swp`, `${base}~`, `${base}.bak`])}`
  fs.renameSync(run.ws.file(file), run.ws.file(hidden))
  const label = await pushed()
  fs.rmSync(run.ws.file(hidden))
  const buffer = edited()
  savedOver(run, file, buffer)
  run.ws.write(file, buffer)
  return `rename ${file} to ${hidden} and back${label}`
}

/**
 * The writer's editor is about to put `text` at `file` (its buffer saved, the file renamed back), read
 * before the push between: a file a pass put there meanwhile (Quire brings a missing page's file back when
 * someone else changed the page: their edit beats a removal, hold.ts) is overwritten, and the words it
 * held that `text` lacks are removed by that later save (P2's own exception). Sent as the writer's edit
 * (local edits are sacred), they leave main; the ledger must not take that for a merged edit undone.
 */
function savedOver(run: Run, file: string, text: string) {
  if (!fs.existsSync(run.ws.file(file))) return
  for (const w of wordsIn(run.ws.read(file))) if (!text.includes(w)) run.ledger.removed.add(w)
}

/**
 * The writer swaps two neighbouring leaf entries of SUMMARY.md (the same indentation, no subpages): the
 * pages' order is the writer's edit, sent as a move (or reported), never dropped. The ledger remembers
 * the order the writer wants for that pair.
 */
function swapInSummary(run: Run): string {
  if (!fs.existsSync(run.ws.file('SUMMARY.md'))) return 'summary swap: no SUMMARY.md'
  const lines = run.ws.read('SUMMARY.md').split('\n')
  const entry = (line: string | undefined) => (line === undefined ? undefined : /^( *)[*-] \[[^\]]*\]\(<?([^)>]+)>?\)\s*$/.exec(line))
  const pairs: number[] = []
  for (let i = 0; i + 1 < lines.length; i++) {
    const a = entry(lines[i])
    const b = entry(lines[i + 1])
    const next = entry(lines[i + 2])
    if (!a || !b || a[1] !== b[1] || a[2].endsWith('README.md') || b[2].endsWith('README.md')) continue
    if (next && next[1].length > b[1].length) continue // b has subpages
    pairs.push(i)
  }
  const i = run.r.pick(pairs)
  if (i === undefined) return 'summary swap: no neighbouring leaves'
  const paths = [decodeURI(entry(lines[i])![2]), decodeURI(entry(lines[i + 1])![2])]
  // Entries of files the writer has and sync up reads (an entry naming no file is reported, not sent).
  if (paths.some((p) => run.special.has(p) || !pageFiles(run).includes(p))) return 'summary swap: entries of files not read'
  const [first, second] = paths.map((p) => pageAt(run, p))
  if (!first || !second) return 'summary swap: entries of unknown pages'
  ;[lines[i], lines[i + 1]] = [lines[i + 1], lines[i]]
  run.ws.write('SUMMARY.md', lines.join('\n'))
  run.ledger.touched.add(first)
  run.ledger.touched.add(second)
  run.ledger.wantedOrder.set([first, second].sort().join(' '), [second, first])
  return `summary swap ${entry(lines[i])![2]} before ${entry(lines[i + 1])![2]}`
}

/**
 * The cache is lost (deleted, as a writer clearing Quire's data would) and Quire starts again over the
 * same folder: its files must be matched to their pages, not taken for new ones. Drawn only while the
 * writer has no open change request and nothing queued: the outbox (what is in flight, which change
 * request is the writer's) lives in the cache, and with it gone P3 cannot be judged.
 */
async function loseCache(run: Run, damage?: CacheDamage): Promise<string> {
  await ensureUp()
  const what = damage ? `cache ${damage}` : 'cache loss'
  // Judged once the writer's Quire runs nothing it started itself: a cycle still running (the app's after
  // a merge) would open a change request after this looked, and the close below waits for it to end.
  await run.ws.settle?.()
  if (run.ws.outbox.unfinished(run.seeded.spaceId).length > 0) return `${what}: work queued`
  if ((await changeRequestsOf(someoneElse(), run.seeded.spaceId, t.service.ownerId)).length > 0) return `${what}: change request open`
  // The writer still knows which file is which page (the ledger's P6 and P9 need it before the next pass).
  for (const j of run.ws.cache.journal(run.seeded.spaceId)) if (j.kind === 'page') run.lostJournal.set(j.path, j.id)
  // A page whose deletion by the writer was merged while its file was back on the desk (delete and
  // restore, rename away and back) is that page only by the cache's word (push/revivals.ts: main has it
  // no more, the journal forgot it, the revivable list lives in the cache's settings). With the cache
  // gone, recovery matches files to main's pages and the open change requests' (there are none here):
  // the file is a new page to it, so P9 is not promised for that page from here on.
  const inMain = await mainPages(someoneElse(), run.seeded.spaceId)
  for (const id of [...run.ledger.keptIdentity.keys()]) if (!inMain.has(id)) run.ledger.keptIdentity.delete(id)
  const lost = run.ws
  ;(run as Partial<Run>).ws = undefined // no writer to look at while the app signs in again
  await lost.close()
  const cache = path.join(run.dir, 'cache.db')
  // Every connection is closed: the WAL is in the file, which alone is the cache.
  for (const suffix of [damage ? undefined : '', '-wal', '-shm']) if (suffix !== undefined) fs.rmSync(`${cache}${suffix}`, { force: true })
  const aside = () => fs.readdirSync(run.dir).filter((f) => f.startsWith('cache.db.damaged-') && !/-(wal|shm)$/.test(f))
  const asideBefore = aside().length
  if (damage) damageCache(cache, damage)
  run.ws = await open(run)
  // A damaged cache is set aside (never deleted) and a fresh one rebuilt; a lost one is simply fresh.
  if (damage && aside().length !== asideBefore + 1) throw new Error(`${what}: the damaged cache was not set aside (${JSON.stringify(fs.readdirSync(run.dir))})`)
  if (run.frontEnd === 'app') {
    // The app knows its spaces' folders from its cache: signed in again, it makes a pass (faults off, as
    // its start is) before the writer can be looked at.
    const on = run.net.on
    run.net.on = false
    try {
      await run.ws.pull()
    } finally {
      run.net.on = on
    }
  }
  return damage ? `cache ${damage}: set aside and rebuilt` : 'cache lost'
}

/** Faults off, service up: push and pull until nothing moves (P8: it does, and the outbox drains). */
async function quiet(run: Run, label: string) {
  run.net.on = false
  await ensureUp()
  await Promise.all(run.saves)
  const spaceId = run.seeded.spaceId
  const rounds: string[] = []
  let lastRevision: string | undefined = run.ws.cache.space(spaceId)?.remoteRevision
  for (let round = 0; round < 8; round++) {
    const pushed = await ends('push', run.ws.push())
    noteCreated(run.ledger, run.ws)
    const pulled = await ends('sync down pass', run.ws.pull())
    // Quiet only once a pass found nothing new: a pass that took in a new revision (even one it wrote
    // nothing of, as for a page the writer edited) gives the next push new facts to plan from.
    const sameRevision = pulled.revision === lastRevision
    lastRevision = pulled.revision
    if (pushed.planned === 0 && pushed.sent === 0 && !pushed.settled && pulled.written === 0 && sameRevision && run.ws.outbox.unfinished(spaceId).length === 0) return
    rounds.push(`push planned ${pushed.planned} sent ${pushed.sent}${pushed.settled ? ' settled' : ''}${pushed.skipped ? ` skipped (${pushed.skipped})` : ''}, pull ${pulled.unchanged ? 'unchanged' : `${pulled.written} steps, ${pulled.state}${pulled.issues.length > 0 ? ` ${JSON.stringify(pulled.issues).slice(0, 300)}` : ''}`}`)
  }
  throw new Error(`P8 termination (${label}): no quiet state after 8 rounds of push and pull (${rounds.join(' | ')}); unfinished ops ${JSON.stringify(run.ws.outbox.unfinished(spaceId).map((o) => [o.seq, o.kind, o.state, o.lastError]))}`)
}

/** Files not to compare with the service: what the change request carries, what sync up must skip. */
function locallyEdited(run: Run, carried: boolean): Set<string> {
  const out = new Set(run.special.keys())
  if (carried) for (const e of run.ws.outbox.entries(run.seeded.spaceId)) out.add(e.path)
  return out
}

async function checkQuiet(run: Run, label: string, openAllowed: boolean) {
  const spaceId = run.seeded.spaceId
  const api = someoneElse()
  const writer = t.service.ownerId
  // Only the service's 4xx refuses an op for good (what follows from it is judged by P1 and P4); a
  // transport failure (a cut body, a reset) taken for a refusal parks the op with no reason to.
  const failed = run.ws.outbox.ops(spaceId, 100_000).filter((op) => (op.state === 'failed' || op.state === 'split') && !/^HTTP 4\d\d/.test(op.lastError ?? ''))
  if (failed.length > 0) throw new Error(`P8 ${label}: ops refused for good without a refusal from the service: ${JSON.stringify(failed.map((o) => [o.seq, o.kind, o.state, o.lastError]))}`)
  const main = await mainPages(api, spaceId)
  checkNoMergedEditUndone(run.ledger, main, run.step)
  await checkNoEditLost(run.ledger, api, run.ws, main, writer)
  await checkExactlyOnce(run.ledger, api, run.ws, writer)
  await checkOnlyWhatTheWriterDid(api, spaceId, writer, run.ledger.touched)
  await checkPageIdentity(run.ledger, api, spaceId, writer, main)
  if (!openAllowed) checkSummaryOrder(run.ledger, main)
  const carried = openAllowed ? run.ws.outbox.entries(spaceId).flatMap((e) => (e.pageId ? [e.pageId] : [])) : []
  checkConvergence(run.ws, main, locallyEdited(run, openAllowed), new Set(carried))
  if (run.disjoint) {
    // Not a conflict of paragraphs: a copy that keeps the writer's comment markers on a page someone else
    // deleted before they were posted (guide.md, "A marker on a page someone deleted meanwhile has nowhere
    // to go"). Markers are never page content, so no paragraph of the page was changed by the writer;
    // the copy is where P1 keeps the marker's text (seed 26128).
    const orphans = new Set(
      run.ws.outbox
        .conflicts(spaceId)
        .filter((c) => c.remoteOid === '' && run.ledger.othersDeleted.has(c.pageId) && [...run.ledger.markers].some((m) => c.localText.includes(m)))
        .map((c) => c.copyPath),
    )
    const copies = [...conflictCopies(run.ws.folder).keys()].filter((c) => !orphans.has(c))
    const conflicts = run.ws.outbox.conflicts(spaceId).map((c) => c.copyPath).filter((c) => !orphans.has(c))
    if (copies.length > 0 || conflicts.length > 0) throw new Error(`${label}: paragraph-level sequence, no paragraph changed on both sides, yet conflicted copies: ${JSON.stringify([...new Set([...copies, ...conflicts])])}`)
  }
  const open = await changeRequestsOf(api, spaceId, writer)
  if (!openAllowed && open.length > 0) throw new Error(`${label}: change requests still open after the final merge: ${open.map((cr) => cr.number).join(', ')}`)
}

/** The writer's change requests merged by a reviewer (updated from main first when the service says conflicts). */
async function finalMerge(run: Run) {
  const spaceId = run.seeded.spaceId
  for (let round = 0; round < 4; round++) {
    const open = await changeRequestsOf(someoneElse(), spaceId, t.service.ownerId)
    if (open.length === 0) return
    for (const cr of open) {
      await checkOnlyWhatTheWriterDid(someoneElse(), spaceId, t.service.ownerId, run.ledger.touched)
      const merged = await someoneElse().call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
      await observeMain(run)
      if (merged.body.result === 'conflicts') {
        const updated = await someoneElse().call('updateChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
        if (process.env.QUIRE_FUZZ_DEBUG) console.log(`final merge of #${cr.number}: conflicts; update from main: ${updated.status} ${JSON.stringify(updated.body).slice(0, 400)}`)
      }
    }
    await quiet(run, 'after merging')
  }
}

/** CPU time of this process since `from` (QUIRE_FUZZ_TIMING: what a step costs on a quiet machine). */
const cpuMs = (from: NodeJS.CpuUsage) => {
  const used = process.cpuUsage(from)
  return Math.round((used.user + used.system) / 1000)
}

async function sequence(seed: number, frontEnd: FrontEnd) {
  const began = process.cpuUsage()
  await ensureUp()
  const r = rng(seed)
  const dir = tempDir('quire-fuzz-')
  const owner = new UncheckedApiClient(t.api.baseUrl, t.service.token)
  const seeded = await seedSpace({ service: t.service, api: owner, close: t.close })
  t.service.store.repo(OrganizationsRepository).setMember(seeded.orgId, other!.id, 'admin')
  const partial = { seed, r, seeded, dir, frontEnd, disjoint: seed % 2 === 0, ledger: new Ledger(), step: 0, token: 0, special: new Map(), saves: new Set<Promise<void>>(), lostJournal: new Map(), movedTo: new Map() } as Omit<Run, 'ws' | 'net'>
  const run = partial as Run
  run.net = new FuzzNetwork(seed, t, { moveHead: () => moveHead(run), saveDuringPass: (id, ms, how) => saveDuringPass(run, id, ms, how), beforeRequest: () => {
      // Not while the app's backend starts (before there is a writer to look at).
      if (run.ws) noteCreated(run.ledger, run.ws)
    } })
  run.ws = await open(run)
  for (const cr of await changeRequestsOf(owner, seeded.spaceId, t.service.ownerId, ['merged'])) run.ledger.before.add(cr.id)
  const history: string[] = []
  try {
    run.net.on = false
    await run.ws.pull()
    run.net.on = true
    if (process.env.QUIRE_FUZZ_TIMING) history.push(`setup ${cpuMs(began)}ms`)
    const steps = 6 + r.int(10)
    for (run.step = 1; run.step <= steps; run.step++) {
      const t0 = process.cpuUsage()
      history.push(await step(run))
      if (process.env.QUIRE_FUZZ_TRACE) console.log(`STEP ${history.at(-1)}\n  ops ${JSON.stringify(run.ws.outbox.ops(seeded.spaceId, 1000).map((o) => [o.seq, o.kind, o.state, o.kind === 'content' ? (o.payload.changes as unknown as Array<Record<string, unknown>>).map((c) => [c.operation, c.page, typeof (c.document as { markdown?: string } | undefined)?.markdown === 'string' ? (c.document as { markdown: string }).markdown.replace(/\n/g, '|') : undefined]) : undefined]))}\n  entries ${JSON.stringify(run.ws.outbox.entries(seeded.spaceId).map((e) => [e.path, e.hash.slice(0, 8), e.state]))}`)
      noteCreated(run.ledger, run.ws)
      if (process.env.QUIRE_FUZZ_TIMING) history[history.length - 1] += ` ${cpuMs(t0)}ms`
      await Promise.all(run.saves)
    }
    const timed = async (label: string, work: () => Promise<void>) => {
      const t0 = process.cpuUsage()
      await work()
      history.push(process.env.QUIRE_FUZZ_TIMING ? `${label} ${cpuMs(t0)}ms` : label)
    }
    await timed('quiet', () => quiet(run, 'end of the sequence'))
    await timed('checked', () => checkQuiet(run, 'before the final merge', true))
    await timed('final merge', () => finalMerge(run))
    await timed('checked', () => checkQuiet(run, 'after the final merge', false))
  } catch (error) {
    // What main holds at the failure (QUIRE_FUZZ_DEBUG): what P4 compares the files with.
    const mainAtFailure = process.env.QUIRE_FUZZ_DEBUG ? [...(await mainPages(someoneElse(), seeded.spaceId).catch(() => new Map())).values()].map((p) => [p.path, p.markdown]) : []
    if (process.env.QUIRE_FUZZ_STACK) console.error(error instanceof Error ? error.stack : error)
    const replay = `QUIRE_FUZZ_SEED=${seed} QUIRE_FUZZ_SEQUENCES=1 QUIRE_FUZZ_FRONT_END=${frontEnd}`
    const debug = process.env.QUIRE_FUZZ_DEBUG
      ? `\noutbox: ${JSON.stringify(run.ws.outbox.ops(seeded.spaceId, 1000).map((o) => [o.seq, o.kind, o.state, o.lastError, o.kind === 'content' ? (o.payload.changes as unknown as Array<Record<string, unknown>>).map((c) => [c.operation, c.page, c.slug, c.into, c.at]) : undefined]))}\nentries: ${JSON.stringify(run.ws.outbox.entries(seeded.spaceId))}\njournal: ${JSON.stringify(run.ws.cache.journal(seeded.spaceId).map((j) => [j.path, j.oid.slice(0, 8), j.baseHash.slice(0, 8)]))}\nfiles: ${JSON.stringify([...pageTexts(run.ws.folder)])}\nconflicted copies: ${JSON.stringify([...conflictCopies(run.ws.folder)])}\nmain: ${JSON.stringify(mainAtFailure)}\n${error instanceof Error ? error.stack : ''}`
      : ''
    if (error instanceof Error) error.message = `seed ${seed} (replay: ${replay}) [${history.join('; ')}]\nfaults: ${run.net.events.join(', ')}\n${error.message}${debug}`
    throw error
  } finally {
    if (process.env.QUIRE_FUZZ_TIMING) console.log(`seed ${seed} ${cpuMs(began)}ms cpu: ${history.join('; ')}`)
    await run.ws?.close()
    // The writer leaves the sequence's organization: the app's discovery lists only the next one's.
    t.service.store.repo(OrganizationsRepository).removeMember(seeded.orgId, t.service.ownerId)
    fs.rmSync(dir, { recursive: true, force: true })
  }
}

describe.each(FRONT_ENDS)('randomized sequences against the real service, through the %s', (frontEnd) => {
  it(`${SEQUENCES} sequences keep the promises (base seed ${BASE_SEED})`, { timeout: 1_800_000 }, async () => {
    const started = Date.now()
    await ensureUp()
    if (!other) {
      const user = t.service.createUser({ displayName: 'Someone Else', email: 'else@quire.local' })
      other = { id: user.id, api: new UncheckedApiClient(t.api.baseUrl, user.token) }
    }
    const templateDir = tempDir('quire-fuzz-template-')
    template = path.join(templateDir, 'cache.db')
    openCacheDatabase(template).close()
    const failures: string[] = []
    try {
      for (let n = 0; n < SEQUENCES; n++) {
        if (KNOWN_OPEN[`${frontEnd}:${BASE_SEED + n}`]) continue
        try {
          await sequence(BASE_SEED + n, frontEnd)
        } catch (error) {
          failures.push(error instanceof Error ? error.message : String(error))
          if (!process.env.QUIRE_FUZZ_ALL) break
        }
      }
    } finally {
      fs.rmSync(templateDir, { recursive: true, force: true })
    }
    console.log(`randomized (${frontEnd}): ${SEQUENCES} sequences from seed ${BASE_SEED} in ${Date.now() - started} ms`)
    const skipped = Object.entries(KNOWN_OPEN).filter(([key]) => key.startsWith(`${frontEnd}:`) && Number(key.slice(frontEnd.length + 1)) >= BASE_SEED && Number(key.slice(frontEnd.length + 1)) < BASE_SEED + SEQUENCES)
    if (skipped.length > 0) console.log(`randomized: skipped ${skipped.length} known-open sequence(s):\n${skipped.map(([seed, why]) => `  ${seed}: ${why}`).join('\n')}`)
    if (failures.length > 0) throw new Error(`${failures.length} failing sequence(s):\n\n${failures.join('\n\n')}`)
  })
})

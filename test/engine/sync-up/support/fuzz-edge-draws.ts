import fs from 'node:fs'
import type { Comment, Revision } from '@gitbook/api'
import type { ApiClient } from '../../../support/service'
import type { Rng } from '../../../support/rng'
import type { FrontEndAsk, Writer } from './app-workstation'
import { changeRequestsOf, type Ledger, mainPages, pagesWithText } from './fuzz-invariants'
import type { FuzzNetwork } from './fuzz-network'
import type { SeededSpace } from './workspace'

/**
 * The randomized sync-up test's draws at the edges of "exactly once and never undone" (issue 25): a
 * reviewer's update from main after a conflicting merge, a lost answer followed by a collaborator's
 * paragraph in the same page, the same comment, reply or resolve asked twice from the front end, and a
 * damaged cache between steps. (Saves by a rename over the page file during passes are drawn by the
 * network, as saves during passes are.) Each returns a label for the sequence's history.
 */

/** What of a sequence's run these draws use. */
export interface EdgeRun {
  r: Rng
  seeded: SeededSpace
  disjoint: boolean
  ws: Writer
  net: FuzzNetwork
  ledger: Ledger
  token: number
}

/** What of the test's harness they use. */
export interface EdgeHarness {
  /** Someone else: a collaborator in the writer's change request, the reviewer, a writer merging at once. */
  other(): ApiClient
  writerId: string
  ensureUp(): Promise<void>
  /** The writer's push, with its faults; a label. */
  push(): Promise<string>
  /** After a front-end action: a new writer's Quire if the network killed this one; the label. */
  reopenIfKilled(label: string): Promise<string>
  mergedBySomeoneElse(changes: unknown[]): Promise<void>
  observeMain(): Promise<void>
  /** Page files the writer may pick. */
  pageFiles(): string[]
  /** The page a file stands for. */
  pageAt(file: string): string | undefined
  /** The writer's save of a new paragraph (where depends on the sequence's kind). */
  localEdit(file: string, line: string): void
}

export const EDGE_DRAWS = ['update-after-conflict', 'lost-answer-then-collaborator', 'repeat-action', 'cache-damage'] as const

const word = (run: EdgeRun, who: 'w' | 'o') => `${who}${run.token++}x`
const message = (error: unknown) => (error instanceof Error ? error.message : String(error)).slice(0, 120)

/**
 * The writer changes a paragraph of a page and pushes; someone else merges a change of the same paragraph
 * (in a paragraph-level sequence, a paragraph of their own at the end instead); the reviewer's merge of the
 * writer's change request is refused for conflicts, and the writer's Quire updates it from main (quire cr
 * update; the app's Update from main): the service refuses (409 naming the pages), the writer's version
 * goes to a conflicted copy, main's stays in the change request, and the update is asked again.
 */
export async function updateAfterConflictingMerge(run: EdgeRun, h: EdgeHarness): Promise<string> {
  await h.ensureUp()
  const spaceId = run.seeded.spaceId
  const inMain = await mainPages(h.other(), spaceId)
  const file = run.r.pick(h.pageFiles().filter((f) => f !== 'SUMMARY.md' && !f.endsWith('README.md') && inMain.has(h.pageAt(f) ?? '')))
  if (!file) return 'update after a conflicting merge: no page file'
  const pageId = h.pageAt(file)!
  const w = word(run, 'w')
  const text = run.ws.read(file)
  const last = [...text.matchAll(/^[A-Z][^\n]*\.$/gm)].at(-1)
  if (run.disjoint || !last) h.localEdit(file, `Local ${w}.`)
  else run.ws.write(file, `${text.slice(0, last.index + last[0].length - 1)}, changed ${w}.${text.slice(last.index + last[0].length)}`)
  run.ledger.save(w, `edit of ${file} before a conflicting merge`)
  run.ledger.touched.add(pageId)
  const pushed = `edit of ${file}, ${await h.push()}`
  await h.ensureUp()
  const [cr] = await changeRequestsOf(h.other(), spaceId, h.writerId)
  const head = cr && pagesWithText((await h.other().call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision).get(pageId)
  const main = (await mainPages(h.other(), spaceId)).get(pageId)
  if (!cr || !head || !main || !head.markdown.includes(w)) return `${pushed}; the edit is not in a change request`
  const o = word(run, 'o')
  run.ledger.save(o, `someone else's change of ${file} merged while #${cr.number} was open`)
  const same = !run.disjoint && last && main.markdown.includes(`${last[0]}\n`)
  const theirs = same ? main.markdown.replace(`${last[0]}\n`, `${last[0].slice(0, -1)}, theirs ${o}.\n`) : `${main.markdown.trimEnd()}\n\nRemote ${o}.\n`
  await h.mergedBySomeoneElse([{ operation: 'update_page', page: pageId, document: { markdown: theirs } }])
  if (!run.disjoint) {
    const merged = await h.other().call('mergeChangeRequest', { params: { spaceId, changeRequestId: cr.id } })
    await h.observeMain()
    if (merged.body.result === 'merge') return `${pushed}; someone else's change merged, then #${cr.number} merged`
  }
  let label: string
  try {
    label = await run.ws.updateFromMain(cr.id)
  } catch (error) {
    label = `threw: ${message(error)}`
  }
  return await h.reopenIfKilled(`${pushed}; someone else's change merged${same ? ' (the same paragraph)' : ''}, #${cr.number} updated from main by the writer: ${label}`)
}

/**
 * The writer's edit of a page is sent and its answer lost (the service applied the batch, or never saw
 * it); before the next push a collaborator appends a paragraph to that page inside the writer's change
 * request. The reconciler must merge, not resend the batch over the collaborator's paragraph.
 */
export async function lostAnswerThenCollaborator(run: EdgeRun, h: EdgeHarness): Promise<string> {
  const spaceId = run.seeded.spaceId
  const file = run.r.pick(h.pageFiles().filter((f) => f !== 'SUMMARY.md' && h.pageAt(f) !== undefined))
  if (!file) return 'lost answer: no page file'
  const pageId = h.pageAt(file)!
  const w = word(run, 'w')
  h.localEdit(file, `Local ${w}.`)
  run.ledger.save(w, `edit of ${file} whose answer was lost`)
  run.ledger.touched.add(pageId)
  const applied = run.r.chance(0.5)
  run.net.loseNext = { shape: /^POST .*\/change-requests\/:\/content$/, applied }
  const pushed = await h.push()
  const hit = run.net.loseNext.hit
  run.net.loseNext = undefined
  const label = `edit of ${file}, push with its answer lost (${applied ? 'applied' : 'never arrived'}): ${pushed}`
  if (!hit) return `${label}; no batch was sent`
  await h.ensureUp()
  const [cr] = await changeRequestsOf(h.other(), spaceId, h.writerId)
  const revision = cr && ((await h.other().call('getRevisionOfChangeRequestById', { params: { spaceId, changeRequestId: cr.id } })).body as Revision)
  const page = revision && pagesWithText(revision).get(pageId)
  if (!cr || !page) return `${label}; no page for a collaborator`
  const o = word(run, 'o')
  run.ledger.save(o, `a collaborator's paragraph in ${page.path} inside #${cr.number} after a lost answer`)
  const written = await h.other().call('updateChangeRequestContent', {
    params: { spaceId, changeRequestId: cr.id },
    body: { changes: [{ operation: 'update_page', page: pageId, document: { markdown: `${page.markdown.trimEnd()}\n\nInside ${o}.\n` } }] },
  })
  if (written.status !== 200) throw new Error(`the collaborator's edit inside #${cr.number} was refused: ${JSON.stringify(written.body)}`)
  return `${label}; a collaborator's paragraph in it inside #${cr.number}`
}

/**
 * The writer asks the same comment, reply or resolve twice from the front end (a command run again after
 * it failed, a button pressed twice), with the network's faults on: one operation in the outbox, posted
 * once (P3, judged at the quiet points through the ledger's `asked`).
 */
export async function repeatedAction(run: EdgeRun, h: EdgeHarness): Promise<string> {
  await h.ensureUp()
  const spaceId = run.seeded.spaceId
  const threads = (await h.other().call('listCommentsInSpace', { params: { spaceId }, query: { limit: 1000 } })).body.items as Comment[]
  const drawn = run.r.pick(['comment', 'reply', 'resolve', 'review'] as const)!
  if (drawn === 'review') return repeatedVerdict(run, h)
  // No thread to answer yet: the writer comments (and so opens one for later draws).
  const kind = drawn === 'comment' || (drawn === 'reply' ? threads.some((c) => c.status === 'open') : threads.length > 0) ? drawn : 'comment'
  let ask: FrontEndAsk
  let pageId: string | undefined
  if (kind === 'comment') {
    // A page of main the writer's Quire knows (quire comment refuses a file it knows no page of).
    const main = await mainPages(h.other(), spaceId)
    const known = new Map(run.ws.cache.journal(spaceId).filter((j) => j.kind === 'page' && main.has(j.id) && run.ws.cache.remoteTree(spaceId).pages.some((p) => p.id === j.id)).map((j) => [j.path, j.id]))
    const file = run.r.pick(h.pageFiles().filter((f) => known.has(f)))
    if (!file) return 'repeated comment: no page of main'
    pageId = known.get(file)!
    ask = { kind, pageId, text: `Asked ${run.token++}?` }
  } else {
    const thread = run.r.pick(kind === 'reply' ? threads.filter((c) => c.status === 'open') : threads)
    if (!thread) return `repeated ${kind}: no thread`
    pageId = (thread.target as { page?: { id: string } }).page?.id
    ask = kind === 'reply' ? { kind, commentId: thread.id, text: `Answered ${run.token++}.` } : { kind, commentId: thread.id }
  }
  if (ask.kind !== 'resolve') run.ledger.asked.set(ask.text, pageId)
  const opsOfIt = () => run.ws.outbox.ops(spaceId, 100_000).filter((op) => op.kind === ask.kind && JSON.stringify(op.payload).includes(ask.kind === 'comment' ? JSON.stringify(ask.text) : JSON.stringify(ask.commentId)) && (ask.kind !== 'reply' || JSON.stringify(op.payload).includes(JSON.stringify(ask.text))))
  const before = new Set(opsOfIt().map((op) => op.seq))
  const answers = await askTwice(run, h, ask)
  // A retry after the service refused the first ask is a new op (action-keys.ts); two that may post are not.
  const added = opsOfIt().filter((op) => !before.has(op.seq) && op.state !== 'failed')
  if (added.length > 1) throw new Error(`P3 the same ${kind} asked twice is ${added.length} operations: ${JSON.stringify(added.map((op) => [op.seq, op.key, op.state]))}`)
  return `${kind} asked twice: ${answers.join(' / ')}`
}

/**
 * The writer, as the reviewer of someone else's change request, gives the same verdict twice (the app's
 * Approve pressed twice, `quire cr review` run again after it failed), with the network's faults on: one
 * review op, and the service holds one review of the writer's on it (judged at the quiet points:
 * `checkExactlyOnce` through the ledger's `reviewed`).
 */
async function repeatedVerdict(run: EdgeRun, h: EdgeHarness): Promise<string> {
  const spaceId = run.seeded.spaceId
  const created = await h.other().call('createChangeRequest', { params: { spaceId }, body: { subject: `Someone else's ${run.token++}` } })
  if (created.status !== 200 && created.status !== 201) throw new Error(`someone else's change request was refused: ${JSON.stringify(created.body)}`)
  const cr = created.body as { id: string; number: number }
  const ask: FrontEndAsk = { kind: 'review', changeRequestId: cr.id, verdict: run.r.pick(['approved', 'changes-requested'] as const)!, text: `Reviewed ${run.token++}.` }
  run.ledger.reviewed.set(cr.id, ask.verdict)
  const opsOfIt = () => run.ws.outbox.ops(spaceId, 100_000).filter((op) => op.kind === 'review' && op.payload.changeRequestId === cr.id)
  const answers = await askTwice(run, h, ask)
  const added = opsOfIt().filter((op) => op.state !== 'failed')
  if (added.length > 1) throw new Error(`P3 the same verdict asked twice is ${added.length} operations: ${JSON.stringify(added.map((op) => [op.seq, op.key, op.state]))}`)
  return `${ask.verdict} on #${cr.number} asked twice: ${answers.join(' / ')}`
}

/** The same ask twice from the front end, each answer (or what it threw) noted; a new Quire if the network killed it. */
async function askTwice(run: EdgeRun, h: EdgeHarness, ask: FrontEndAsk): Promise<string[]> {
  const answers: string[] = []
  for (let n = 0; n < 2; n++) {
    let answer: string
    try {
      answer = await run.ws.act(ask)
    } catch (error) {
      answer = `threw: ${message(error)}`
    }
    answers.push(await h.reopenIfKilled(answer))
  }
  return answers
}

export const CACHE_DAMAGES = ['truncated', 'zeroed', 'byte-flipped'] as const
export type CacheDamage = (typeof CACHE_DAMAGES)[number]

/** Damages a closed cache file as a failing disk or an interrupted copy would (cli/cache-healing.test.ts's damages). */
export function damageCache(file: string, how: CacheDamage) {
  const bytes = fs.readFileSync(file)
  if (how === 'truncated') fs.writeFileSync(file, bytes.subarray(0, Math.floor(bytes.length * 0.4)))
  else if (how === 'zeroed') fs.writeFileSync(file, Buffer.alloc(bytes.length))
  else {
    // The first byte (the page type) of each b-tree page after the first, flipped.
    const size = bytes.readUInt16BE(16) === 1 ? 65536 : bytes.readUInt16BE(16)
    for (let page = 1; page < Math.min(bytes.length / size, 12); page++) bytes[page * size] ^= 0xff
    fs.writeFileSync(file, bytes)
  }
}

import type { SpaceRow } from '../cache/cache-repository'
import type { CacheRepository } from '../cache/cache-repository'
import type { ApiGateway } from '../gateway/api-gateway'
import type { OutboxRepository } from '../outbox/outbox-repository'
import { LocalScanner } from '../push/local-scan'
import type { PushReport } from '../push/push-types'
import type { PushResult } from '../push/space-pusher'
import type { WorkspaceSession } from '../session/workspace-session'
import type { ImportNote } from './import-notes'
import { planImport, type CopyStep } from './import-plan'
import { relinkImportedPages } from './relink-imported'
import { copyFiles, targetHashes, type SourceTree } from './source-tree'
import { verifyImport, type Verification } from './verify-import'

/** What an import works with: the tree read, the space mirrored into its folder, the engine that pushes it. */
export interface ImportContext {
  tree: SourceTree
  space: SpaceRow
  /** The space's folder in the workspace (mirrored before the import starts). */
  folder: string
  session: WorkspaceSession
  cache: CacheRepository
  outbox: OutboxRepository
  gateway: ApiGateway
  progress: ImportProgress
}

export interface ImportProgress {
  /** Copying: `done` of `total` files looked at (identical ones count, they are skipped). */
  copying(done: number, total: number, path: string): void
  /** A phase begins (said in a line). */
  phase(text: string): void
  /** The push path's own output (queued, sent, waiting). */
  pushed(result: PushResult): void
}

export interface ImportOutcome {
  strategy: string
  /** Every file is in the change request as far as it can be; false: the outbox still waits (offline, refused). */
  complete: boolean
  waiting?: string
  changeRequest?: { id: string; number?: number }
  /** The revision a Git import made the space's content (no change request then). */
  revision?: string
  copied: number
  alreadyThere: number
  notes: ImportNote[]
  verification?: Verification
}

/**
 * How a tree gets into a space. The content API strategy below works with any service; a strategy
 * through the service's Git import (`POST /spaces/{id}/git/import`), which can create groups and link
 * entries, goes before it in the list when the tree is a git repository and the service offers it:
 * the first strategy that `applies` runs.
 */
export interface ImportStrategy {
  readonly name: string
  applies(ctx: ImportContext): Promise<boolean>
  run(ctx: ImportContext): Promise<ImportOutcome>
}

/** Rounds of push the content API strategy makes before it says the import is not settled. */
const MAX_PUSH_ROUNDS = 6

/**
 * The content API strategy: copies the tree's files into the space folder, then pushes once through
 * the same path `quire watch` uses (SUMMARY.md structure for new pages, batches by bytes, uploads of
 * linked assets, the durable outbox) until nothing is left to plan or send, then reads the change
 * request back to report what will not come back byte for byte.
 */
export const contentApiImport: ImportStrategy = {
  name: 'content API',
  applies: async () => true,
  async run(ctx) {
    const { tree, folder, space, session, outbox, progress } = ctx
    const draft = planImport({ config: tree.config, files: tree.files, skipped: tree.skipped, summary: tree.summary, target: new Map() })
    const target = await targetHashes(folder, draft.copies.map((c) => c.to))
    const plan = planImport({ config: tree.config, files: tree.files, skipped: tree.skipped, summary: tree.summary, target })
    const notes: ImportNote[] = [...plan.notes]

    // A resumed import replaces only what the last sync down wrote (or nothing): a file changed in the
    // folder since is the writer's, and stays.
    const base = new Map(ctx.cache.journal(space.id).map((j) => [j.path, j.baseHash]))
    const copies: CopyStep[] = []
    for (const step of plan.copies) {
      const there = target.get(step.to)
      if (!step.identical && there !== undefined && there !== base.get(step.to) && !importedBefore(ctx, step.to, there)) {
        notes.push({ kind: 'skipped', path: step.from, reason: `${step.to} was changed in the space folder since the import began: kept as it is, not replaced` })
        continue
      }
      copies.push(step)
    }
    progress.phase(`copying ${copies.length} files into ${folder}`)
    const copied = await copyFiles(tree, folder, copies, (step, i) => progress.copying(i, copies.length, step.to))

    progress.phase('sending to the change request')
    const pushed = await pushUntilSettled(session, outbox, space.id, progress)
    const reports = dedupe(pushed.reports)
    // Groups and files SUMMARY.md does not list are noted by the plan already, and so are files over the limit.
    const tooLarge = new Set(plan.notes.filter((n) => n.kind === 'too-large').map((n) => n.path))
    for (const r of reports) {
      if (r.kind === 'group-not-created' || r.kind === 'not-in-summary' || (r.kind === 'too-large' && tooLarge.has(r.path))) continue
      notes.push({ kind: 'push', path: r.path, reason: r.message })
    }
    for (const f of pushed.failures) notes.push({ kind: 'push', path: '', reason: `refused: ${f}` })
    const changeRequest = pushed.changeRequest
    if (pushed.waiting) return { strategy: this.name, complete: false, waiting: pushed.waiting, changeRequest, copied, alreadyThere: copies.length - copied, notes }

    // Where the pages went is known now: links between them are re-pointed there (relink-imported.ts).
    progress.phase('re-pointing links between pages to where the pages were placed')
    const relinked = await relinkImportedPages(ctx, plan)
    notes.push(...relinked.notes)
    if (relinked.relinked.length > 0) progress.phase(`links re-pointed in ${relinked.relinked.length} page(s)`)

    progress.phase('reading the change request back')
    const verification = await verifyImport({ gateway: ctx.gateway, cache: ctx.cache, outbox, spaceId: space.id, tree, plan })
    return { strategy: this.name, complete: true, changeRequest, copied, alreadyThere: copies.length - copied, notes: [...notes, ...verification.notes], verification }
  },
}

/** A file at `to` holding bytes this import copied before (the change request carries them): the import's own. */
function importedBefore(ctx: ImportContext, to: string, hash: string): boolean {
  return ctx.outbox.entries(ctx.space.id).some((e) => e.path === to && e.hash === hash)
}

/**
 * Pushes the space through the session until a push plans nothing and the outbox is empty. Stops at
 * the first push that could not send (offline, signed out): the outbox keeps it for the next run.
 */
async function pushUntilSettled(
  session: WorkspaceSession,
  outbox: OutboxRepository,
  spaceId: string,
  progress: ImportProgress,
): Promise<{ reports: PushReport[]; failures: string[]; waiting?: string; changeRequest?: { id: string; number?: number } }> {
  const results: PushResult[] = []
  const stop = session.observe((event) => {
    if (event.type === 'push' && event.spaceId === spaceId) {
      results.push(event.result)
      progress.pushed(event.result)
    }
  })
  try {
    for (let round = 0; round < MAX_PUSH_ROUNDS; round++) {
      const before = results.length
      await session.push(spaceId)
      const result = results.at(-1)
      if (results.length === before || !result) return summarize(results, session.signedOutReason ?? 'the push did not run (see the messages above)')
      if (result.stopped) return summarize(results, `${result.stopped.message ?? result.stopped.reason}: ${outbox.unfinished(spaceId).length} operation(s) wait in the outbox`)
      if (result.skipped) return summarize(results, result.skipped)
      if (result.planned === 0 && outbox.unfinished(spaceId).length === 0) return summarize(results)
    }
    return summarize(results, `still planning changes after ${MAX_PUSH_ROUNDS} pushes`)
  } finally {
    stop()
  }
}

function summarize(results: PushResult[], waiting?: string) {
  const last = [...results].reverse().find((r) => r.changeRequest)
  return { reports: results.flatMap((r) => r.reports), failures: [...new Set(results.flatMap((r) => r.failures))], waiting, changeRequest: last?.changeRequest }
}

function dedupe(reports: PushReport[]): PushReport[] {
  const seen = new Set<string>()
  return reports.filter((r) => !seen.has(`${r.kind}\n${r.path}\n${r.message}`) && seen.add(`${r.kind}\n${r.path}\n${r.message}`))
}

/**
 * What of the space folder has not gone to the service yet: files that differ from what the last sync
 * down wrote, new files, removed ones, operations waiting in the outbox, changes the writer's open
 * change request carries. An import into such a folder would mix them in (or overwrite them): refused.
 */
export async function unsentLocalWork(folder: string, cache: CacheRepository, outbox: OutboxRepository, spaceId: string): Promise<string[]> {
  const found: string[] = []
  const waiting = outbox.unfinished(spaceId).length
  if (waiting > 0) found.push(`${waiting} operation(s) waiting in the outbox`)
  const carried = outbox.entries(spaceId).length
  const session = outbox.session(spaceId)
  if (carried > 0) found.push(`your change request${session?.number !== undefined ? ` #${session.number}` : ''} carries ${carried} change(s) not merged yet`)
  const scan = await new LocalScanner(folder).scan(() => false)
  const journal = cache.journal(spaceId)
  const base = new Map(journal.map((j) => [j.path, j.baseHash]))
  for (const [p, file] of scan.files) if (base.get(p) !== file.hash) found.push(base.has(p) ? `${p} (edited)` : `${p} (new)`)
  for (const j of journal) if (j.baseHash && !scan.files.has(j.path) && !scan.skipped.has(j.path)) found.push(`${j.path} (removed)`)
  return found
}

import { readFileSync } from 'node:fs'
import fs from 'node:fs/promises'
import { gitBlobOid } from '../../content'
import type { Space } from '@gitbook/api'
import type { CacheRepository, SpaceRow } from '../cache/cache-repository'
import { StatJournal } from '../cache/stat-journal'
import type { ApiGateway } from '../gateway/api-gateway'
import { rememberSummaryBase } from '../push/summary-state'
import { foldsCase } from '../workspace/case-folding'
import { confinedPath } from '../workspace/safe-names'
import { SpaceFolder, type SpaceFolderOptions } from '../workspace/space-folder'
import { executePlan, type StepEvent } from './executor'
import { folderStatus, type FolderStatus } from './folder-state'
import { GatewayContentSource } from './gateway-source'
import type { JournalEntry, LocalState, RemoteSnapshot } from './plan-types'
import { planSpaceSync } from './planner'
import { earlierPageVersions, journalIntact, unexplainedPages, listContentFiles, readPageTexts, recoveringWhole, recoveryTexts, rememberJournalSize } from './recovery-inputs'
import { recoveryTextNeeds } from './recovery-match'
import { keepTree, readByDifference } from './read-by-difference'
import { pageTextsFromTree, placeRemoteTree, remoteRows, withSummary, type PlacedTree } from './remote-snapshot'

export interface SpacePassOptions {
  cache: CacheRepository
  gateway: ApiGateway
  allowMassDelete?: boolean
  concurrency?: number
  /** Unused since issue 29: a pass reads no link report (whoever shows one reads it: refreshStaleLinkReports). */
  refreshLinks?: boolean
  onPlanned?: (total: number) => void
  onStep?: (event: StepEvent) => void
  now?: () => string
  /** Sync up (hook): pages whose local rename, move or deletion waits in the writer's change request; the pass leaves them alone. */
  hold?: ReadonlySet<string>
  /** Hooks into the space folder's guarded steps (tests: a save at an exact moment of the pass). */
  folder?: SpaceFolderOptions
  /** The space as its organization's list showed it this pass: no request of its own to learn its revision. */
  listed?: Space
  /** Build the remote snapshot from the kept tree and the revisions' changes where it may (default true; issue 29). */
  byDifference?: boolean
  /** Use page markdown the tree carries when it hashes to the page's `git.oid` (default true). */
  pageTextsFromTree?: boolean
}

export interface SpaceOutcome extends FolderStatus {
  spaceId: string
  revision?: string
  /** Steps performed this pass. */
  steps: number
}

/**
 * One pass over one space: no request when the space list showed its revision unchanged (one when
 * there is no list); otherwise the tree, a plan, and only the steps it asks for. Pages whose markdown
 * the tree carries are written from it; the others are fetched one by one. Local files are hashed only
 * when their stat changed since they were last hashed (`StatJournal`). Progress is journaled as the
 * steps finish (see executePlan).
 */
export async function syncSpace(space: SpaceRow, folder: string, options: SpacePassOptions): Promise<SpaceOutcome> {
  const { cache, gateway } = options
  const now = options.now ?? (() => new Date().toISOString())
  const remote = options.listed ?? (await gateway.client.spaces.getSpaceById(space.id)).data
  cache.upsertSpace({ id: space.id, orgId: remote.organization, collectionId: remote.parent, title: remote.title, remoteRevision: remote.revision })

  const unfinished = cache.run(space.id)
  // Pages the hold released since the last full pass (a change request merged or closed, a deletion
  // the writer may not send) must be placed again though the revision is the same.
  const held = options.hold ?? new Set<string>()
  const holdKey = [...held].sort().join(',')
  const sameHold = (cache.setting(holdSetting(space.id)) ?? '') === holdKey
  // A journal that lost entries (a rebuilt cache, deleted rows) is recovered by a full pass, whatever the revision.
  const intact = journalIntact(cache, space.id)
  if (remote.revision === space.syncedRevision && !unfinished && sameHold && intact && !recoveredBehind(cache, space.id) && (await folderExists(folder))) {
    const status = folderStatus({ type: 'unchanged', revision: remote.revision })
    cache.setSpaceState(space.id, status.state, { lastError: null, issues: [], lastSyncAt: now() })
    return { ...status, spaceId: space.id, revision: remote.revision, steps: 0 }
  }

  const fullJournal = cache.journal(space.id)
  // A journal recovered or a run cut short: the whole tree (the kept one may not be what the folder holds).
  const target = intact && !unfinished && options.byDifference !== false ? remote.revision : undefined
  const { revisionId, snapshot, pageTexts } = await readRemoteTree(space, folder, held, fullJournal, { ...options, target })

  // What the pass writes is remembered by stat too, so the next scan reads none of it.
  const stats = StatJournal.of(cache, space.id)
  const files = new SpaceFolder(folder, { ...options.folder, written: stats })
  await fs.mkdir(files.root, { recursive: true })
  await files.removeStaleTempFiles()
  const journal = fullJournal.filter((j) => !(j.kind === 'page' && held.has(j.id)))
  // Recovering, a page's file may be anywhere in the folder: every content file is looked at. Earlier
  // versions are read only for a cache that lost its whole journal: after lost rows (a kill mid-pass) the
  // files the journal does not name are the pass's own writes, not old copies.
  const scanned = [...journal.map((j) => j.path), ...snapshot.entries.map((e) => e.path), ...(intact ? [] : await listContentFiles(files.root))]
  const local = await files.scan(scanned, { memo: stats })
  stats.save(scanned)
  const links = localLinksKey(snapshot)
  const relinkPages = (cache.setting(localLinksSetting(space.id)) ?? '') !== links
  const gatewaySource = new GatewayContentSource(gateway, space.id, revisionId)
  // Where the tree carries no markdown (the hosted service's), the pages recovery compares are read first.
  // (The edited pages' only where earlier versions are compared: see editedFrom.)
  const needs = intact ? undefined : recoveryTextNeeds(snapshot.entries, journal, local)
  const readsEarlier = needs !== undefined && recoveringWhole(cache, space.id, fullJournal.length) && unexplainedPages(snapshot, local)
  if (needs) await readPageTexts([...needs.similar, ...(readsEarlier ? needs.edited : [])], pageTexts, (id) => gatewaySource.page(id))
  const recover = needs && {
    texts: await recoveryTexts(files.root, snapshot, journal, local, pageTexts),
    earlier: readsEarlier ? await earlierPageVersions(options.gateway, space.id, revisionId, new Set(needs.edited), summaryEdited(snapshot, local) ? { foldCase: foldsCase(folder) } : undefined) : undefined,
  }
  const plan = planSpaceSync(snapshot, journal, local, { allowMassDelete: options.allowMassDelete, relinkPages, recover })
  // A recovered file edited from an earlier version: that version's text is its merge base.
  for (const action of plan.actions) {
    if (action.type !== 'recover' || action.baseText === undefined) continue
    if (action.kind === 'summary') rememberSummaryBase(cache, space.id, action.oid, action.baseText)
    else cache.pageBases.remember(space.id, action.oid, action.baseText)
  }
  const fromEarlier = plan.actions.flatMap((a) => (a.type === 'recover' && a.kind === 'page' && a.baseText !== undefined ? [a.id] : []))
  if (fromEarlier.length > 0) cache.setSetting(recoveredSetting(space.id), JSON.stringify(fromEarlier))
  const planned = folderStatus({ type: 'planned', plan })
  if (plan.blocked) {
    cache.setSpaceState(space.id, planned.state, { lastError: planned.message ?? null, issues: planned.issues })
    return { ...planned, spaceId: space.id, revision: revisionId, steps: 0 }
  }

  cache.startRun(space.id, revisionId, plan.actions.length)
  cache.setSpaceState(space.id, 'syncing')
  options.onPlanned?.(plan.actions.length)
  // Steps finished since the last journal write: counted for `quire status` in that write's transaction.
  let steps = 0
  // Page texts downloaded and not yet journaled: each is kept as its page's merge base with its entry.
  const downloaded = new Map<string, Uint8Array>()
  const result = await executePlan(plan, {
    files,
    source: {
      page: async (id) => {
        const fromTree = pageTexts.get(id)
        pageTexts.delete(id)
        const bytes = fromTree ?? (await gatewaySource.page(id))
        downloaded.set(id, bytes)
        return bytes
      },
      file: (id, url) => gatewaySource.file(id, url),
      fileInto: (id, url, sink) => gatewaySource.fileInto(id, url, sink),
      reusableContent: (id) => gatewaySource.reusableContent(id),
    },
    journal: {
      record: (entry) => {
        cache.recordJournal(space.id, entry)
        // Dropped whatever the entry (a page written with local links too): its bytes are on disk now.
        const written = downloaded.get(entry.id)
        downloaded.delete(entry.id)
        // SUMMARY.md as written is the merge base the writer's edits of it are told from (push/summary-edits.ts).
        if (entry.kind === 'summary' && entry.baseHash === entry.oid) {
          // A recovered SUMMARY.md the writer edited: the base is the remote one as this pass rendered it.
          const rendered = snapshot.entries.find((e) => e.kind === 'summary' && e.oid === entry.oid)?.content
          const summary = adoptedBytes(files.root, entry.path, entry.oid)
          const text = summary !== undefined ? Buffer.from(summary).toString('utf8') : rendered
          if (text !== undefined) rememberSummaryBase(cache, space.id, entry.oid, text)
        }
        if (entry.kind !== 'page' || entry.baseHash !== entry.oid) return
        // An adopted file already holds the remote version: its own bytes are the text.
        const bytes = written ?? adoptedBytes(files.root, entry.path, entry.oid)
        if (bytes !== undefined) cache.pageBases.remember(space.id, entry.oid, Buffer.from(bytes).toString('utf8'))
      },
      forget: (id, kind) => cache.forgetJournal(space.id, id, kind),
      commit: (work) =>
        cache.transaction(() => {
          work()
          cache.stepRun(space.id, steps)
          steps = 0
        }),
    },
    concurrency: options.concurrency,
    onStep: (event) => {
      steps++
      options.onStep?.(event)
    },
  })
  cache.finishRun(space.id)
  // Rows of a pass cut short are simply not kept: those files are read once by the next scan.
  stats.save(scanned)
  cache.pageBases.prune(space.id)
  // The journal is whole once every file recovery matched is journaled, and every step of an entry not
  // journaled before a pass that read earlier versions is done (a file taken as one is journaled by its
  // step); until then each pass recovers.
  const before = new Set(fullJournal.map((j) => `${j.kind}:${j.id}`))
  const unrecovered = [...result.skipped.map((s) => s.action), ...result.failed.map((f) => f.action)].some((a) => a.type === 'recover' || (readsEarlier && 'kind' in a && !before.has(`${a.kind}:${a.id}`)))
  if (!unrecovered) rememberJournalSize(cache, space.id)

  const status = folderStatus({ type: 'executed', plan, result })
  cache.setSetting(holdSetting(space.id), holdKey)
  // Pages a step could not write keep their old links: the next pass looks at them again.
  if (relinkPages && result.failed.length === 0 && result.skipped.length === 0) cache.setSetting(localLinksSetting(space.id), links)
  cache.setSpaceState(space.id, status.state, {
    lastError: status.message ?? null,
    issues: status.issues,
    lastSyncAt: now(),
    ...(status.syncedRevision ? { syncedRevision: status.syncedRevision } : {}),
  })
  return { ...status, spaceId: space.id, revision: revisionId, steps: result.done }
}

/**
 * The current revision's tree, stored in the cache, the files it wants (less the held pages), and the
 * markdown the response carries for the pages this pass will write (see `pageTextsFromTree`). Nothing
 * else of the response is kept past this function, so a large space's revision is not held in memory
 * while its pages download.
 */
async function readRemoteTree(
  space: SpaceRow,
  folder: string,
  held: ReadonlySet<string>,
  journal: readonly JournalEntry[],
  options: SpacePassOptions & { target?: string },
): Promise<{ revisionId: string; snapshot: RemoteSnapshot; pageTexts: Map<string, Uint8Array> }> {
  const { placed, pageTexts } = await storeRemoteTree(space, folder, journal, options)
  const full = withSummary(placed)
  const snapshot = held.size === 0 ? full : { ...full, entries: full.entries.filter((e) => !(e.kind === 'page' && held.has(e.id))) }
  return { revisionId: full.revision, snapshot, pageTexts }
}

async function storeRemoteTree(space: SpaceRow, folder: string, journal: readonly JournalEntry[], options: SpacePassOptions & { target?: string }): Promise<{ placed: PlacedTree; pageTexts: Map<string, Uint8Array> }> {
  const { cache, gateway } = options
  // By difference where the pass may (issue 29): the tree kept of the synced revision, patched.
  const difference = options.target !== undefined ? await readByDifference(cache, gateway, space.id, options.target, space.syncedRevision) : undefined
  if (difference) {
    const { revision } = difference
    cache.recordRevision(space.id, { id: revision.id, parents: difference.parents })
    const rows = remoteRows(revision)
    cache.replaceRemoteTree(space.id, rows.pages, rows.files)
    keepTree(cache, space.id, revision)
    return { placed: placeRemoteTree(revision, { foldCase: foldsCase(folder) }), pageTexts: options.pageTextsFromTree === false ? new Map() : difference.pageTexts }
  }
  const { data: revision } = await gateway.client.spaces.getCurrentRevision(space.id)
  cache.recordRevision(space.id, { id: revision.id, parents: revision.parents, createdAt: revision.createdAt })
  const rows = remoteRows(revision)
  cache.replaceRemoteTree(space.id, rows.pages, rows.files)
  keepTree(cache, space.id, revision)
  const written = new Map(journal.filter((j) => j.kind === 'page').map((j) => [j.id, j.oid]))
  const pageTexts = options.pageTextsFromTree === false ? new Map<string, Uint8Array>() : pageTextsFromTree(revision, (id, oid) => written.get(id) !== oid)
  return { placed: placeRemoteTree(revision, { foldCase: foldsCase(folder) }), pageTexts }
}

function adoptedBytes(root: string, relative: string, oid: string): Uint8Array | undefined {
  try {
    const bytes = readFileSync(confinedPath(root, relative))
    return gitBlobOid(bytes) === oid ? bytes : undefined
  } catch {
    return undefined
  }
}

async function folderExists(folder: string): Promise<boolean> {
  try {
    return (await fs.stat(folder)).isDirectory()
  } catch {
    return false
  }
}

/** The local names of renamed files pages were last written with (`RemoteEntry.links`), as one key; '' for none. */
function localLinksKey(snapshot: RemoteSnapshot): string {
  const files = snapshot.entries.find((e) => e.links !== undefined)?.links?.files
  return files ? JSON.stringify([...files].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : ''
}

const localLinksSetting = (spaceId: string) => `local_links:${spaceId}`

/** The cache setting that keeps which pages the last full pass of a space held out. */
const holdSetting = (spaceId: string) => `held_pages:${spaceId}`

const recoveredSetting = (spaceId: string) => `recovered_behind:${spaceId}`

/**
 * Whether a page recovered as an earlier version it was edited from (recovery-match.ts `editedFrom`) is
 * still journaled as that version while its file is unedited: its edit is gone since (a marker posted
 * and taken out of it), and only a pass brings the file up to date, so one looks again though the
 * revision is the same. Forgotten once none is behind. From the cache alone.
 */
function recoveredBehind(cache: SpacePassOptions['cache'], spaceId: string): boolean {
  const ids = cache.setting(recoveredSetting(spaceId))
  if (ids === undefined || ids === '') return false
  const recovered = new Set(JSON.parse(ids) as string[])
  const remote = new Map(cache.remoteTree(spaceId).pages.map((p) => [p.id, p.gitOid]))
  const behind = cache.journal(spaceId).some((j) => recovered.has(j.id) && j.kind === 'page' && j.oid !== '' && j.oid === j.baseHash && remote.get(j.id) !== undefined && remote.get(j.id) !== j.oid)
  if (!behind) cache.setSetting(recoveredSetting(spaceId), '')
  return behind
}

/** Whether the folder's SUMMARY.md is not the one the current revision gives (recovery then reads its earlier versions too). */
function summaryEdited(snapshot: RemoteSnapshot, local: LocalState): boolean {
  const summary = snapshot.entries.find((e) => e.kind === 'summary')
  const hash = summary && local.get(summary.path)
  return hash !== undefined && hash !== summary?.oid
}

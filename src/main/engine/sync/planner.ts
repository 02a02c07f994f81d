import { SUMMARY_FILE } from '../../content'
import type { JournalEntry, LocalState, PlanOptions, RemoteEntry, RemoteSnapshot, SyncAction, SyncNotice, SyncPlan } from './plan-types'
import { earlierVersions, editedFrom, matchUnjournaled, type EarlierVersions, type RecoveryTexts } from './recovery-match'

/**
 * Decides what one pass does to one space folder, from three facts and nothing else: the remote
 * snapshot, the journal (what the last pass wrote, the merge base) and the hashes of the local files.
 * Pure, so it is tested on thousands of random trees.
 *
 * Rules:
 * - A local file whose hash differs from its merge base is never overwritten, moved or deleted; the
 *   remote change for it is held back and reported.
 * - A file that is not in the journal is never overwritten: if it already holds the remote content it is
 *   adopted, else the remote entry waits (first sync into a non-empty folder merges).
 * - While the journal is not known to be whole (`options.recover`), such files are first matched to the
 *   remote entries the journal does not name, by path, oid, then similarity (recovery-match.ts), and
 *   journaled as those entries (`recover`): a file that differs is the writer's edit of that page.
 * - Remote renames and moves become local renames; content is downloaded only when its oid changed.
 * - Deleting more than half of the space's files stops the plan unless the user allowed it.
 */
export function planSpaceSync(remote: RemoteSnapshot, journaled: readonly JournalEntry[], local: LocalState, options: PlanOptions = {}): SyncPlan {
  const earlier = options.recover?.earlier
  const journal = earlier ? [...journaled, ...earlierVersions(remote.entries, journaled, local, earlier)] : journaled
  const key = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`
  const remoteByKey = new Map(remote.entries.map((r) => [key(r), r]))
  const journalByKey = new Map(journal.map((j) => [key(j), j]))
  // Only journal entries whose file exists occupy a path.
  const ownerOfPath = new Map<string, JournalEntry>()
  for (const j of journal) if (local.has(j.path)) ownerOfPath.set(j.path, j)

  const notices: SyncNotice[] = []
  const forgets: SyncAction[] = []
  const recovers = options.recover ? recoverActions(remote, journal, local, options.recover.texts, earlier) : []
  /** Remote entries a recovered file stands for: journaled by their `recover` step, nothing else this pass. */
  const recovered = new Set(recovers.map(key))
  for (const r of recovers) if (r.path === r.file) ownerOfPath.set(r.path, { id: r.id, kind: r.kind, path: r.path, oid: r.oid, baseHash: r.oid })
  const deletes: SyncAction[] = []
  /** Journal entries whose file keeps its current path this pass. */
  const stays = new Set<string>(recovers.filter((r) => r.path === r.file).map(key))
  /** Where each remote entry's current local copy is (clean or already converged), when there is one to reuse. */
  const source = new Map<string, { path: string; hash: string; journal: JournalEntry }>()

  for (const j of journal) {
    const r = remoteByKey.get(key(j))
    const hash = local.get(j.path)
    if (!r) {
      if (hash === undefined) forgets.push({ type: 'forget', id: j.id, kind: j.kind })
      else if (hash === j.baseHash) deletes.push({ type: 'delete', id: j.id, kind: j.kind, path: j.path, baseHash: j.baseHash, journaledOid: j.oid })
      else {
        notices.push({ type: 'local-edit', id: j.id, kind: j.kind, path: j.path, remote: 'deleted' })
        stays.add(key(j))
      }
      continue
    }
    if (hash === undefined) continue // gone locally: the remote entry is placed afresh
    if (hash === j.baseHash || hash === r.oid) {
      source.set(key(r), { path: j.path, hash, journal: j })
      if (r.path === j.path) stays.add(key(j))
      continue
    }
    // Edited locally.
    stays.add(key(j))
    if (r.oid !== j.oid || r.path !== j.path) {
      notices.push({ type: 'local-edit', id: j.id, kind: j.kind, path: j.path, remote: r.oid !== j.oid ? 'changed' : 'moved' })
    }
  }

  const placed = remote.entries.filter((r) => {
    if (recovered.has(key(r))) return false
    const j = journalByKey.get(key(r))
    if (!j || !local.has(j.path)) return true
    return source.has(key(r)) // edited entries are held back
  })

  type Target = 'free' | 'adoptable' | 'blocked'
  const targetOf = (r: RemoteEntry): Target => {
    const hash = local.get(r.path)
    if (hash === undefined) return 'free'
    const owner = ownerOfPath.get(r.path)
    if (owner && key(owner) === key(r)) return 'free'
    if (owner) return stays.has(key(owner)) ? 'blocked' : 'free'
    return hash === r.oid ? 'adoptable' : 'blocked'
  }

  // A blocked entry keeps its old copy in place, which may block another entry: repeat until stable.
  const blocked = new Set<string>()
  for (let changed = true; changed; ) {
    changed = false
    for (const r of placed) {
      const k = key(r)
      const src = source.get(k)
      if (blocked.has(k) || (src && src.path === r.path)) continue
      if (targetOf(r) !== 'blocked') continue
      blocked.add(k)
      if (src && !stays.has(key(src.journal))) stays.add(key(src.journal))
      changed = true
    }
  }

  const moves: Array<Extract<SyncAction, { type: 'move' }>> = []
  const adopts: SyncAction[] = []
  const downloads: SyncAction[] = []
  for (const r of placed) {
    const k = key(r)
    const src = source.get(k)
    if (blocked.has(k)) {
      notices.push({ type: 'path-occupied', id: r.id, kind: r.kind, path: r.path })
      continue
    }
    const download = (expect: string | undefined, journaledOid?: string): SyncAction => ({
      type: 'download',
      id: r.id,
      kind: r.kind,
      path: r.path,
      oid: r.oid,
      ...(r.url !== undefined ? { url: r.url } : {}),
      ...(r.content !== undefined ? { content: r.content } : {}),
      ...(r.links !== undefined ? { links: r.links } : {}),
      ...(r.include !== undefined ? { include: r.include } : {}),
      ...(expect !== undefined ? { expect } : {}),
      ...(journaledOid !== undefined ? { journaledOid } : {}),
    })
    if (src && src.path === r.path) {
      // A page written with local links (an include written from its document) holds the remote oid's
      // content as the journal says it wrote it.
      const rewritten = (r.links !== undefined && !options.relinkPages) || r.include !== undefined
      const localized = rewritten && src.journal.oid === r.oid && src.hash === src.journal.baseHash
      if (src.hash !== r.oid && !localized) downloads.push(download(src.hash, src.journal.oid))
      else if (src.journal.oid !== r.oid || src.journal.baseHash !== src.hash) adopts.push({ type: 'adopt', id: r.id, kind: r.kind, path: r.path, oid: r.oid })
      continue
    }
    const target = targetOf(r)
    if (target === 'adoptable') {
      adopts.push({ type: 'adopt', id: r.id, kind: r.kind, path: r.path, oid: r.oid })
      if (src) deletes.push({ type: 'delete', id: r.id, kind: r.kind, path: src.path, baseHash: src.hash })
    } else if (src) {
      moves.push({ type: 'move', id: r.id, kind: r.kind, from: src.path, to: r.path, oid: src.journal.oid, baseHash: src.hash })
      // Journaled at `r.path` by the move first.
      if (src.hash !== r.oid) downloads.push(download(src.hash, src.journal.oid))
      else if (src.journal.oid !== r.oid) adopts.push({ type: 'adopt', id: r.id, kind: r.kind, path: r.path, oid: r.oid })
    } else {
      downloads.push(download(undefined))
    }
  }

  const deletions = deletes.filter((d) => d.kind !== 'summary').length
  // Recovering, the journal is what the pass is rebuilding: the folder's files are what a deletion takes from.
  const total = options.recover ? [...local.keys()].filter((p) => p !== SUMMARY_FILE).length : journal.filter((j) => j.kind !== 'summary' && local.has(j.path)).length
  if (deletions > 0 && deletions * 2 > total && !options.allowMassDelete) {
    return { revision: remote.revision, actions: [], notices, blocked: { reason: 'mass-delete', deletions, total } }
  }

  // The summary is written last: it lists the pages the other actions put in place.
  downloads.sort((a, b) => Number(a.kind === 'summary') - Number(b.kind === 'summary'))
  return { revision: remote.revision, actions: [...forgets, ...recovers, ...deletes, ...orderMoves(moves), ...adopts, ...downloads], notices }
}

/**
 * The `recover` steps of the files recovery matched (a file at its entry's place that already holds the
 * remote content needs none: it is adopted as any such file). A file found elsewhere holding exactly the
 * entry's content is journaled at the entry's place when nothing is there, so the push sees a rename
 * of that page (and the hold keeps the pass from putting it back); any other is journaled where it is.
 */
function recoverActions(remote: RemoteSnapshot, journal: readonly JournalEntry[], local: LocalState, texts: RecoveryTexts | undefined, earlier: EarlierVersions | undefined): Array<Extract<SyncAction, { type: 'recover' }>> {
  const named = new Set(journal.map((j) => j.path))
  return matchUnjournaled(remote.entries, journal, local, texts).flatMap(({ entry: r, file, hash, by }): Array<Extract<SyncAction, { type: 'recover' }>> => {
    if (file === r.path && hash === r.oid) return []
    const path = by === 'oid' && !local.has(r.path) && !named.has(r.path) ? r.path : file
    // SUMMARY.md as well: edited from an earlier one, main's changes since are kept by the push's merge.
    const fileText = (r.kind === 'page' || r.kind === 'summary') && hash !== r.oid ? texts?.local(file) : undefined
    const remoteText = r.kind === 'summary' ? r.content : texts?.remote(r.id)
    const base = fileText === undefined ? undefined : editedFrom(fileText, remoteText, earlier?.get(r.id))
    if (base) return [{ type: 'recover' as const, id: r.id, kind: r.kind, path, file, hash, oid: base.oid, baseText: base.text }]
    return [
      {
        type: 'recover' as const,
        id: r.id,
        kind: r.kind,
        path,
        file,
        hash,
        oid: r.oid,
        ...(r.url !== undefined ? { url: r.url } : {}),
        ...(r.content !== undefined ? { content: r.content } : {}),
        ...(r.links !== undefined ? { links: r.links } : {}),
        ...(r.include !== undefined ? { include: r.include } : {}),
      },
    ]
  })
}

/**
 * Orders renames so none lands on a file that is still waiting to move away; a cycle (two pages
 * swapping names) is broken by parking one file under a temporary name in its folder first.
 */
function orderMoves(moves: Array<Extract<SyncAction, { type: 'move' }>>): SyncAction[] {
  const pending = [...moves]
  const ordered: SyncAction[] = []
  while (pending.length > 0) {
    const sources = new Set(pending.map((m) => m.from))
    const ready = pending.filter((m) => !sources.has(m.to) || m.to === m.from)
    if (ready.length > 0) {
      for (const m of ready) {
        ordered.push(m)
        pending.splice(pending.indexOf(m), 1)
      }
      continue
    }
    const first = pending[0]
    const folder = first.from.includes('/') ? first.from.slice(0, first.from.lastIndexOf('/') + 1) : ''
    const parked = `${folder}${PARK_MARK}${first.kind}-${first.id.replace(/[^A-Za-z0-9_-]/g, '_')}`
    ordered.push({ ...first, to: parked })
    pending[0] = { ...first, from: parked }
  }
  return ordered
}

/** Prefix of a file parked during a cycle of renames; it is journaled, so a killed pass picks it up. */
export const PARK_MARK = '.quire-move-'

import { SUMMARY_FILE } from '../../content'
import { lineSimilarity, pairBySimilarity } from '../workspace/similarity'
import type { JournalEntry, LocalState, RemoteEntry } from './plan-types'

/**
 * Recovery without a journal (a first sync into a non-empty folder, a deleted or rebuilt cache, lost
 * journal rows): which local file is which remote entry when the journal does not say. Pure.
 *
 * A file with no journal entry is matched to a remote entry with none, in this order, before anything
 * counts as new: by path (the file at the entry's place is that entry, whatever it holds), then by oid (a
 * file elsewhere holding exactly the entry's content, when exactly one does and no other entry has that
 * content), then by content similarity (pages only; `pairBySimilarity`: a line-based score, a 50%
 * threshold, ties refused). A match tells the planner to journal the file as that entry, so the file is
 * never overwritten and a push sends the writer's edit as an edit of the same page, not a new one.
 */

export interface RecoveryMatch {
  entry: RemoteEntry
  /** The local file that is the entry. */
  file: string
  /** Its hash as scanned. */
  hash: string
  by: 'path' | 'oid' | 'similarity'
}

/** Each page's earlier versions in the space's recent revisions: oid -> text (undefined where the tree carried none). */
export type EarlierVersions = ReadonlyMap<string, ReadonlyMap<string, string | undefined>>

/** Texts for the similarity step: a local page file's, a remote page's (by id); undefined when not at hand. */
export interface RecoveryTexts {
  local(path: string): string | undefined
  remote(id: string): string | undefined
}

/** Pairs scored at most (a folder of thousands of unmatched files would take minutes); past it, no similarity step. */
export const MAX_SIMILARITY_PAIRS = 250_000

const key = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`

export function matchUnjournaled(remote: readonly RemoteEntry[], journal: readonly JournalEntry[], local: LocalState, texts?: RecoveryTexts): RecoveryMatch[] {
  const { matches, take, left, right } = matchByPlace(remote, journal, local)
  if (!texts || left.length === 0 || right.length === 0 || left.length * right.length > MAX_SIMILARITY_PAIRS) return matches
  const withText = <T>(items: T[], text: (t: T) => string | undefined) =>
    items.flatMap((item) => {
      const t = text(item)
      return t === undefined ? [] : [{ key: item, text: t }]
    })
  for (const pair of pairBySimilarity(withText(left, (r) => texts.remote(r.id)), withText(right, (p) => texts.local(p)))) take(pair.left, pair.right, 'similarity')
  return matches
}

/**
 * The remote pages whose text recovery compares (`RecoveryTexts.remote`), for a client to read where the
 * tree carries none (the hosted service's): `similar`, the pages no file matched by path or oid while some
 * page file is free (the similarity step); `edited`, the pages matched to a file that differs from them
 * (telling which version the file was edited from, `editedFrom`).
 */
export function recoveryTextNeeds(remote: readonly RemoteEntry[], journal: readonly JournalEntry[], local: LocalState): { similar: string[]; edited: string[] } {
  const { matches, left, right } = matchByPlace(remote, journal, local)
  const similar = right.length === 0 || left.length * right.length > MAX_SIMILARITY_PAIRS ? [] : left.map((r) => r.id)
  const edited = matches.filter((m) => m.entry.kind === 'page' && m.hash !== m.entry.oid).map((m) => m.entry.id)
  return { similar, edited }
}

/** The matches by path, then by oid; what is left for the similarity step on either side. */
function matchByPlace(remote: readonly RemoteEntry[], journal: readonly JournalEntry[], local: LocalState) {
  const journaled = new Set(journal.map(key))
  // Paths the journal names, whether or not a file is there: such a file is already some entry's.
  const claimed = new Set(journal.map((j) => j.path))
  // SUMMARY.md too, by path only: a SUMMARY.md found at its place is the space's (the writer's edit where
  // it differs), not a stranger blocking it; left unjournaled, the push had no base to tell an edit from.
  const entries = remote.filter((r) => !journaled.has(key(r)) && r.oid !== '')
  const matches: RecoveryMatch[] = []
  const taken = new Set<string>()
  const matched = new Set<string>()
  const take = (entry: RemoteEntry, file: string, by: RecoveryMatch['by']) => {
    matches.push({ entry, file, hash: local.get(file)!, by })
    taken.add(file)
    matched.add(key(entry))
  }

  for (const r of entries) if (local.has(r.path) && !claimed.has(r.path)) take(r, r.path, 'path')

  // Files no entry has at its path and the journal does not name: a page's file moved or renamed.
  const free = () => [...local.keys()].filter((p) => !taken.has(p) && !claimed.has(p) && p !== SUMMARY_FILE)
  const byHash = new Map<string, string[]>()
  for (const p of free()) {
    const hash = local.get(p)!
    byHash.set(hash, [...(byHash.get(hash) ?? []), p])
  }
  const entriesByOid = new Map<string, RemoteEntry[]>()
  for (const r of entries) if (!matched.has(key(r)) && r.kind === 'page') entriesByOid.set(r.oid, [...(entriesByOid.get(r.oid) ?? []), r])
  for (const [oid, rs] of entriesByOid) {
    const files = byHash.get(oid) ?? []
    if (rs.length === 1 && files.length === 1) take(rs[0], files[0], 'oid')
  }

  const left = entries.filter((r) => r.kind === 'page' && !matched.has(key(r)))
  const right = free().filter((p) => /\.md$/i.test(p))
  return { matches, take, left, right }
}

/**
 * Files at a page's place that hold one of that page's earlier versions (`earlier`: oids from the
 * space's recent revisions): Quire wrote them once and the writer did not touch them since, so they are
 * journaled as that version (`oid` = `baseHash` = the file's hash) and the pass brings the page up to
 * date as it would any unedited file. Taken for an edit, such a file would undo, in the writer's change
 * request, what others changed in the page while the cache was lost.
 */
export function earlierVersions(remote: readonly RemoteEntry[], journal: readonly JournalEntry[], local: LocalState, earlier: EarlierVersions): JournalEntry[] {
  const journaled = new Set(journal.map(key))
  const claimed = new Set(journal.map((j) => j.path))
  const out: JournalEntry[] = []
  for (const r of remote) {
    if ((r.kind !== 'page' && r.kind !== 'summary') || journaled.has(key(r)) || claimed.has(r.path)) continue
    const hash = local.get(r.path)
    if (hash !== undefined && hash !== r.oid && earlier.get(r.id)?.has(hash)) {
      out.push({ id: r.id, kind: r.kind, path: r.path, oid: hash, baseHash: hash })
      claimed.add(r.path)
    }
  }
  // A file holding an earlier version of a page the space no longer has (deleted since): that page's file,
  // unedited, which the pass removes as it removes any unedited file of a deleted page. Only when exactly
  // one such page had that version.
  const present = new Set(remote.filter((r) => r.kind === 'page' || r.kind === 'summary').map((r) => r.id))
  const gone = new Map<string, string[]>()
  for (const [id, versions] of earlier) if (!present.has(id) && !journaled.has(`page:${id}`)) for (const oid of versions.keys()) gone.set(oid, [...(gone.get(oid) ?? []), id])
  for (const [path, hash] of local) {
    const ids = gone.get(hash)
    if (claimed.has(path) || !ids || ids.length !== 1 || !/\.md$/i.test(path)) continue
    out.push({ id: ids[0], kind: 'page', path, oid: hash, baseHash: hash })
    claimed.add(path)
  }
  return out
}

/**
 * The version a recovered, edited page file was most likely edited from: an earlier version of the page
 * that is closer to the file than the remote one is (the writer edited a copy the lost cache never
 * brought up to date). Journaled as that version, the file's edits are merged with what changed since,
 * block by block, by the push; journaled as the remote one they would undo it. Undefined: the remote one.
 */
export function editedFrom(fileText: string, remoteText: string | undefined, earlier: ReadonlyMap<string, string | undefined> | undefined): { oid: string; text: string } | undefined {
  if (!earlier || remoteText === undefined) return undefined
  // The remote version itself is never an earlier one (a page may come back to an old text).
  let best: { oid: string; text: string; score: number } | undefined
  const current = lineSimilarity(fileText, remoteText)
  for (const [oid, text] of earlier) {
    if (text === undefined || text === remoteText) continue
    const score = lineSimilarity(fileText, text)
    // At a tie the earlier one: merging from an older base than the true one only sees the changes made
    // since on both sides alike (they merge cleanly); merging from a newer one undoes them.
    if (score >= current && (!best || score > best.score)) best = { oid, text, score }
  }
  return best && { oid: best.oid, text: best.text }
}

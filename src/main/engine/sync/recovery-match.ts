import { SUMMARY_FILE } from '../../content'
import { pairBySimilarity } from '../workspace/similarity'
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

/** Texts for the similarity step: a local page file's, a remote page's (by id); undefined when not at hand. */
export interface RecoveryTexts {
  local(path: string): string | undefined
  remote(id: string): string | undefined
}

/** Pairs scored at most (a folder of thousands of unmatched files would take minutes); past it, no similarity step. */
export const MAX_SIMILARITY_PAIRS = 250_000

const key = (e: { kind: string; id: string }) => `${e.kind}:${e.id}`

export function matchUnjournaled(remote: readonly RemoteEntry[], journal: readonly JournalEntry[], local: LocalState, texts?: RecoveryTexts): RecoveryMatch[] {
  const journaled = new Set(journal.map(key))
  // Paths the journal names, whether or not a file is there: such a file is already some entry's.
  const claimed = new Set(journal.map((j) => j.path))
  const entries = remote.filter((r) => !journaled.has(key(r)) && r.kind !== 'summary' && r.oid !== '')
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

  if (!texts) return matches
  const left = entries.filter((r) => r.kind === 'page' && !matched.has(key(r)))
  const right = free().filter((p) => /\.md$/i.test(p))
  if (left.length === 0 || right.length === 0 || left.length * right.length > MAX_SIMILARITY_PAIRS) return matches
  const withText = <T>(items: T[], text: (t: T) => string | undefined) =>
    items.flatMap((item) => {
      const t = text(item)
      return t === undefined ? [] : [{ key: item, text: t }]
    })
  for (const pair of pairBySimilarity(withText(left, (r) => texts.remote(r.id)), withText(right, (p) => texts.local(p)))) take(pair.left, pair.right, 'similarity')
  return matches
}

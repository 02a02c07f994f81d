import type { JournalEntry } from '../sync/plan-types'

/**
 * Pages the writer's merged change request deleted while their files were back on the desk (a delete
 * and restore, a rename away and back, with the merge before the push that would have taken the
 * deletion back). Main no longer has them, so the journal forgets them, yet the file is the page: the
 * next plan restores it with its id (`revert_page` from `revision`, the merged change request's base,
 * which still had it) rather than inserting a new page. Kept in the cache's settings until a plan took
 * them in: a plan either restores the page (its change request then carries it) or finds its file gone
 * again (the deletion stands).
 */
export interface Revivable {
  pageId: string
  /** The page's file, as the journal had it. */
  path: string
  oid: string
  baseHash: string
  /** A revision of the space that has the page: the merged change request's base. */
  revision: string
}

const revivableSetting = (spaceId: string) => `revivable:${spaceId}`

export function revivablePages(cache: { setting(key: string): string | undefined }, spaceId: string): Revivable[] {
  const stored = cache.setting(revivableSetting(spaceId))
  if (!stored) return []
  try {
    const value: unknown = JSON.parse(stored)
    return Array.isArray(value) ? value.filter(isRevivable) : []
  } catch {
    return [] // a setting this code did not write: nothing remembered
  }
}

export function rememberRevivable(cache: { setting(key: string): string | undefined; setSetting(key: string, value: string): void }, spaceId: string, pages: readonly Revivable[]) {
  const value = pages.length === 0 ? '' : JSON.stringify(pages)
  if ((cache.setting(revivableSetting(spaceId)) ?? '') !== value) cache.setSetting(revivableSetting(spaceId), value)
}

/** The journal entry a revivable page had: the merge base its file is told edited from. */
export function journalOf(r: Revivable): JournalEntry {
  return { id: r.pageId, kind: 'page', path: r.path, oid: r.oid, baseHash: r.baseHash }
}

function isRevivable(v: unknown): v is Revivable {
  if (!v || typeof v !== 'object') return false
  const r = v as Record<string, unknown>
  return ['pageId', 'path', 'oid', 'baseHash', 'revision'].every((k) => typeof r[k] === 'string')
}

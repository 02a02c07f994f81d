import type { JournalEntry } from '../sync/plan-types'
import { carriedText } from './main-view'
import type { SpacePusherOptions } from './pusher-context'
import type { PushedEntry } from './push-types'

/**
 * What a push keeps about page files that are missing: since when each has been (so a removal waits for
 * the quiet interval also across restarts and one-shot runs), and the last text of each missing page
 * (so the planner can find it again by similarity under another name).
 */

const missingSetting = (spaceId: string) => `missing_since:${spaceId}`

/** When each path whose removal waits was first seen missing (ms), as the last push left it. */
export function missingSince(cache: { setting(key: string): string | undefined }, spaceId: string): Map<string, number> {
  const stored = cache.setting(missingSetting(spaceId))
  if (!stored) return new Map()
  try {
    const value: unknown = JSON.parse(stored)
    if (!value || typeof value !== 'object') return new Map()
    return new Map(Object.entries(value).filter((e): e is [string, number] => typeof e[1] === 'number'))
  } catch {
    return new Map() // a setting this code did not write: nothing remembered
  }
}

/** Keeps the waiting removals only: a removal sent, or a file back, forgets its time. */
export function rememberMissingSince(cache: { setting(key: string): string | undefined; setSetting(key: string, value: string): void }, spaceId: string, waiting: ReadonlyMap<string, number>) {
  const value = waiting.size === 0 ? '' : JSON.stringify(Object.fromEntries([...waiting].sort(([a], [b]) => (a < b ? -1 : 1))))
  if ((cache.setting(missingSetting(spaceId)) ?? '') !== value) cache.setSetting(missingSetting(spaceId), value)
}

/** How many removals wait for the quiet interval (for an honest state: pending, not in sync). */
export function waitingRemovals(cache: { setting(key: string): string | undefined }, spaceId: string): number {
  return missingSince(cache, spaceId).size
}

/**
 * The last text of each page whose file is missing: the version the change request carries, else the
 * journal's (kept by the cache as the page's base). Pages whose text is not kept are found by hash only.
 */
export function baseTexts(o: SpacePusherOptions, journal: readonly JournalEntry[], pushed: readonly PushedEntry[], missing: ReadonlySet<string>): Map<string, string> {
  const texts = new Map<string, string>()
  const entries = new Map(o.outbox.entryRows(o.spaceId).flatMap((e) => (e.kind === 'page' ? [[e.path, e] as const] : [])))
  for (const e of pushed) {
    const handle = e.pageId ?? e.ref
    const row = entries.get(e.path)
    if (e.kind !== 'page' || handle === undefined || e.state !== 'pushed' || !missing.has(e.path) || !row) continue
    const text = carriedText(o, row)
    if (text !== undefined) texts.set(handle, text)
  }
  for (const j of journal) {
    if (j.kind !== 'page' || texts.has(j.id) || j.baseHash !== j.oid) continue
    const carriedAt = pushed.find((e) => e.pageId === j.id && e.state !== 'deleted')?.path
    if (!missing.has(carriedAt ?? j.path) && !pushed.some((e) => e.pageId === j.id && e.state === 'deleted')) continue
    const text = o.cache.pageBases.text(o.spaceId, j.oid)
    if (text !== undefined) texts.set(j.id, text)
  }
  return texts
}

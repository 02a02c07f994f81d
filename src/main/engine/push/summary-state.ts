/**
 * What Quire remembers of a space's SUMMARY.md between passes and pushes, in the cache's settings: the
 * text sync down last wrote (the writer's edits are what differs from it), the writer's version the
 * open change request carries, and how many of the writer's edits cannot be sent (the space's status
 * says they wait). A setting this code did not write reads as nothing remembered.
 */
interface Settings {
  setting(key: string): string | undefined
  setSetting(key: string, value: string): void
}

const baseKey = (spaceId: string) => `summary_base:${spaceId}`
const carriedKey = (spaceId: string) => `summary_carried:${spaceId}`
const unsentKey = (spaceId: string) => `summary_unsent:${spaceId}`

function read<T>(cache: Settings, key: string, valid: (value: unknown) => value is T): T | undefined {
  const stored = cache.setting(key)
  if (!stored) return undefined
  try {
    const value: unknown = JSON.parse(stored)
    return valid(value) ? value : undefined
  } catch {
    return undefined
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null

/** Sync down wrote (or adopted) SUMMARY.md with this text as version `oid`. */
export function rememberSummaryBase(cache: Settings, spaceId: string, oid: string, text: string) {
  if (read(cache, baseKey(spaceId), isBase)?.oid !== oid) cache.setSetting(baseKey(spaceId), JSON.stringify({ oid, text }))
}

const isBase = (v: unknown): v is { oid: string; text: string } => isObject(v) && typeof v.oid === 'string' && typeof v.text === 'string'

/** The text of SUMMARY.md version `oid` (the journal's merge base), when it was kept. */
export function summaryBase(cache: Settings, spaceId: string, oid: string | undefined): string | undefined {
  const base = read(cache, baseKey(spaceId), isBase)
  return base && base.oid === oid ? base.text : undefined
}

export interface CarriedSummary {
  /** The change request generation (outbox session) that carries it. */
  generation: number
  hash: string
  text: string
  unsent: number
}

const isCarried = (v: unknown): v is CarriedSummary => isObject(v) && typeof v.generation === 'number' && typeof v.hash === 'string' && typeof v.text === 'string' && typeof v.unsent === 'number'

/** The writer's SUMMARY.md the change request of `generation` carries, if any. */
export function carriedSummary(cache: Settings, spaceId: string, generation: number | undefined): CarriedSummary | undefined {
  const carried = read(cache, carriedKey(spaceId), isCarried)
  return carried && carried.generation === generation ? carried : undefined
}

/** After a plan: what the change request carries of SUMMARY.md (undefined: nothing of the writer's), and how many edits wait. */
export function rememberSummaryEdit(cache: Settings, spaceId: string, generation: number | undefined, edit: { hash: string; text: string; unsent: number } | undefined) {
  if (edit && generation !== undefined) {
    const value = JSON.stringify({ generation, ...edit })
    if (cache.setting(carriedKey(spaceId)) !== value) cache.setSetting(carriedKey(spaceId), value)
  }
  const unsent = String(edit?.unsent ?? 0)
  if ((cache.setting(unsentKey(spaceId)) ?? '0') !== unsent) cache.setSetting(unsentKey(spaceId), unsent)
}

/** Edits of the writer's SUMMARY.md the last push could not send (the file stays an edit until they are gone). */
export function unsentSummaryEdits(cache: Settings, spaceId: string): number {
  const n = Number(cache.setting(unsentKey(spaceId)) ?? '0')
  return Number.isInteger(n) && n > 0 ? n : 0
}

import { createHash, randomBytes } from 'node:crypto'
import fs from 'node:fs'

/**
 * The keys of `quire serve`. A secret link is good once and for a few minutes; using it mints a tab
 * token the page keeps in sessionStorage and sends itself (a header, or the event stream's query). Only
 * digests are kept, so lookups compare hashes, not the secrets (no timing oracle on the values).
 */

export const DEFAULT_SECRET_TTL_MS = 5 * 60_000

export type Exchange = { token: string } | { refused: 'unknown' | 'used' | 'expired' }

const digest = (value: string) => createHash('sha256').update(value).digest('base64url')
const fresh = () => randomBytes(32).toString('base64url')

/** Where the tabs' token digests are kept between runs of `quire serve`, so an open tab reconnects after a restart. */
export interface TabStore {
  load(): string[]
  save(digests: string[]): void
}

/** The newest tabs kept across restarts (older ones open the printed link again). */
const KEPT_TABS = 50

/** Token digests in a JSON file (digests only: a digest cannot be sent as a token), written atomically. */
export function fileTabStore(file: string): TabStore {
  return {
    load() {
      try {
        const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as { tabs?: unknown }
        return Array.isArray(parsed.tabs) ? parsed.tabs.filter((t): t is string => typeof t === 'string') : []
      } catch {
        return [] // none yet, or unreadable: tabs open the printed link again
      }
    },
    save(digests) {
      const temp = `${file}.${process.pid}.tmp`
      fs.writeFileSync(temp, JSON.stringify({ tabs: digests }), { mode: 0o600 })
      fs.renameSync(temp, file)
    },
  }
}

export class HeadlessSessions {
  /** Secret digest → when it stops working; a used secret stays as `used` so the answer can say so. */
  private readonly secrets = new Map<string, { expiresAt: number; used: boolean }>()
  private readonly tabs: Set<string>

  constructor(
    private readonly ttlMs = DEFAULT_SECRET_TTL_MS,
    private readonly now: () => number = Date.now,
    private readonly store?: TabStore,
  ) {
    this.tabs = new Set(store?.load().slice(-KEPT_TABS) ?? [])
  }

  /** A new one-time secret (`given` by tests). */
  issueSecret(given?: string): string {
    const secret = given ?? fresh()
    this.prune()
    this.secrets.set(digest(secret), { expiresAt: this.now() + this.ttlMs, used: false })
    return secret
  }

  /** Trades a secret for a tab token, once. */
  exchange(secret: string): Exchange {
    const entry = this.secrets.get(digest(secret))
    if (!entry) return { refused: 'unknown' }
    if (entry.used) return { refused: 'used' }
    if (this.now() >= entry.expiresAt) return { refused: 'expired' }
    entry.used = true
    const token = fresh()
    this.tabs.add(digest(token))
    this.store?.save([...this.tabs].slice(-KEPT_TABS))
    return { token }
  }

  isTab(token: string | undefined): boolean {
    return token !== undefined && token !== '' && this.tabs.has(digest(token))
  }

  /** Used and expired secrets are kept an hour past their expiry so a late second use hears why. */
  private prune() {
    const cutoff = this.now() - 60 * 60_000
    for (const [key, entry] of this.secrets) if (entry.expiresAt < cutoff) this.secrets.delete(key)
  }
}

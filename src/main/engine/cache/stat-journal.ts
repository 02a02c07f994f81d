import type Database from 'better-sqlite3'
import type { CacheRepository } from './cache-repository'

interface StatRow {
  path: string
  stat: string
  hash: string
}

/**
 * The stat each local file of a space had when sync down last hashed it, and that hash (the
 * `local_stats` table; the only module that touches it). A scan asks it before reading a file and
 * tells it what it hashed (it is the `StatMemo` of workspace/stat-first.ts, which says why a matching
 * stat vouches for the content). Loaded once per scan, written once after it, in one transaction.
 *
 * A row is a fact about content, not about sync state: a file written or moved since has another
 * inode or ctime, so an outdated row never matches and needs no invalidation beyond `save`'s pruning.
 */
export class StatJournal {
  private readonly known = new Map<string, StatRow>()
  private readonly learned = new Map<string, StatRow>()

  constructor(
    private readonly db: Database.Database,
    private readonly spaceId: string,
  ) {
    for (const row of db.prepare('SELECT path, stat, hash FROM local_stats WHERE space_id = ?').all(spaceId) as StatRow[]) this.known.set(row.path, row)
  }

  /** The journal of one space in the cache's database. */
  static of(cache: CacheRepository, spaceId: string): StatJournal {
    return new StatJournal(databaseOf(cache), spaceId)
  }

  hashFor(relative: string, signature: string): string | undefined {
    const row = this.known.get(relative)
    return row !== undefined && row.stat === signature ? row.hash : undefined
  }

  remember(relative: string, signature: string, hash: string): void {
    this.learned.set(relative, { path: relative, stat: signature, hash })
  }

  /** Writes what the scan learned, and drops the rows of paths outside `scanned` (no longer journaled or wanted). */
  save(scanned: Iterable<string>): void {
    const keep = new Set(scanned)
    const gone = [...this.known.keys()].filter((p) => !keep.has(p) && !this.learned.has(p))
    if (this.learned.size === 0 && gone.length === 0) return
    const upsert = this.db.prepare(
      `INSERT INTO local_stats (space_id, path, stat, hash) VALUES (?, ?, ?, ?)
       ON CONFLICT(space_id, path) DO UPDATE SET stat = excluded.stat, hash = excluded.hash`,
    )
    const remove = this.db.prepare('DELETE FROM local_stats WHERE space_id = ? AND path = ?')
    this.db.transaction(() => {
      for (const row of this.learned.values()) upsert.run(this.spaceId, row.path, row.stat, row.hash)
      for (const p of gone) remove.run(this.spaceId, p)
    })()
    for (const row of this.learned.values()) this.known.set(row.path, row)
    for (const p of gone) this.known.delete(p)
    this.learned.clear()
  }
}

/**
 * The database behind a CacheRepository. The repository keeps it private and is being split into
 * smaller modules elsewhere; until it hands the handle out (as it does to PageBases), it is read here,
 * checked, in this one place.
 */
function databaseOf(cache: CacheRepository): Database.Database {
  const db = (cache as unknown as { db?: Database.Database }).db
  if (!db || typeof db.prepare !== 'function') throw new Error('the cache repository does not expose its database')
  return db
}

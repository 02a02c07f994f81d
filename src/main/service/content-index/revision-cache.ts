/**
 * Values derived from a revision (link reports, search indexes). Revisions never change, so an
 * entry never goes stale; the bound only keeps memory in check, evicting the least recently used.
 */
export class RevisionCache<T> {
  private readonly entries = new Map<string, T>()

  constructor(private readonly capacity = 64) {}

  get(key: string, compute: () => T): T {
    const cached = this.entries.get(key)
    if (cached !== undefined) {
      // Re-inserting moves the key to the end of the Map's order: the most recently used.
      this.entries.delete(key)
      this.entries.set(key, cached)
      return cached
    }
    const value = compute()
    this.entries.set(key, value)
    if (this.entries.size > this.capacity) {
      const oldest = this.entries.keys().next().value
      if (oldest !== undefined) this.entries.delete(oldest)
    }
    return value
  }

  /** The value kept for `key`, if any, without counting as a use. */
  peek(key: string): T | undefined {
    return this.entries.get(key)
  }

  get size(): number {
    return this.entries.size
  }
}

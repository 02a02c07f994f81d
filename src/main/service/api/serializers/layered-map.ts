/**
 * A read-only map made of a full base and the entries changed since it, so that a map derived from
 * another by a few changes costs those changes rather than a copy of the whole (revision-index.ts: the
 * index of a revision written by a small edit is its parent's with a few entries changed).
 *
 * Each derived map copies the changes accumulated since its base; once they outgrow a bound that grows
 * with the square root of the base's size, the changes are folded into a new base. A run of derivations
 * of `d` changes each thus costs about `sqrt(n·d)` per step instead of `n`, and a lookup is at most two.
 */
export class LayeredMap<K, V> {
  private constructor(
    private readonly base: ReadonlyMap<K, V>,
    /** Changed entries since `base`; `undefined` marks a removed key. */
    private readonly changes: ReadonlyMap<K, V | undefined>,
  ) {}

  /** A map over `entries`, which the caller hands over and never changes again. */
  static of<K, V>(entries: Map<K, V>): LayeredMap<K, V> {
    return new LayeredMap(entries, new Map())
  }

  get(key: K): V | undefined {
    if (this.changes.size > 0 && this.changes.has(key)) return this.changes.get(key)
    return this.base.get(key)
  }

  has(key: K): boolean {
    return this.get(key) !== undefined
  }

  /** This map with `changes` applied (a value of `undefined` removes its key); this map is unchanged. */
  with(changes: ReadonlyMap<K, V | undefined>): LayeredMap<K, V> {
    if (changes.size === 0) return this
    const merged = new Map(this.changes)
    for (const [key, value] of changes) merged.set(key, value)
    if (merged.size <= foldAbove(this.base.size)) return new LayeredMap(this.base, merged)
    const base = new Map(this.base)
    for (const [key, value] of merged) {
      if (value === undefined) base.delete(key)
      else base.set(key, value)
    }
    return LayeredMap.of(base)
  }
}

/** Changes kept beside a base of `size` entries before they are folded into a new one. */
function foldAbove(size: number): number {
  return Math.max(64, 4 * Math.ceil(Math.sqrt(size)))
}

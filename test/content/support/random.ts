/**
 * Seeded randomness for the content property tests. Every case runs from a
 * numbered seed; a failure names it, and `CONTENT_SEED=<n>` replays only that
 * case (`CONTENT_CASES=<n>` changes how many run).
 */

export class Random {
  private state: number

  constructor(readonly seed: number) {
    this.state = seed >>> 0 || 0x9e3779b9
  }

  /** mulberry32: small, fast, good enough for test data. */
  next(): number {
    this.state = (this.state + 0x6d2b79f5) >>> 0
    let t = this.state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }

  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  bool(probability = 0.5): boolean {
    return this.next() < probability
  }

  pick<T>(items: readonly T[]): T {
    return items[this.int(0, items.length - 1)]
  }

  /** `count` results of `make`. */
  many<T>(count: number, make: () => T): T[] {
    return Array.from({ length: count }, make)
  }
}

/** Runs `check` for many seeds (or the one in CONTENT_SEED), reporting the failing seed. */
export function forEachSeed(defaultCases: number, check: (random: Random) => void): void {
  const only = process.env.CONTENT_SEED
  const seeds = only !== undefined ? [Number(only)] : Array.from({ length: Number(process.env.CONTENT_CASES ?? defaultCases) }, (_, i) => i + 1)
  for (const seed of seeds) {
    try {
      check(new Random(seed))
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      throw new Error(`seed ${seed} failed (replay with CONTENT_SEED=${seed}): ${message}`, { cause: error })
    }
  }
}

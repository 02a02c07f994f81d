/**
 * Content similarity for rename detection, modelled on git's (`diff -M`, diffcore-rename.c): a score
 * over lines of how much of the larger text the other one shares, a threshold (git's default 50 %),
 * exact matches before similar ones, and ties refused (git would pick one by order; a page given to
 * the wrong file is worse than a page deleted and inserted, which keeps every text). Pure.
 */

/** Git's default `-M` threshold: half the larger file's bytes must be shared. */
export const RENAME_THRESHOLD = 0.5

/** Bytes of each distinct line (with its newline) and how often it occurs. */
function lineCounts(text: string): { counts: Map<string, number>; bytes: number } {
  const counts = new Map<string, number>()
  let bytes = 0
  for (const line of text.split('\n')) {
    // Blank lines are what every page shares: they say nothing about which page a file is.
    if (line.trim() === '') continue
    counts.set(line, (counts.get(line) ?? 0) + 1)
    bytes += Buffer.byteLength(line) + 1
  }
  return { counts, bytes }
}

/**
 * How similar two texts are, 0..1: the bytes of the lines they share (each line as often as both have
 * it) over the bytes of the larger one, as git's `estimate_similarity` divides the copied bytes by the
 * larger size. Texts whose sizes differ more than the threshold allows score 0 without comparing.
 */
export function similarity(a: string, b: string, threshold = RENAME_THRESHOLD): number {
  if (a === b) return 1
  const left = lineCounts(a)
  const right = lineCounts(b)
  const max = Math.max(left.bytes, right.bytes)
  if (max === 0) return 0
  // git's shortcut: a size difference larger than (1 - threshold) of the larger file cannot reach it.
  if (Math.abs(left.bytes - right.bytes) > max * (1 - threshold)) return 0
  let shared = 0
  for (const [line, n] of left.counts) {
    const m = right.counts.get(line)
    if (m !== undefined) shared += Math.min(n, m) * (Buffer.byteLength(line) + 1)
  }
  return shared / max
}

export interface SimilarityPair<S, D> {
  source: S
  target: D
  score: number
}

/**
 * Pairs sources with targets by similarity, best scores first, each used once. A source whose best
 * available score is shared by two targets, or a target whose best available score is shared by two
 * sources, is refused (neither is paired at that score, and none of them later at a lower one).
 */
export function pairBySimilarity<S, D>(
  sources: ReadonlyArray<{ key: S; text: string }>,
  targets: ReadonlyArray<{ key: D; text: string }>,
  threshold = RENAME_THRESHOLD,
): Array<SimilarityPair<S, D>> {
  const pairs: Array<SimilarityPair<S, D>> = []
  for (const s of sources) {
    for (const t of targets) {
      const score = similarity(s.text, t.text, threshold)
      if (score >= threshold) pairs.push({ source: s.key, target: t.key, score })
    }
  }
  pairs.sort((a, b) => b.score - a.score)
  const used = new Set<unknown>()
  const refused = new Set<unknown>()
  const out: Array<SimilarityPair<S, D>> = []
  for (let i = 0; i < pairs.length; ) {
    // One score at a time: within it, a source or target with two open pairs is a tie.
    let j = i
    while (j < pairs.length && pairs[j].score === pairs[i].score) j++
    const open = pairs.slice(i, j).filter((p) => !used.has(p.source) && !used.has(p.target) && !refused.has(p.source) && !refused.has(p.target))
    const count = new Map<unknown, number>()
    for (const p of open) for (const k of [p.source, p.target]) count.set(k, (count.get(k) ?? 0) + 1)
    for (const p of open) {
      if (count.get(p.source)! > 1 || count.get(p.target)! > 1) {
        refused.add(p.source)
        refused.add(p.target)
        continue
      }
      used.add(p.source)
      used.add(p.target)
      out.push(p)
    }
    i = j
  }
  return out
}

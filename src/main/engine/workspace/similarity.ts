/**
 * How alike two texts are, line by line: git's rename detection is the model (a score over lines, a
 * threshold, ties refused). Pure and small, so the planners that decide a file's page (recovery without
 * a journal in sync/recovery-match.ts; renames in push) share one rule.
 *
 * The score is the share of lines the two texts have in common, counted as multisets (a line that
 * appears twice counts twice), over the longer text's line count: 1 for the same lines in any order, 0
 * for nothing in common. Trailing whitespace and blank lines are ignored: editors change them freely.
 */

/** Two texts at least this alike are the same page (git's default for renames is 50% too). */
export const SIMILARITY_THRESHOLD = 0.5

/** The share of lines `a` and `b` have in common (0..1). */
export function lineSimilarity(a: string, b: string): number {
  return scoreLines(lineCounts(a), lineCounts(b))
}

/** A text's lines with how often each appears, and their total: compute once, score against many. */
export interface LineCounts {
  counts: Map<string, number>
  total: number
}

export function lineCounts(text: string): LineCounts {
  const counts = new Map<string, number>()
  let total = 0
  for (const raw of text.split('\n')) {
    const line = raw.trimEnd()
    if (line === '') continue
    counts.set(line, (counts.get(line) ?? 0) + 1)
    total++
  }
  return { counts, total }
}

export function scoreLines(a: LineCounts, b: LineCounts): number {
  const longer = Math.max(a.total, b.total)
  if (longer === 0) return 0 // two empty texts say nothing about being one page
  const [small, large] = a.counts.size <= b.counts.size ? [a.counts, b.counts] : [b.counts, a.counts]
  let common = 0
  for (const [line, n] of small) common += Math.min(n, large.get(line) ?? 0)
  return common / longer
}

/**
 * Pairs items of `left` with items of `right` by similarity: a pair is made only when each is the
 * other's one best match at or above `threshold`. A tie for the best on either side refuses the pair
 * (which of two equally good files is the page cannot be told), as does a best that prefers another.
 */
export function pairBySimilarity<L, R>(
  left: ReadonlyArray<{ key: L; text: string }>,
  right: ReadonlyArray<{ key: R; text: string }>,
  threshold = SIMILARITY_THRESHOLD,
): Array<{ left: L; right: R; score: number }> {
  const l = left.map((x) => lineCounts(x.text))
  const r = right.map((x) => lineCounts(x.text))
  const bestOfLeft = left.map(() => ({ index: -1, score: -1, tied: false }))
  const bestOfRight = right.map(() => ({ index: -1, score: -1, tied: false }))
  const better = (best: { index: number; score: number; tied: boolean }, index: number, score: number) => {
    if (score > best.score) Object.assign(best, { index, score, tied: false })
    else if (score === best.score) best.tied = true
  }
  for (let i = 0; i < l.length; i++) {
    for (let j = 0; j < r.length; j++) {
      const score = scoreLines(l[i], r[j])
      if (score < threshold) continue
      better(bestOfLeft[i], j, score)
      better(bestOfRight[j], i, score)
    }
  }
  const pairs: Array<{ left: L; right: R; score: number }> = []
  bestOfLeft.forEach((best, i) => {
    if (best.index < 0 || best.tied) return
    const back = bestOfRight[best.index]
    if (back.index !== i || back.tied) return
    pairs.push({ left: left[i].key, right: right[best.index].key, score: best.score })
  })
  return pairs
}

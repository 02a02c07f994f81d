/**
 * Content similarity for rename detection, modelled on git's (`diff -M`, diffcore-rename.c): a score
 * over lines of how much of the larger text the other one shares, a threshold (git's default 50 %),
 * exact matches before similar ones, and ties refused (git would pick one by order; a page given to
 * the wrong file is worse than a page deleted and inserted, which keeps every text). Pure.
 */

/** Git's default `-M` threshold: half the larger file's bytes must be shared. */
export const RENAME_THRESHOLD = 0.5

interface LineCounts {
  counts: Map<string, number>
  bytes: number
}

/** Bytes of each distinct line (with its newline) and how often it occurs. */
function lineCounts(text: string): LineCounts {
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
  return scoreOf(lineCounts(a), lineCounts(b), threshold)
}

function scoreOf(left: LineCounts, right: LineCounts, threshold: number): number {
  const max = Math.max(left.bytes, right.bytes)
  if (max === 0) return 0
  // git's shortcut: a size difference larger than (1 - threshold) of the larger file cannot reach it.
  if (Math.abs(left.bytes - right.bytes) > max * (1 - threshold)) return 0
  const [small, large] = left.counts.size <= right.counts.size ? [left, right] : [right, left]
  let shared = 0
  for (const [line, n] of small.counts) {
    const m = large.counts.get(line)
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
  // Each text's lines are counted once, and a source is scored only against the targets that share a
  // line with it (an index by line): a push may compare hundreds of missing pages with hundreds of files.
  const targetCounts = targets.map((t) => lineCounts(t.text))
  const byLine = new Map<string, number[]>()
  targetCounts.forEach((c, i) => {
    for (const line of c.counts.keys()) byLine.set(line, [...(byLine.get(line) ?? []), i])
  })
  for (const source of sources) {
    const counts = lineCounts(source.text)
    const shared = new Map<number, number>()
    for (const [line, n] of counts.counts) {
      const bytes = Buffer.byteLength(line) + 1
      for (const i of byLine.get(line) ?? []) shared.set(i, (shared.get(i) ?? 0) + Math.min(n, targetCounts[i].counts.get(line)!) * bytes)
    }
    for (const [i, bytes] of shared) {
      const max = Math.max(counts.bytes, targetCounts[i].bytes)
      const score = source.text === targets[i].text ? 1 : bytes / max
      if (score >= threshold) pairs.push({ source: source.key, target: targets[i].key, score })
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

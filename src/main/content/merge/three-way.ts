/**
 * diff3 over sequences of ids: where each side changed the base, and which
 * changes meet. The two-way diffs are Myers diffs (the `diff` package); this
 * module only lines the two diffs up against the base.
 */
import { diffArrays } from 'diff'

/** A changed region: base[oStart, oEnd) became side[start, end). */
export interface Hunk {
  oStart: number
  oEnd: number
  start: number
  end: number
}

export type Region =
  /** base[oStart, oEnd), changed by neither side. */
  | { type: 'same'; oStart: number; oEnd: number }
  /** Changed by one side only: that side's [start, end) replaces base[oStart, oEnd). */
  | { type: 'one'; side: 'main' | 'branch'; oStart: number; oEnd: number; start: number; end: number }
  /** Changed by both: main[main.start, main.end) and branch[…] both replace base[oStart, oEnd). */
  | { type: 'both'; oStart: number; oEnd: number; main: Hunk; branch: Hunk; mainHunks: Hunk[]; branchHunks: Hunk[] }

export interface RegionOptions {
  /**
   * Lines: changes that touch (one ends where the other starts) meet, as in
   * git. Blocks: only overlapping changes, or insertions at the same place,
   * meet; the text between blocks keeps touching changes apart.
   */
  strict: boolean
  /**
   * Ids of the text between blocks. An insertion or deletion that could be
   * placed at several offsets (`B g` after `g`, or `g B`) is placed so that it
   * starts with such text and ends with a block, so that one side deleting a
   * block and the other deleting the next one never claim the same blank line.
   */
  isGap?: (id: number) => boolean
}

/** Past this many edits a diff is taken as a rewrite of the whole sequence. */
const MAX_EDIT_LENGTH = 4000

export function threeWayRegions(base: number[], main: number[], branch: number[], options: RegionOptions): Region[] {
  const tagged = [
    ...hunks(base, main, options.isGap).map((hunk) => ({ hunk, side: 'main' as const })),
    ...hunks(base, branch, options.isGap).map((hunk) => ({ hunk, side: 'branch' as const })),
  ].sort((a, b) => a.hunk.oStart - b.hunk.oStart || a.hunk.oEnd - b.hunk.oEnd)

  const regions: Region[] = []
  let cursor = 0
  for (let i = 0; i < tagged.length; ) {
    const group = [tagged[i++]]
    let lo = group[0].hunk.oStart
    let hi = group[0].hunk.oEnd
    while (i < tagged.length && meets(lo, hi, tagged[i].hunk, options.strict)) {
      hi = Math.max(hi, tagged[i].hunk.oEnd)
      lo = Math.min(lo, tagged[i].hunk.oStart)
      group.push(tagged[i++])
    }
    if (lo > cursor) regions.push({ type: 'same', oStart: cursor, oEnd: lo })
    const mainHunks = group.filter((g) => g.side === 'main').map((g) => g.hunk)
    const branchHunks = group.filter((g) => g.side === 'branch').map((g) => g.hunk)
    if (mainHunks.length === 0 || branchHunks.length === 0) {
      const side = mainHunks.length === 0 ? 'branch' : 'main'
      const span = cover(lo, hi, side === 'main' ? mainHunks : branchHunks)
      regions.push({ type: 'one', side, oStart: lo, oEnd: hi, start: span.start, end: span.end })
    } else {
      regions.push({ type: 'both', oStart: lo, oEnd: hi, main: cover(lo, hi, mainHunks), branch: cover(lo, hi, branchHunks), mainHunks, branchHunks })
    }
    cursor = hi
  }
  if (base.length > cursor) regions.push({ type: 'same', oStart: cursor, oEnd: base.length })
  return regions
}

function meets(lo: number, hi: number, hunk: Hunk, strict: boolean): boolean {
  if (hunk.oStart < hi) return true
  if (hunk.oStart > hi) return false
  return strict || (lo === hi && hunk.oEnd === hunk.oStart)
}

/** The side's span that replaces base[lo, hi), given its hunks inside that range (in order). */
function cover(lo: number, hi: number, sideHunks: Hunk[]): Hunk {
  const first = sideHunks[0]
  const last = sideHunks[sideHunks.length - 1]
  return { oStart: lo, oEnd: hi, start: first.start - (first.oStart - lo), end: last.end + (hi - last.oEnd) }
}

/** Changed regions of `side` against `base`, in order, none touching another. */
export function hunks(base: number[], side: number[], isGap?: (id: number) => boolean): Hunk[] {
  const out: Hunk[] = []
  const changes = diffArrays(base, side, { maxEditLength: MAX_EDIT_LENGTH })
  if (!changes) return base.length === 0 && side.length === 0 ? [] : [{ oStart: 0, oEnd: base.length, start: 0, end: side.length }]
  let o = 0
  let s = 0
  for (const change of changes) {
    const count = change.value.length
    if (change.added) add(out, o, o, s, s + count)
    else if (change.removed) add(out, o, o + count, s, s)
    if (!change.added) o += count
    if (!change.removed) s += count
  }
  if (isGap) for (let i = 0; i < out.length; i++) out[i] = place(out[i], out[i - 1], out[i + 1], base, side, isGap)
  return out
}

function add(out: Hunk[], oStart: number, oEnd: number, start: number, end: number): void {
  const last = out[out.length - 1]
  if (last && last.oEnd === oStart && last.end === start) {
    last.oEnd = oEnd
    last.end = end
  } else {
    out.push({ oStart, oEnd, start, end })
  }
}

/**
 * Slides a pure insertion or deletion to its preferred offset among the
 * equivalent ones (see RegionOptions.isGap), without reaching its neighbours.
 */
function place(hunk: Hunk, previous: Hunk | undefined, next: Hunk | undefined, base: number[], side: number[], isGap: (id: number) => boolean): Hunk {
  const deletion = hunk.start === hunk.end
  if (!deletion && hunk.oStart !== hunk.oEnd) return hunk
  const items = deletion ? base : side
  const from = (h: Hunk): number => (deletion ? h.oStart : h.start)
  const to = (h: Hunk): number => (deletion ? h.oEnd : h.end)
  const shift = (h: Hunk, by: number): Hunk => ({ oStart: h.oStart + by, oEnd: h.oEnd + by, start: h.start + by, end: h.end + by })
  const floor = previous ? Math.max(previous.oEnd - hunk.oStart, previous.end - hunk.start) : -Math.min(hunk.oStart, hunk.start)
  const ceiling = next ? Math.min(next.oStart - hunk.oEnd, next.start - hunk.end) : Math.min(base.length - hunk.oEnd, side.length - hunk.end)

  let leftmost = hunk
  for (let by = -1; by >= floor; by--) {
    if (items[from(leftmost) - 1] !== items[to(leftmost) - 1]) break
    leftmost = shift(leftmost, -1)
  }
  for (let h = leftmost; h.oStart - hunk.oStart <= ceiling; h = shift(h, 1)) {
    if (isGap(items[from(h)]) && !isGap(items[to(h) - 1])) return h
    if (h.oStart - hunk.oStart === ceiling || items[to(h)] !== items[from(h)]) break
  }
  return hunk
}

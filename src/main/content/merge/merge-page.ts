/**
 * Three-way merge of page text, block by block.
 *
 * The sides are cut into units (see units.ts): blocks, the text between them,
 * GitBook blocks with their inner blocks, front matter keys. Units changed by
 * one side take that side's text; units both sides changed the same way take
 * it once. Where both changed the same unit differently, a block with parts
 * (a list, a GitBook block, the front matter) merges its parts, a leaf block
 * merges line by line when no two changed lines meet, and otherwise the unit
 * is a conflict: the text keeps one side's version there (`keep`) and the
 * conflict lists all three versions. Every byte of the result comes from one
 * of the sides, so merging untouched blocks gives them back byte for byte.
 */
import { LineIndex } from '../markdown/syntax-tree'
import { Merger, Output, sameIds } from './merge-units'
import { carryEditsAlongMoves } from './moves'
import { pageSegments, type PageKind } from './segments'
import { threeWayRegions } from './three-way'
import { pageBodyUnits, pageFileUnits, type Unit } from './units'

export type MergeSide = 'main' | 'branch'

export interface PageMergeConflict {
  /** Which part of the page: the front matter, the `# Title` line, or the body. */
  part: 'frontMatter' | 'title' | 'body'
  /** 1-based line of the merged text where the conflicting unit starts (it holds the kept side's version). */
  line: number
  base: string
  main: string
  branch: string
}

export interface PageMergeResult {
  /** The merged text; where there are conflicts it holds the `keep` side's version of those units. */
  text: string
  conflicts: PageMergeConflict[]
}

export interface PageMergeOptions {
  /** Whose version a conflicting unit keeps in `text` (default main). */
  keep?: MergeSide
}

/** Merges two versions of a whole page file (front matter, title line, body) that diverged from `base`. */
export function mergePageFiles(base: string, main: string, branch: string, options: PageMergeOptions = {}): PageMergeResult {
  return mergeWith('file', base, main, branch, options)
}

/** Merges two versions of a page body (the markdown after the title, as revisions store it). */
export function mergePageBodies(base: string, main: string, branch: string, options: PageMergeOptions = {}): PageMergeResult {
  return mergeWith('body', base, main, branch, options)
}

/**
 * The same merge over the whole texts, parsed at once, without cutting them
 * into segments first: the reference the segmented merge must agree with.
 */
export function mergeWholePages(kind: PageKind, base: string, main: string, branch: string, options: PageMergeOptions = {}): PageMergeResult {
  const merger = new Merger(options.keep ?? 'main')
  const units = kind === 'file' ? fileUnits : bodyUnits
  return located(mergeStretch(merger, units, base, main, branch))
}

/**
 * Cuts the sides into segments (segments.ts), lines the segments up three
 * ways, and parses and merges unit by unit only the stretches both sides
 * changed: the rest is copied from the side that changed it, or from the
 * base. The units of a stretch of whole segments are the units the whole
 * page has there, so this is the merge of the whole pages, without parsing
 * what only one side touched.
 */
function mergeWith(kind: PageKind, base: string, main: string, branch: string, options: PageMergeOptions): PageMergeResult {
  const merger = new Merger(options.keep ?? 'main')
  const segments = memoized((text: string) => pageSegments(text, kind))
  const o = segments(base)
  const [m, b] = carryEditsAlongMoves(o, segments(main), segments(branch))
  const ids = new Map<string, number>()
  const id = (segment: string): number => ids.get(segment) ?? (ids.set(segment, ids.size).get(segment) as number)
  const [oi, mi, bi] = [o.map(id), m.map(id), b.map(id)]

  const out = new Output()
  // Strict: a change of one segment can move text across its ends (a block loses the blank line that
  // cut it from the next), so changes of touching segments are merged together, unit by unit.
  for (const region of threeWayRegions(oi, mi, bi, { strict: true })) {
    if (region.type === 'same') out.add(o.slice(region.oStart, region.oEnd).join(''))
    else if (region.type === 'one') out.add((region.side === 'main' ? m : b).slice(region.start, region.end).join(''))
    else if (sameIds(mi.slice(region.main.start, region.main.end), bi.slice(region.branch.start, region.branch.end))) out.add(m.slice(region.main.start, region.main.end).join(''))
    else {
      // The unchanged segment on each side goes along as context: where a gap goes (before or after the
      // block next to it) is decided as on the whole page. The regions around give those segments.
      const before = region.oStart > 0 ? o[region.oStart - 1] : ''
      const after = region.oEnd < o.length ? o[region.oEnd] : ''
      // Only the first stretch holds the front matter and the title.
      const units = kind === 'file' && region.oStart - (before ? 1 : 0) === 0 ? fileUnits : bodyUnits
      const [baseText, mainText, branchText] = [o.slice(region.oStart, region.oEnd), m.slice(region.main.start, region.main.end), b.slice(region.branch.start, region.branch.end)].map((part) => part.join(''))
      const merged = mergeStretch(merger, units, before + baseText + after, before + mainText + after, before + branchText + after)
      if (merged.text.startsWith(before) && merged.text.endsWith(after)) out.addMerged(withoutContext(merged, before.length, after.length))
      else out.addMerged(mergeStretch(merger, kind === 'file' && region.oStart === 0 ? fileUnits : bodyUnits, baseText, mainText, branchText))
    }
  }
  return located(out)
}

/**
 * Merges one stretch unit by unit. Units end where their block does, before
 * the line break: where the sides changed the breaks too, two pieces could
 * meet in the middle of a line and make up a line no side has. Then the
 * whole stretch is one conflict instead.
 */
function mergeStretch(merger: Merger, units: (text: string) => Unit[], base: string, main: string, branch: string): Output {
  const [o, m, b] = [units(base), units(main), units(branch)]
  const piece = merger.sequence(o, m, b)
  const sideLines = new Set([base, main, branch].flatMap((text) => text.split('\n')))
  if (piece.text.split('\n').every((line) => sideLines.has(line))) return piece
  const conflict = new Output()
  conflict.conflict(o, m, b, merger.keep)
  return conflict
}

/** The merged stretch without the context segments it was merged with. */
function withoutContext(merged: Output, before: number, after: number): Output {
  const out = new Output()
  out.text = merged.text.slice(before, merged.text.length - after)
  out.conflicts = merged.conflicts.map((conflict) => ({ ...conflict, offset: Math.min(Math.max(0, conflict.offset - before), out.text.length) }))
  return out
}

function located(out: Output): PageMergeResult {
  const lines = new LineIndex(out.text)
  const conflicts = out.conflicts.map(({ offset, ...conflict }) => ({ ...conflict, line: lines.locate(offset).line }))
  return { text: out.text, conflicts }
}

/**
 * Parsing is most of the cost: a stretch two sides share is parsed once, and
 * the last few stretches parsed are kept, for the same page merged again (the
 * other side kept, or main and branch the other way round). Units are never
 * changed once made, so they can be shared.
 */
const RECENT = 64
const recentUnits = new Map<string, Unit[]>()
const fileUnits = (text: string): Unit[] => recent(`f${text}`, () => pageFileUnits(text))
const bodyUnits = (text: string): Unit[] => recent(`b${text}`, () => pageBodyUnits(text))

function recent(key: string, parse: () => Unit[]): Unit[] {
  let units = recentUnits.get(key)
  if (units === undefined) {
    units = parse()
    if (recentUnits.size >= RECENT) recentUnits.delete(recentUnits.keys().next().value as string)
  } else {
    recentUnits.delete(key)
  }
  recentUnits.set(key, units)
  return units
}

function memoized<T>(compute: (text: string) => T): (text: string) => T {
  const cache = new Map<string, T>()
  return (text) => {
    let value = cache.get(text)
    if (value === undefined) {
      value = compute(text)
      cache.set(text, value)
    }
    return value
  }
}

/**
 * The three-way merge of units (units.ts), one level of a page at a time.
 *
 * Units changed by one side take that side's text; units both sides changed
 * the same way take it once. Where both changed the same unit differently, a
 * block with parts (a list, a GitBook block, the front matter) merges its
 * parts, a leaf block merges line by line when no two changed lines meet, and
 * otherwise the unit is a conflict: the text keeps one side's version there
 * (`keep`) and the conflict lists all three versions.
 */
import yaml from 'js-yaml'
import type { MergeSide, PageMergeConflict } from './merge-page'
import { threeWayRegions, type Hunk, type Region } from './three-way'
import { unitsText, type Unit } from './units'

export interface Placed extends Omit<PageMergeConflict, 'line'> {
  /** Offset in the merged text of the piece it was found in. */
  offset: number
}

/** Merged text being built, with the conflicts found in it. */
export class Output {
  text = ''
  conflicts: Placed[] = []

  add(text: string): void {
    this.text += text
  }

  addMerged(piece: Output): void {
    for (const conflict of piece.conflicts) this.conflicts.push({ ...conflict, offset: conflict.offset + this.text.length })
    this.text += piece.text
  }

  conflict(base: Unit[], main: Unit[], branch: Unit[], keep: MergeSide): void {
    this.conflicts.push({ part: partOf([...base, ...main, ...branch]), offset: this.text.length, base: unitsText(base), main: unitsText(main), branch: unitsText(branch) })
    this.add(unitsText(keep === 'main' ? main : branch))
  }
}

export class Merger {
  private readonly ids = new Map<string, number>()
  private readonly gaps = new Set<number>()

  constructor(readonly keep: MergeSide) {}

  private id(unit: Unit): number {
    let id = this.ids.get(unit.text)
    if (id === undefined) {
      id = this.ids.size
      this.ids.set(unit.text, id)
    }
    if (unit.kind === 'gap') this.gaps.add(id)
    return id
  }

  sequence(base: Unit[], main: Unit[], branch: Unit[]): Output {
    const out = new Output()
    const [o, m, b] = [base.map((u) => this.id(u)), main.map((u) => this.id(u)), branch.map((u) => this.id(u))]
    for (const region of threeWayRegions(o, m, b, { strict: false, isGap: (id) => this.gaps.has(id) })) {
      if (region.type === 'same') out.add(unitsText(base.slice(region.oStart, region.oEnd)))
      else if (region.type === 'one') out.add(unitsText((region.side === 'main' ? main : branch).slice(region.start, region.end)))
      else this.both(out, region, { base, main, branch, o, m, b })
    }
    return out
  }

  /** Both sides changed base[oStart, oEnd). */
  private both(out: Output, region: Extract<Region, { type: 'both' }>, s: Sides): void {
    const base = s.base.slice(region.oStart, region.oEnd)
    const main = s.main.slice(region.main.start, region.main.end)
    const branch = s.branch.slice(region.branch.start, region.branch.end)
    const [mainIds, branchIds] = [s.m.slice(region.main.start, region.main.end), s.b.slice(region.branch.start, region.branch.end)]
    if (sameIds(mainIds, branchIds)) return out.add(unitsText(main))

    const deletionsOnly = (hunks: Hunk[]): boolean => hunks.every((h) => h.start === h.end)
    if (deletionsOnly(region.mainHunks) && deletionsOnly(region.branchHunks)) {
      // Both only removed units: what neither removed stays.
      const removed = (index: number): boolean => [...region.mainHunks, ...region.branchHunks].some((h) => h.oStart <= index && index < h.oEnd)
      return out.add(unitsText(base.filter((_, i) => !removed(region.oStart + i))))
    }
    if (base.length === 0) {
      const inserted = this.insertions(main, mainIds, branch, branchIds)
      if (inserted !== undefined) return out.add(inserted)
    } else if (main.length === base.length && branch.length === base.length) {
      // Same shape: unit by unit, so a conflict is only the units that really meet.
      base.forEach((unit, i) => out.addMerged(this.unit(unit, main[i], branch[i])))
      return
    }
    const extended = this.extension(s.o.slice(region.oStart, region.oEnd), main, mainIds, branch, branchIds)
    if (extended !== undefined) return out.add(extended)
    const lines = mergeLines(unitsText(base), unitsText(main), unitsText(branch), this.ids)
    if (lines !== undefined) return out.add(lines)
    out.conflict(base, main, branch, this.keep)
  }

  /**
   * Both made the same change, and one side also inserted new blocks right before or after it (a merge
   * with main that a change request carries, met again by main's own change): the longer side, which
   * holds all of the other's text. Only when the common part brings a block of its own (not a deletion
   * met by an edit) and the extra blocks are new (none of the base's, which the other side removed).
   */
  private extension(baseIds: number[], main: Unit[], mainIds: number[], branch: Unit[], branchIds: number[]): string | undefined {
    const [shorter, longer, longerUnits] = mainIds.length <= branchIds.length ? [mainIds, branchIds, branch] : [branchIds, mainIds, main]
    const block = (id: number) => !this.gaps.has(id)
    if (!shorter.some((id) => block(id) && !baseIds.includes(id))) return undefined
    const extra = sameIds(longer.slice(0, shorter.length), shorter)
      ? longer.slice(shorter.length)
      : sameIds(longer.slice(longer.length - shorter.length), shorter)
        ? longer.slice(0, longer.length - shorter.length)
        : undefined
    if (extra === undefined || extra.some((id) => block(id) && baseIds.includes(id))) return undefined
    return unitsText(longerUnits)
  }

  /**
   * Both inserted at the same place: one insertion that contains the other, or both, main's first.
   * Containment is judged on blocks alone: `# FAQ\n` (a page saved half-written, or an empty page as
   * the service renders it) is contained in `# FAQ\n\nParagraph…` though the blank lines after the
   * heading differ; both insertions side by side would say the title twice. Insertions that share
   * blocks but neither holds the other are two versions of one text (a page both sides wrote from an
   * unknown base): a conflict.
   */
  private insertions(main: Unit[], mainIds: number[], branch: Unit[], branchIds: number[]): string | undefined {
    const blank = (unit: Unit | undefined): boolean => unit?.kind === 'gap' && unit.text.trim() === ''
    const blocks = (units: Unit[], ids: number[]) => ids.filter((_, i) => !blank(units[i]))
    const [mainBlocks, branchBlocks] = [blocks(main, mainIds), blocks(branch, branchIds)]
    const [shorter, longer] = mainBlocks.length <= branchBlocks.length ? [mainBlocks, branchBlocks] : [branchBlocks, mainBlocks]
    const longerUnits = longer === mainBlocks ? main : branch
    if (isSubsequence(shorter, longer)) return unitsText(longerUnits)
    // Two versions of the same text (they share a block), neither holding the other: a conflict, not both.
    if (shorter.some((id) => longer.includes(id))) return undefined
    const keys = [...main, ...branch].every((unit) => unit.kind === 'frontMatter' && unit.text.endsWith('\n'))
    const apart = keys || (blank(main[0]) && blank(branch[0])) || (blank(main[main.length - 1]) && blank(branch[branch.length - 1]))
    return apart ? unitsText(main) + unitsText(branch) : undefined
  }

  /** One unit changed by both sides. */
  private unit(base: Unit, main: Unit, branch: Unit): Output {
    const out = new Output()
    if (main.text === branch.text || branch.text === base.text) out.add(main.text)
    else if (main.text === base.text) out.add(branch.text)
    else if (base.children && main.children && branch.children && base.kind === main.kind && base.kind === branch.kind) {
      const inner = this.sequence(base.children, main.children, branch.children)
      if (base.kind !== 'frontMatter' || validFrontMatter(inner.text)) return inner
      out.conflict([base], [main], [branch], this.keep)
    } else {
      const lines = mergeLines(base.text, main.text, branch.text, this.ids)
      if (lines !== undefined) out.add(lines)
      else out.conflict([base], [main], [branch], this.keep)
    }
    return out
  }
}

interface Sides {
  base: Unit[]
  main: Unit[]
  branch: Unit[]
  o: number[]
  m: number[]
  b: number[]
}

/**
 * Line-level diff3 inside a unit: clean only when no line changed by one side
 * touches a line changed by the other (as git decides); undefined otherwise.
 */
function mergeLines(base: string, main: string, branch: string, ids: Map<string, number>): string | undefined {
  const split = (text: string): string[] => text.split(/(?<=\n)/)
  const [o, m, b] = [split(base), split(main), split(branch)]
  const id = (line: string): number => {
    let value = ids.get(line)
    if (value === undefined) {
      value = ids.size
      ids.set(line, value)
    }
    return value
  }
  const [oi, mi, bi] = [o.map(id), m.map(id), b.map(id)]
  let text = ''
  for (const region of threeWayRegions(oi, mi, bi, { strict: true })) {
    if (region.type === 'same') text += o.slice(region.oStart, region.oEnd).join('')
    else if (region.type === 'one') text += (region.side === 'main' ? m : b).slice(region.start, region.end).join('')
    else if (sameIds(mi.slice(region.main.start, region.main.end), bi.slice(region.branch.start, region.branch.end))) text += m.slice(region.main.start, region.main.end).join('')
    else return undefined
  }
  return text
}

/** A merge of front matter keys must still be one YAML mapping (two sides may have added the same key). */
function validFrontMatter(text: string): boolean {
  const inner = text.slice(text.indexOf('\n') + 1, text.lastIndexOf('\n') + 1)
  try {
    const value: unknown = yaml.load(inner, { schema: yaml.CORE_SCHEMA })
    return value === undefined || value === null || (typeof value === 'object' && !Array.isArray(value))
  } catch {
    return false
  }
}

function partOf(units: Unit[]): PageMergeConflict['part'] {
  const unit = units.find((u) => u.kind !== 'gap') ?? units[0]
  return unit?.kind === 'frontMatter' ? 'frontMatter' : unit?.kind === 'title' ? 'title' : 'body'
}

export function sameIds(a: number[], b: number[]): boolean {
  return a.length === b.length && a.every((id, i) => id === b[i])
}

/** Whether `inner` appears in `outer` in order (not necessarily together). */
function isSubsequence(inner: number[], outer: number[]): boolean {
  let at = 0
  for (const id of outer) if (at < inner.length && inner[at] === id) at += 1
  return at === inner.length
}

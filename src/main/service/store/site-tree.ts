import type { Site } from './sites'
import type { SectionGroupRecord, SiteSectionRecord, SiteSpaceRecord, StructureItem } from './site-structure'

export interface MovePosition {
  before?: string
  after?: string
}

/** Why a requested position cannot be honoured. */
export class InvalidPositionError extends Error {}

/**
 * A site's structure in memory, in site order: containers (the root, then section groups) hold sections
 * and groups in one order; sections (or the root, when the site has no sections) hold site spaces.
 */
export class SiteTree {
  readonly sectionsById: Map<string, SiteSectionRecord>
  readonly groupsById: Map<string, SectionGroupRecord>
  readonly siteSpacesById: Map<string, SiteSpaceRecord>

  constructor(
    readonly site: Site,
    sections: SiteSectionRecord[],
    groups: SectionGroupRecord[],
    siteSpaces: SiteSpaceRecord[],
  ) {
    this.sectionsById = new Map(sections.map((s) => [s.id, s]))
    this.groupsById = new Map(groups.map((g) => [g.id, g]))
    this.siteSpacesById = new Map(siteSpaces.map((s) => [s.id, s]))
  }

  /** A site is organized in sections once it has a section or a section group. */
  get hasSections(): boolean {
    return this.sectionsById.size > 0 || this.groupsById.size > 0
  }

  /** Sections and groups directly in the container (`null`: the site root), in order. */
  items(container: string | null): StructureItem[] {
    const entries: Array<StructureItem & { position: number }> = [
      ...[...this.sectionsById.values()].filter((s) => s.groupId === container).map((s) => ({ kind: 'section' as const, id: s.id, position: s.position })),
      ...[...this.groupsById.values()].filter((g) => g.parentId === container).map((g) => ({ kind: 'group' as const, id: g.id, position: g.position })),
    ]
    // Array.sort is stable: at equal positions sections stay before groups, so the order never flickers.
    return entries.sort((a, b) => a.position - b.position).map(({ kind, id }) => ({ kind, id }))
  }

  containerOf(item: StructureItem): string | null {
    return item.kind === 'section' ? (this.sectionsById.get(item.id)?.groupId ?? null) : (this.groupsById.get(item.id)?.parentId ?? null)
  }

  /** Every section, depth first in site order. */
  orderedSections(container: string | null = null): SiteSectionRecord[] {
    return this.items(container).flatMap((item) =>
      item.kind === 'section' ? [this.sectionsById.get(item.id) as SiteSectionRecord] : this.orderedSections(item.id),
    )
  }

  /** Every group, depth first in site order. */
  orderedGroups(container: string | null = null): SectionGroupRecord[] {
    return this.items(container).flatMap((item) =>
      item.kind === 'group' ? [this.groupsById.get(item.id) as SectionGroupRecord, ...this.orderedGroups(item.id)] : [],
    )
  }

  /** Site spaces of one section (`null`: the site root), in order. */
  siteSpacesIn(sectionId: string | null): SiteSpaceRecord[] {
    return [...this.siteSpacesById.values()].filter((s) => s.sectionId === sectionId).sort((a, b) => a.position - b.position)
  }

  /** Every site space in site order. */
  orderedSiteSpaces(): SiteSpaceRecord[] {
    return [...this.siteSpacesIn(null), ...this.orderedSections().flatMap((s) => this.siteSpacesIn(s.id))]
  }

  defaultSectionId(): string | undefined {
    const chosen = this.site.data.defaultSectionId
    if (chosen && this.sectionsById.has(chosen)) return chosen
    return this.orderedSections()[0]?.id
  }

  /** The default site space of a section (or of the root): the chosen one, else the first. */
  defaultSiteSpaceId(sectionId: string | null): string | undefined {
    const chosen = sectionId === null ? this.site.data.defaultSiteSpaceId : this.sectionsById.get(sectionId)?.data.defaultSiteSpaceId
    const members = this.siteSpacesIn(sectionId)
    if (chosen && members.some((s) => s.id === chosen)) return chosen
    return members[0]?.id
  }

  /** True when `groupId` is `ancestorId` or nested somewhere inside it. */
  isWithin(groupId: string | null, ancestorId: string): boolean {
    for (let current = groupId; current; current = this.groupsById.get(current)?.parentId ?? null) {
      if (current === ancestorId) return true
    }
    return false
  }
}

/**
 * Where an item goes among `siblings` (which exclude the item itself): before one sibling, after
 * another, or both when they are neighbours. A reference that is not among the siblings, or two
 * references that are not neighbours, is an invalid position.
 */
export function insertionIndex(siblings: readonly string[], position: MovePosition): number {
  const beforeIndex = position.before === undefined ? -1 : siblings.indexOf(position.before)
  const afterIndex = position.after === undefined ? -1 : siblings.indexOf(position.after)
  if (position.before !== undefined && beforeIndex < 0) throw new InvalidPositionError(`${position.before} is not a valid "before" reference`)
  if (position.after !== undefined && afterIndex < 0) throw new InvalidPositionError(`${position.after} is not a valid "after" reference`)
  if (position.before !== undefined && position.after !== undefined) {
    if (afterIndex + 1 !== beforeIndex) throw new InvalidPositionError(`"after" ${position.after} and "before" ${position.before} are not neighbours`)
    return beforeIndex
  }
  if (position.before !== undefined) return beforeIndex
  if (position.after !== undefined) return afterIndex + 1
  return siblings.length
}

/** `list` with `item` inserted at `index`. */
export function insertAt<T>(list: readonly T[], index: number, item: T): T[] {
  return [...list.slice(0, index), item, ...list.slice(index)]
}

import type Database from 'better-sqlite3'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'
import { SiteTree } from './site-tree'
import type { Site } from './sites'

export type LocalizedStrings = Record<string, string>

export interface SectionData {
  description?: string
  icon?: string
  condition?: string
  draft?: boolean
  localizedTitle?: LocalizedStrings
  localizedDescription?: LocalizedStrings
  /** The section's default site space; the first one in the section when unset or gone. */
  defaultSiteSpaceId?: string
}

export interface SiteSectionRecord {
  id: string
  siteId: string
  groupId: string | null
  position: number
  title: string
  path: string
  data: SectionData
}

export interface SectionGroupData {
  icon?: string
  draft?: boolean
  localizedTitle?: LocalizedStrings
}

export interface SectionGroupRecord {
  id: string
  siteId: string
  parentId: string | null
  position: number
  title: string
  data: SectionGroupData
}

export interface SiteSpaceData {
  condition?: string
  draft?: boolean
  hidden?: boolean
  pageId?: string
}

export interface SiteSpaceRecord {
  id: string
  siteId: string
  /** null: the site root, for sites without sections. */
  sectionId: string | null
  spaceId: string
  position: number
  path: string
  data: SiteSpaceData
  /** The site space's override of the site customization (only the keys it overrides). */
  customization: Record<string, unknown> | null
  customizationUpdatedAt: string | null
}

/** A member of a container (the site root or a section group): sections and groups share one order. */
export interface StructureItem {
  kind: 'section' | 'group'
  id: string
}

interface SectionRow {
  id: string
  site_id: string
  group_id: string | null
  position: number
  title: string
  path: string
  data: string
}
interface GroupRow {
  id: string
  site_id: string
  parent_id: string | null
  position: number
  title: string
  data: string
}
interface SiteSpaceRow {
  id: string
  site_id: string
  section_id: string | null
  space_id: string
  position: number
  path: string
  data: string
  customization: string | null
  customization_updated_at: string | null
}

const toSection = (r: SectionRow): SiteSectionRecord => ({
  id: r.id,
  siteId: r.site_id,
  groupId: r.group_id,
  position: r.position,
  title: r.title,
  path: r.path,
  data: parseJson<SectionData>(r.data, {}),
})
const toGroup = (r: GroupRow): SectionGroupRecord => ({
  id: r.id,
  siteId: r.site_id,
  parentId: r.parent_id,
  position: r.position,
  title: r.title,
  data: parseJson<SectionGroupData>(r.data, {}),
})
const toSiteSpace = (r: SiteSpaceRow): SiteSpaceRecord => ({
  id: r.id,
  siteId: r.site_id,
  sectionId: r.section_id,
  spaceId: r.space_id,
  position: r.position,
  path: r.path,
  data: parseJson<SiteSpaceData>(r.data, {}),
  customization: r.customization ? parseJson<Record<string, unknown>>(r.customization, {}) : null,
  customizationUpdatedAt: r.customization_updated_at,
})

function without<T extends object>(data: T, keys: ReadonlyArray<keyof T>): T {
  const copy = { ...data }
  for (const key of keys) delete copy[key]
  return copy
}

/** The SQL of a site's structure: sections, section groups and site spaces. */
export class SiteStructureRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  /** The whole structure of the site, read once. */
  tree(site: Site): SiteTree {
    return new SiteTree(site, this.sections(site.id), this.groups(site.id), this.siteSpaces(site.id))
  }

  sections(siteId: string): SiteSectionRecord[] {
    return (this.db.prepare('SELECT * FROM site_sections WHERE site_id = ? ORDER BY position, rowid').all(siteId) as SectionRow[]).map(toSection)
  }

  groups(siteId: string): SectionGroupRecord[] {
    return (this.db.prepare('SELECT * FROM site_section_groups WHERE site_id = ? ORDER BY position, rowid').all(siteId) as GroupRow[]).map(toGroup)
  }

  siteSpaces(siteId: string): SiteSpaceRecord[] {
    return (this.db.prepare('SELECT * FROM site_spaces WHERE site_id = ? ORDER BY position, rowid').all(siteId) as SiteSpaceRow[]).map(toSiteSpace)
  }

  countSiteSpaces(siteId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM site_spaces WHERE site_id = ?').get(siteId) as { n: number }).n
  }

  insertSection(section: SiteSectionRecord) {
    this.db
      .prepare('INSERT INTO site_sections (id, site_id, group_id, position, title, path, data) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(section.id, section.siteId, section.groupId, section.position, section.title, section.path, JSON.stringify(section.data))
  }

  updateSection(section: SiteSectionRecord, patch: { title?: string; path?: string; data?: Partial<SectionData> }, remove: Array<keyof SectionData> = []) {
    const data = without({ ...section.data, ...patch.data }, remove)
    this.db
      .prepare('UPDATE site_sections SET title = ?, path = ?, data = ? WHERE id = ?')
      .run(patch.title ?? section.title, patch.path ?? section.path, JSON.stringify(data), section.id)
  }

  deleteSection(id: string): boolean {
    return this.db.prepare('DELETE FROM site_sections WHERE id = ?').run(id).changes > 0
  }

  insertGroup(group: SectionGroupRecord) {
    this.db
      .prepare('INSERT INTO site_section_groups (id, site_id, parent_id, position, title, data) VALUES (?, ?, ?, ?, ?, ?)')
      .run(group.id, group.siteId, group.parentId, group.position, group.title, JSON.stringify(group.data))
  }

  updateGroup(group: SectionGroupRecord, patch: { title?: string; data?: Partial<SectionGroupData> }, remove: Array<keyof SectionGroupData> = []) {
    const data = without({ ...group.data, ...patch.data }, remove)
    this.db.prepare('UPDATE site_section_groups SET title = ?, data = ? WHERE id = ?').run(patch.title ?? group.title, JSON.stringify(data), group.id)
  }

  deleteGroup(id: string): boolean {
    return this.db.prepare('DELETE FROM site_section_groups WHERE id = ?').run(id).changes > 0
  }

  insertSiteSpace(siteSpace: Omit<SiteSpaceRecord, 'customizationUpdatedAt'>) {
    const hasCustomization = siteSpace.customization !== null
    this.db
      .prepare(
        `INSERT INTO site_spaces (id, site_id, section_id, space_id, position, path, data, customization, customization_updated_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        siteSpace.id,
        siteSpace.siteId,
        siteSpace.sectionId,
        siteSpace.spaceId,
        siteSpace.position,
        siteSpace.path,
        JSON.stringify(siteSpace.data),
        hasCustomization ? JSON.stringify(siteSpace.customization) : null,
        hasCustomization ? this.store.now() : null,
      )
  }

  updateSiteSpace(siteSpace: SiteSpaceRecord, patch: { spaceId?: string; path?: string; data?: Partial<SiteSpaceData> }, remove: Array<keyof SiteSpaceData> = []) {
    const data = without({ ...siteSpace.data, ...patch.data }, remove)
    this.db
      .prepare('UPDATE site_spaces SET space_id = ?, path = ?, data = ? WHERE id = ?')
      .run(patch.spaceId ?? siteSpace.spaceId, patch.path ?? siteSpace.path, JSON.stringify(data), siteSpace.id)
  }

  deleteSiteSpace(id: string): boolean {
    return this.db.prepare('DELETE FROM site_spaces WHERE id = ?').run(id).changes > 0
  }

  /** Stores the site space's customization override; null removes it. */
  setSiteSpaceCustomization(id: string, override: Record<string, unknown> | null): string | null {
    const at = override ? this.store.now() : null
    this.db
      .prepare('UPDATE site_spaces SET customization = ?, customization_updated_at = ? WHERE id = ?')
      .run(override ? JSON.stringify(override) : null, at, id)
    return at
  }

  /** Makes `items` the exact content and order of the container (`null`: the site root). */
  placeItems(container: string | null, items: StructureItem[]) {
    const section = this.db.prepare('UPDATE site_sections SET group_id = ?, position = ? WHERE id = ?')
    const group = this.db.prepare('UPDATE site_section_groups SET parent_id = ?, position = ? WHERE id = ?')
    items.forEach((item, index) => (item.kind === 'section' ? section : group).run(container, index, item.id))
  }

  /** Makes `ids` the exact content and order of the section's site spaces (`null`: the site root). */
  placeSiteSpaces(sectionId: string | null, ids: string[]) {
    const update = this.db.prepare('UPDATE site_spaces SET section_id = ?, position = ? WHERE id = ?')
    ids.forEach((id, index) => update.run(sectionId, index, id))
  }
}

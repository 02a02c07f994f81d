import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

export const SITE_TYPES = ['basic', 'premium', 'ultimate', 'sponsored', 'legacy-basic', 'legacy-premium'] as const
export type SiteType = (typeof SITE_TYPES)[number]
export type SiteVisibility = 'public' | 'unlisted' | 'share-link' | 'visitor-auth'
export type SiteDefaultLevel = Role | 'inherit' | null

/** Site settings kept as JSON: the API shape's optional parts. */
export interface SiteData {
  basename?: string
  hostname?: string
  /** The proxy origin, e.g. `company.com/docs`. */
  proxy?: string
  adaptiveContent: { enabled: boolean }
  agentsContext: 'included' | 'excluded'
  defaultLevel: SiteDefaultLevel
  /** The section a visitor lands on; the first section in site order when unset or gone. */
  defaultSectionId?: string
  /** The default site space at the site root (sites without sections). */
  defaultSiteSpaceId?: string
  /** Space id of the attached style guide. */
  styleguide?: string
}

export interface Site {
  id: string
  orgId: string
  title: string
  type: SiteType
  visibility: SiteVisibility
  published: boolean
  createdAt: string
  data: SiteData
}

/** A JSON document stored on a site with the time it was last written. */
export interface StoredDocument<T> {
  value: T
  updatedAt: string
}

interface SiteRow {
  id: string
  org_id: string
  title: string
  type: SiteType
  visibility: SiteVisibility
  published: number
  created_at: string
  data: string
}

const DEFAULT_DATA: SiteData = { adaptiveContent: { enabled: false }, agentsContext: 'included', defaultLevel: 'inherit' }

const toSite = (row: SiteRow): Site => ({
  id: row.id,
  orgId: row.org_id,
  title: row.title,
  type: row.type,
  visibility: row.visibility,
  published: row.published === 1,
  createdAt: row.created_at,
  data: { ...DEFAULT_DATA, ...parseJson<Partial<SiteData>>(row.data, {}) },
})

export class SitesRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { orgId: string; title: string; type: SiteType; visibility: SiteVisibility }): Site {
    const site: Site = { id: newId(), ...input, published: false, createdAt: this.store.now(), data: { ...DEFAULT_DATA } }
    this.db
      .prepare('INSERT INTO sites (id, org_id, title, type, visibility, published, created_at, data) VALUES (?, ?, ?, ?, ?, 0, ?, ?)')
      .run(site.id, site.orgId, site.title, site.type, site.visibility, site.createdAt, JSON.stringify(site.data))
    return site
  }

  /** A site only if it belongs to the organization: ids from another organization are unknown. */
  getInOrg(orgId: string, id: string): Site | undefined {
    const row = this.db.prepare('SELECT id, org_id, title, type, visibility, published, created_at, data FROM sites WHERE id = ? AND org_id = ?').get(id, orgId) as
      | SiteRow
      | undefined
    return row && toSite(row)
  }

  listByOrg(orgId: string): Site[] {
    const rows = this.db
      .prepare('SELECT id, org_id, title, type, visibility, published, created_at, data FROM sites WHERE org_id = ? ORDER BY created_at, rowid')
      .all(orgId) as SiteRow[]
    return rows.map(toSite)
  }

  /** Ids of the organization's sites that show the space in one of their site spaces. */
  siteIdsWithSpace(orgId: string, spaceId: string): Set<string> {
    const rows = this.db
      .prepare('SELECT DISTINCT s.id FROM sites s JOIN site_spaces ss ON ss.site_id = s.id WHERE s.org_id = ? AND ss.space_id = ?')
      .all(orgId, spaceId) as Array<{ id: string }>
    return new Set(rows.map((r) => r.id))
  }

  /** Another site of the organization already using the basename, if any. */
  basenameOwner(orgId: string, basename: string, exceptId: string): Site | undefined {
    return this.listByOrg(orgId).find((s) => s.id !== exceptId && s.data.basename === basename)
  }

  /** Custom hostnames are global: two sites cannot answer on the same host. */
  hostnameOwner(hostname: string, exceptId: string): string | undefined {
    const row = this.db.prepare("SELECT id FROM sites WHERE json_extract(data, '$.hostname') = ? AND id != ?").get(hostname, exceptId) as
      | { id: string }
      | undefined
    return row?.id
  }

  update(id: string, patch: { title?: string; visibility?: SiteVisibility; published?: boolean; data?: Partial<SiteData> }, removeKeys: Array<keyof SiteData> = []): Site {
    const row = this.db.prepare('SELECT id, org_id, title, type, visibility, published, created_at, data FROM sites WHERE id = ?').get(id) as SiteRow | undefined
    if (!row) throw new Error(`site ${id} does not exist`)
    const current = toSite(row)
    const data: SiteData = { ...current.data, ...patch.data }
    for (const key of removeKeys) delete data[key]
    const next: Site = {
      ...current,
      title: patch.title ?? current.title,
      visibility: patch.visibility ?? current.visibility,
      published: patch.published ?? current.published,
      data,
    }
    this.db
      .prepare('UPDATE sites SET title = ?, visibility = ?, published = ?, data = ? WHERE id = ?')
      .run(next.title, next.visibility, next.published ? 1 : 0, JSON.stringify(next.data), id)
    return next
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM sites WHERE id = ?').run(id).changes > 0
  }

  customization(id: string): StoredDocument<Record<string, unknown>> | undefined {
    const row = this.db.prepare('SELECT customization, customization_updated_at FROM sites WHERE id = ?').get(id) as
      | { customization: string | null; customization_updated_at: string | null }
      | undefined
    if (!row?.customization) return undefined
    return { value: parseJson<Record<string, unknown>>(row.customization, {}), updatedAt: row.customization_updated_at ?? '' }
  }

  setCustomization(id: string, settings: Record<string, unknown>): string {
    const now = this.store.now()
    this.db.prepare('UPDATE sites SET customization = ?, customization_updated_at = ? WHERE id = ?').run(JSON.stringify(settings), now, id)
    return now
  }

  /** The raw stored text: the adaptive schema handlers decide what an unreadable one means. */
  adaptiveSchemaText(id: string): { text: string; updatedAt: string } | undefined {
    const row = this.db.prepare('SELECT adaptive_schema, adaptive_schema_updated_at FROM sites WHERE id = ?').get(id) as
      | { adaptive_schema: string | null; adaptive_schema_updated_at: string | null }
      | undefined
    if (!row?.adaptive_schema) return undefined
    return { text: row.adaptive_schema, updatedAt: row.adaptive_schema_updated_at ?? '' }
  }

  setAdaptiveSchema(id: string, schema: Record<string, unknown>): string {
    const now = this.store.now()
    this.db.prepare('UPDATE sites SET adaptive_schema = ?, adaptive_schema_updated_at = ? WHERE id = ?').run(JSON.stringify(schema), now, id)
    return now
  }
}

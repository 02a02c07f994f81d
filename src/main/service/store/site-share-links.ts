import { randomBytes } from 'node:crypto'
import type Database from 'better-sqlite3'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

/** A secret link to a `share-link` site: visitors holding `key` may read the published site. */
export interface SiteShareLink {
  id: string
  siteId: string
  key: string
  name: string | null
  active: boolean
  createdAt: string
}

interface ShareLinkRow {
  id: string
  site_id: string
  key: string
  name: string | null
  active: number
  created_at: string
}

const toShareLink = (row: ShareLinkRow): SiteShareLink => ({
  id: row.id,
  siteId: row.site_id,
  key: row.key,
  name: row.name,
  active: row.active === 1,
  createdAt: row.created_at,
})

export class SiteShareLinksRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(siteId: string, name: string): SiteShareLink {
    const link: SiteShareLink = { id: newId(), siteId, key: randomBytes(18).toString('base64url'), name, active: true, createdAt: this.store.now() }
    this.db
      .prepare('INSERT INTO site_share_links (id, site_id, key, name, active, created_at) VALUES (?, ?, ?, ?, 1, ?)')
      .run(link.id, siteId, link.key, name, link.createdAt)
    return link
  }

  list(siteId: string): SiteShareLink[] {
    return (this.db.prepare('SELECT * FROM site_share_links WHERE site_id = ? ORDER BY created_at, rowid').all(siteId) as ShareLinkRow[]).map(toShareLink)
  }

  get(siteId: string, id: string): SiteShareLink | undefined {
    const row = this.db.prepare('SELECT * FROM site_share_links WHERE site_id = ? AND id = ?').get(siteId, id) as ShareLinkRow | undefined
    return row && toShareLink(row)
  }

  /** The link that `key` opens on the site, only while it is active. */
  activeByKey(siteId: string, key: string): SiteShareLink | undefined {
    const row = this.db.prepare('SELECT * FROM site_share_links WHERE site_id = ? AND key = ? AND active = 1').get(siteId, key) as
      | ShareLinkRow
      | undefined
    return row && toShareLink(row)
  }

  update(siteId: string, id: string, patch: { name?: string; active?: boolean }): SiteShareLink | undefined {
    const current = this.get(siteId, id)
    if (!current) return undefined
    const next = { ...current, name: patch.name ?? current.name, active: patch.active ?? current.active }
    this.db.prepare('UPDATE site_share_links SET name = ?, active = ? WHERE id = ?').run(next.name, next.active ? 1 : 0, id)
    return next
  }

  delete(siteId: string, id: string): boolean {
    return this.db.prepare('DELETE FROM site_share_links WHERE site_id = ? AND id = ?').run(siteId, id).changes > 0
  }
}

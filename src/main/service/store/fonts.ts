import type Database from 'better-sqlite3'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/** One weight of a custom font, stored as the key of its uploaded file. */
export interface StoredFontFace {
  weight: number
  storageKey: string
}

export interface CustomFont {
  id: string
  orgId: string
  fontFamily: string
  /** Sorted by weight, one face per weight. */
  faces: StoredFontFace[]
  createdAt: string
  updatedAt: string
}

interface CustomFontRow {
  id: string
  org_id: string
  font_family: string
  faces: string
  created_at: string
  updated_at: string
}

const toFont = (row: CustomFontRow): CustomFont => ({
  id: row.id,
  orgId: row.org_id,
  fontFamily: row.font_family,
  faces: parseJson<StoredFontFace[]>(row.faces, []),
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const sortFaces = (faces: StoredFontFace[]) => [...faces].sort((a, b) => a.weight - b.weight)

/** Custom fonts an organization registers for its sites. */
export class CustomFontsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(orgId: string, fontFamily: string, faces: StoredFontFace[]): CustomFont {
    const now = this.store.now()
    const font: CustomFont = { id: newId(), orgId, fontFamily, faces: sortFaces(faces), createdAt: now, updatedAt: now }
    this.db
      .prepare('INSERT INTO custom_fonts (id, org_id, font_family, faces, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(font.id, orgId, fontFamily, JSON.stringify(font.faces), now, now)
    return font
  }

  get(id: string): CustomFont | undefined {
    const row = this.db.prepare('SELECT * FROM custom_fonts WHERE id = ?').get(id) as CustomFontRow | undefined
    return row && toFont(row)
  }

  inOrg(orgId: string, id: string): CustomFont | undefined {
    const font = this.get(id)
    return font?.orgId === orgId ? font : undefined
  }

  listByOrg(orgId: string): CustomFont[] {
    return (this.db.prepare('SELECT * FROM custom_fonts WHERE org_id = ? ORDER BY created_at, rowid').all(orgId) as CustomFontRow[]).map(toFont)
  }

  update(id: string, fontFamily: string, faces: StoredFontFace[]): CustomFont {
    const current = this.get(id)
    if (!current) throw new Error(`font ${id} does not exist`)
    const next: CustomFont = { ...current, fontFamily, faces: sortFaces(faces), updatedAt: this.store.now() }
    this.db
      .prepare('UPDATE custom_fonts SET font_family = ?, faces = ?, updated_at = ? WHERE id = ?')
      .run(next.fontFamily, JSON.stringify(next.faces), next.updatedAt, id)
    return next
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM custom_fonts WHERE id = ?').run(id).changes > 0
  }
}

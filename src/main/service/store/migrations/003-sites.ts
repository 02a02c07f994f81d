import type { Migration } from '../../../db/migrate'

// Sections and section groups share one ordering per container (the site root or a group), so both
// tables carry `position` on the same scale; site spaces are ordered within their section (or the
// site root when the site has no sections, `section_id` NULL).
export const migration003Sites: Migration = {
  version: 3,
  name: 'sites',
  up(db) {
    db.exec(`
      CREATE TABLE sites (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        type TEXT NOT NULL,
        visibility TEXT NOT NULL,
        published INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}',
        customization TEXT,
        customization_updated_at TEXT,
        adaptive_schema TEXT,
        adaptive_schema_updated_at TEXT
      );
      CREATE INDEX sites_org ON sites(org_id);
      CREATE TABLE site_section_groups (
        id TEXT PRIMARY KEY,
        site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
        parent_id TEXT REFERENCES site_section_groups(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX site_section_groups_site ON site_section_groups(site_id);
      CREATE TABLE site_sections (
        id TEXT PRIMARY KEY,
        site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
        group_id TEXT REFERENCES site_section_groups(id) ON DELETE SET NULL,
        position INTEGER NOT NULL,
        title TEXT NOT NULL,
        path TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}'
      );
      CREATE INDEX site_sections_site ON site_sections(site_id);
      CREATE TABLE site_spaces (
        id TEXT PRIMARY KEY,
        site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
        section_id TEXT REFERENCES site_sections(id) ON DELETE CASCADE,
        space_id TEXT NOT NULL REFERENCES spaces(id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        path TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}',
        customization TEXT,
        customization_updated_at TEXT
      );
      CREATE INDEX site_spaces_site ON site_spaces(site_id);
      CREATE INDEX site_spaces_space ON site_spaces(space_id);
      CREATE TABLE site_share_links (
        id TEXT PRIMARY KEY,
        site_id TEXT NOT NULL REFERENCES sites(id) ON DELETE CASCADE,
        key TEXT NOT NULL UNIQUE,
        name TEXT,
        active INTEGER NOT NULL DEFAULT 1,
        created_at TEXT NOT NULL
      );
      CREATE INDEX site_share_links_site ON site_share_links(site_id);
    `)
  },
}

import type { Migration } from '../../../db/migrate'

// OpenAPI specs are addressed by (organization, slug); their processed versions keep the fetched text so
// the version content operations can answer without fetching again. A translation's source and result
// spaces are plain columns, not foreign keys: either space may be deleted while the translation stays.
export const migration004OpenApiTranslations: Migration = {
  version: 4,
  name: 'openapi-translations',
  up(db) {
    db.exec(`
      CREATE TABLE openapi_specs (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        slug TEXT NOT NULL,
        source_url TEXT,
        source_text TEXT,
        visibility TEXT NOT NULL,
        processing_state TEXT NOT NULL,
        process_token TEXT,
        last_version_id TEXT,
        last_processed_at TEXT,
        last_error_code TEXT,
        last_errors TEXT NOT NULL DEFAULT '[]',
        last_error_count INTEGER NOT NULL DEFAULT 0,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        UNIQUE (org_id, slug)
      );
      CREATE TABLE openapi_spec_versions (
        id TEXT PRIMARY KEY,
        spec_id TEXT NOT NULL REFERENCES openapi_specs(id) ON DELETE CASCADE,
        url TEXT,
        text TEXT NOT NULL,
        format TEXT NOT NULL,
        text_sha TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX openapi_spec_versions_spec ON openapi_spec_versions(spec_id, created_at);
      CREATE TABLE translations (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        source_space_id TEXT NOT NULL,
        source_language TEXT NOT NULL,
        language TEXT NOT NULL,
        instructions TEXT NOT NULL,
        status TEXT NOT NULL,
        result_space_id TEXT,
        result_revision_id TEXT,
        stats TEXT NOT NULL,
        data TEXT NOT NULL DEFAULT '{}',
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX translations_org ON translations(org_id, created_at);
    `)
  },
}

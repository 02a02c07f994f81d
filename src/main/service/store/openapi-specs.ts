import { createHash } from 'node:crypto'
import type Database from 'better-sqlite3'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/** Spec `OpenAPISpecProcessingState`: there is no failed state; a failure is `complete` with an error code. */
export type OpenApiProcessingState = 'pending' | 'progress' | 'complete'
/** Spec `OpenAPISpecProcessingErrorCode`. */
export type OpenApiProcessErrorCode = 'FETCH_TIMEOUT' | 'FETCH_ERROR' | 'PARSE_ERROR'
export type OpenApiVisibility = 'private' | 'public'
export type OpenApiTextFormat = 'json' | 'yaml'

export interface OpenApiProcessError {
  message: string
  code?: string
}

/** Where the specification comes from: a URL the service fetches, or text given in the request. */
export type OpenApiSource = { url: string } | { text: string }

export interface OpenApiSpec {
  id: string
  orgId: string
  slug: string
  source: OpenApiSource
  visibility: OpenApiVisibility
  processingState: OpenApiProcessingState
  /** Identifies the processing run allowed to write results; a newer run replaces it. */
  processToken: string | null
  lastVersionId: string | null
  lastProcessedAt: string | null
  lastErrorCode: OpenApiProcessErrorCode | null
  lastErrors: OpenApiProcessError[]
  lastErrorCount: number
  createdAt: string
  updatedAt: string
}

export interface OpenApiSpecVersion {
  id: string
  specId: string
  /** The URL the text was fetched from; null for text sources. */
  url: string | null
  text: string
  format: OpenApiTextFormat
  createdAt: string
}

interface SpecRow {
  id: string
  org_id: string
  slug: string
  source_url: string | null
  source_text: string | null
  visibility: OpenApiVisibility
  processing_state: OpenApiProcessingState
  process_token: string | null
  last_version_id: string | null
  last_processed_at: string | null
  last_error_code: OpenApiProcessErrorCode | null
  last_errors: string
  last_error_count: number
  created_at: string
  updated_at: string
}

interface VersionRow {
  id: string
  spec_id: string
  url: string | null
  text: string
  format: OpenApiTextFormat
  text_sha: string
  created_at: string
}

const toSpec = (row: SpecRow): OpenApiSpec => ({
  id: row.id,
  orgId: row.org_id,
  slug: row.slug,
  source: row.source_url !== null ? { url: row.source_url } : { text: row.source_text ?? '' },
  visibility: row.visibility,
  processingState: row.processing_state,
  processToken: row.process_token,
  lastVersionId: row.last_version_id,
  lastProcessedAt: row.last_processed_at,
  lastErrorCode: row.last_error_code,
  lastErrors: parseJson<OpenApiProcessError[]>(row.last_errors, []),
  lastErrorCount: row.last_error_count,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

const toVersion = (row: VersionRow): OpenApiSpecVersion => ({
  id: row.id,
  specId: row.spec_id,
  url: row.url,
  text: row.text,
  format: row.format,
  createdAt: row.created_at,
})

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

const sourceColumns = (source: OpenApiSource): [string | null, string | null] =>
  'url' in source ? [source.url, null] : [null, source.text]

/** The outcome of one processing run, written only if the run still owns the spec. */
export type ProcessOutcome =
  | { ok: true; url: string | null; text: string; format: OpenApiTextFormat }
  | { ok: false; code: OpenApiProcessErrorCode; errors: OpenApiProcessError[] }

export class OpenApiSpecsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  listByOrg(orgId: string): OpenApiSpec[] {
    return (this.db.prepare('SELECT * FROM openapi_specs WHERE org_id = ? ORDER BY created_at, rowid').all(orgId) as SpecRow[]).map(toSpec)
  }

  bySlug(orgId: string, slug: string): OpenApiSpec | undefined {
    const row = this.db.prepare('SELECT * FROM openapi_specs WHERE org_id = ? AND slug = ?').get(orgId, slug) as SpecRow | undefined
    return row && toSpec(row)
  }

  get(id: string): OpenApiSpec | undefined {
    const row = this.db.prepare('SELECT * FROM openapi_specs WHERE id = ?').get(id) as SpecRow | undefined
    return row && toSpec(row)
  }

  /** A new spec waiting to be processed by the run that holds `processToken`. */
  create(input: { orgId: string; slug: string; source: OpenApiSource; processToken: string; visibility?: OpenApiVisibility }): OpenApiSpec {
    const now = this.store.now()
    const id = newId()
    const [url, text] = sourceColumns(input.source)
    this.db
      .prepare(
        `INSERT INTO openapi_specs (id, org_id, slug, source_url, source_text, visibility, processing_state, process_token, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?)`,
      )
      .run(id, input.orgId, input.slug, url, text, input.visibility ?? 'private', input.processToken, now, now)
    return this.get(id) as OpenApiSpec
  }

  /** A new source replaces the old one and hands the spec to a new processing run. */
  replaceSource(id: string, source: OpenApiSource, processToken: string): OpenApiSpec {
    const [url, text] = sourceColumns(source)
    this.db
      .prepare(
        `UPDATE openapi_specs SET source_url = ?, source_text = ?, processing_state = 'pending', process_token = ?, updated_at = ? WHERE id = ?`,
      )
      .run(url, text, processToken, this.store.now(), id)
    return this.get(id) as OpenApiSpec
  }

  setVisibility(id: string, visibility: OpenApiVisibility): OpenApiSpec {
    this.db.prepare('UPDATE openapi_specs SET visibility = ?, updated_at = ? WHERE id = ?').run(visibility, this.store.now(), id)
    return this.get(id) as OpenApiSpec
  }

  /** False when the spec is gone or a newer run took it over. */
  markInProgress(id: string, processToken: string): boolean {
    return (
      this.db
        .prepare(`UPDATE openapi_specs SET processing_state = 'progress', updated_at = ? WHERE id = ? AND process_token = ?`)
        .run(this.store.now(), id, processToken).changes > 0
    )
  }

  /**
   * Records a run's outcome. A successful run adds a version unless the text is the same as the latest
   * version's; a failed one keeps the last good version. Ignored when a newer run owns the spec.
   */
  finishProcessing(id: string, processToken: string, outcome: ProcessOutcome, maxErrors = 50): OpenApiSpec | undefined {
    return this.store.transaction(() => {
      const spec = this.get(id)
      if (!spec || spec.processToken !== processToken) return undefined
      const now = this.store.now()
      if (outcome.ok) {
        const sha = sha256(outcome.text)
        const latest = spec.lastVersionId ? this.versionRow(spec.lastVersionId) : undefined
        let versionId = spec.lastVersionId
        if (!latest || latest.text_sha !== sha || latest.url !== outcome.url) {
          versionId = newId()
          this.db
            .prepare('INSERT INTO openapi_spec_versions (id, spec_id, url, text, format, text_sha, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
            .run(versionId, id, outcome.url, outcome.text, outcome.format, sha, now)
        }
        this.db
          .prepare(
            `UPDATE openapi_specs SET processing_state = 'complete', process_token = NULL, last_version_id = ?, last_processed_at = ?,
             last_error_code = NULL, last_errors = '[]', last_error_count = 0, updated_at = ? WHERE id = ?`,
          )
          .run(versionId, now, now, id)
      } else {
        this.db
          .prepare(
            `UPDATE openapi_specs SET processing_state = 'complete', process_token = NULL, last_processed_at = ?, last_error_code = ?,
             last_errors = ?, last_error_count = ?, updated_at = ? WHERE id = ?`,
          )
          .run(now, outcome.code, JSON.stringify(outcome.errors.slice(0, maxErrors)), outcome.errors.length, now, id)
      }
      return this.get(id)
    })
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM openapi_specs WHERE id = ?').run(id).changes > 0
  }

  /** Newest first. */
  versions(specId: string): OpenApiSpecVersion[] {
    return (
      this.db.prepare('SELECT * FROM openapi_spec_versions WHERE spec_id = ? ORDER BY created_at DESC, rowid DESC').all(specId) as VersionRow[]
    ).map(toVersion)
  }

  version(specId: string, versionId: string): OpenApiSpecVersion | undefined {
    const row = this.versionRow(versionId)
    return row && row.spec_id === specId ? toVersion(row) : undefined
  }

  private versionRow(versionId: string): VersionRow | undefined {
    return this.db.prepare('SELECT * FROM openapi_spec_versions WHERE id = ?').get(versionId) as VersionRow | undefined
  }
}

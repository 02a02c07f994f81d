import type Database from 'better-sqlite3'
import type { JSONDocument } from '../../content/types'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/** Spec `TranslationStatus`: `completed` is the only final state the spec names. */
export type TranslationStatus = 'pending' | 'running' | 'completed'

export interface TranslationStats {
  runs: number
  totalWords: number
  totalPages: number
  totalDuration: number
  latestRunDuration: number
  latestPages: number
  latestWords: number
}

/** What the latest run did, told plainly: which translator ran and whether the text was really translated. */
export interface TranslationRunReport {
  outcome: 'running' | 'succeeded' | 'failed'
  startedAt: string
  finishedAt?: string
  translator: string
  machineTranslation: boolean
  message: string
}

export interface TranslationData {
  /** Source page ids translated by any run: `stats.totalPages` counts them. */
  translatedPageIds: string[]
  lastRun?: TranslationRunReport
}

export interface Translation {
  id: string
  orgId: string
  sourceSpaceId: string
  sourceLanguage: string
  language: string
  instructions: JSONDocument
  status: TranslationStatus
  resultSpaceId: string | null
  resultRevisionId: string | null
  stats: TranslationStats
  data: TranslationData
  createdBy: string | null
  createdAt: string
  updatedAt: string
}

interface TranslationRow {
  id: string
  org_id: string
  source_space_id: string
  source_language: string
  language: string
  instructions: string
  status: TranslationStatus
  result_space_id: string | null
  result_revision_id: string | null
  stats: string
  data: string
  created_by: string | null
  created_at: string
  updated_at: string
}

export const EMPTY_STATS: TranslationStats = {
  runs: 0,
  totalWords: 0,
  totalPages: 0,
  totalDuration: 0,
  latestRunDuration: 0,
  latestPages: 0,
  latestWords: 0,
}

export const EMPTY_DOCUMENT: JSONDocument = { object: 'document', data: {}, nodes: [] }

const toTranslation = (row: TranslationRow): Translation => ({
  id: row.id,
  orgId: row.org_id,
  sourceSpaceId: row.source_space_id,
  sourceLanguage: row.source_language,
  language: row.language,
  instructions: parseJson<JSONDocument>(row.instructions, EMPTY_DOCUMENT),
  status: row.status,
  resultSpaceId: row.result_space_id,
  resultRevisionId: row.result_revision_id,
  stats: { ...EMPTY_STATS, ...parseJson<Partial<TranslationStats>>(row.stats, {}) },
  data: { translatedPageIds: [], ...parseJson<Partial<TranslationData>>(row.data, {}) },
  createdBy: row.created_by,
  createdAt: row.created_at,
  updatedAt: row.updated_at,
})

export class TranslationsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  listByOrg(orgId: string): Translation[] {
    return (this.db.prepare('SELECT * FROM translations WHERE org_id = ? ORDER BY created_at, rowid').all(orgId) as TranslationRow[]).map(
      toTranslation,
    )
  }

  get(id: string): Translation | undefined {
    const row = this.db.prepare('SELECT * FROM translations WHERE id = ?').get(id) as TranslationRow | undefined
    return row && toTranslation(row)
  }

  /** The translation of `orgId` with this id; another organization's translation is reported as unknown. */
  getInOrg(orgId: string, id: string): Translation | undefined {
    const translation = this.get(id)
    return translation && translation.orgId === orgId ? translation : undefined
  }

  findBySourceAndLanguage(sourceSpaceId: string, language: string): Translation | undefined {
    const row = this.db.prepare('SELECT * FROM translations WHERE source_space_id = ? AND language = ?').get(sourceSpaceId, language) as
      | TranslationRow
      | undefined
    return row && toTranslation(row)
  }

  create(input: {
    orgId: string
    sourceSpaceId: string
    sourceLanguage: string
    language: string
    instructions: JSONDocument
    createdBy: string
  }): Translation {
    const id = newId()
    const now = this.store.now()
    this.db
      .prepare(
        `INSERT INTO translations (id, org_id, source_space_id, source_language, language, instructions, status, stats, data, created_by, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 'pending', ?, ?, ?, ?, ?)`,
      )
      .run(
        id,
        input.orgId,
        input.sourceSpaceId,
        input.sourceLanguage,
        input.language,
        JSON.stringify(input.instructions),
        JSON.stringify(EMPTY_STATS),
        JSON.stringify({ translatedPageIds: [] } satisfies TranslationData),
        input.createdBy,
        now,
        now,
      )
    return this.get(id) as Translation
  }

  setInstructions(id: string, instructions: JSONDocument): Translation {
    this.db.prepare('UPDATE translations SET instructions = ?, updated_at = ? WHERE id = ?').run(JSON.stringify(instructions), this.store.now(), id)
    return this.get(id) as Translation
  }

  /** Records a run's state; the caller computes status, stats and the report from the current row. */
  saveRun(
    id: string,
    run: {
      status: TranslationStatus
      stats?: TranslationStats
      data: TranslationData
      result?: { spaceId: string; revisionId: string }
    },
  ): Translation | undefined {
    const current = this.get(id)
    if (!current) return undefined
    this.db
      .prepare('UPDATE translations SET status = ?, stats = ?, data = ?, result_space_id = ?, result_revision_id = ?, updated_at = ? WHERE id = ?')
      .run(
        run.status,
        JSON.stringify(run.stats ?? current.stats),
        JSON.stringify(run.data),
        run.result?.spaceId ?? current.resultSpaceId,
        run.result?.revisionId ?? current.resultRevisionId,
        this.store.now(),
        id,
      )
    return this.get(id)
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM translations WHERE id = ?').run(id).changes > 0
  }
}

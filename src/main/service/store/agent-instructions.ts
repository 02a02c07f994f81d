import type Database from 'better-sqlite3'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/** A rich-text document as the spec's `JSONDocument` (validated at the HTTP boundary). */
export interface JsonDocument {
  object: 'document'
  data: Record<string, unknown>
  nodes: unknown[]
  [key: string]: unknown
}

export interface AgentInstructions {
  orgId: string
  instructions: JsonDocument
  updatedAt: string
  updatedBy: string
}

interface AgentInstructionsRow {
  org_id: string
  instructions: string
  updated_at: string
  updated_by: string
}

/** The instructions an organization gives its AI agent: one document per organization. */
export class AgentInstructionsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  get(orgId: string): AgentInstructions | undefined {
    const row = this.db.prepare('SELECT * FROM agent_instructions WHERE org_id = ?').get(orgId) as AgentInstructionsRow | undefined
    return (
      row && {
        orgId: row.org_id,
        instructions: parseJson<JsonDocument>(row.instructions, { object: 'document', data: {}, nodes: [] }),
        updatedAt: row.updated_at,
        updatedBy: row.updated_by,
      }
    )
  }

  put(orgId: string, instructions: JsonDocument, userId: string): AgentInstructions {
    const record: AgentInstructions = { orgId, instructions, updatedAt: this.store.now(), updatedBy: userId }
    this.db
      .prepare(
        `INSERT INTO agent_instructions (org_id, instructions, updated_at, updated_by) VALUES (?, ?, ?, ?)
         ON CONFLICT(org_id) DO UPDATE SET instructions = excluded.instructions, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
      )
      .run(orgId, JSON.stringify(instructions), record.updatedAt, userId)
    return record
  }
}

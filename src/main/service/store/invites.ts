import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

/**
 * `link`: a reusable invite link anyone holding its id can join through. `email`: an invitation addressed
 * to one e-mail address, used up when its addressee joins.
 */
export type InviteKind = 'link' | 'email'

export interface Invite {
  id: string
  orgId: string
  kind: InviteKind
  /** Organization role, or the space level when `spaceId` is set; null invites a guest. */
  role: Role | null
  spaceId: string | null
  email: string | null
  createdBy: string | null
  createdAt: string
}

interface InviteRow {
  id: string
  org_id: string
  kind: InviteKind
  role: Role | null
  space_id: string | null
  email: string | null
  created_by: string | null
  created_at: string
}

const toInvite = (row: InviteRow): Invite => ({
  id: row.id,
  orgId: row.org_id,
  kind: row.kind,
  role: row.role,
  spaceId: row.space_id,
  email: row.email,
  createdBy: row.created_by,
  createdAt: row.created_at,
})

export class InvitesRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { orgId: string; kind: InviteKind; role: Role | null; spaceId?: string | null; email?: string | null; createdBy?: string }): Invite {
    const invite: Invite = {
      id: newId(),
      orgId: input.orgId,
      kind: input.kind,
      role: input.role,
      spaceId: input.spaceId ?? null,
      email: input.email ? input.email.toLowerCase() : null,
      createdBy: input.createdBy ?? null,
      createdAt: this.store.now(),
    }
    this.db
      .prepare(
        `INSERT INTO invites (id, org_id, kind, role, space_id, email, created_by, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(invite.id, invite.orgId, invite.kind, invite.role, invite.spaceId, invite.email, invite.createdBy, invite.createdAt)
    return invite
  }

  get(id: string): Invite | undefined {
    const row = this.db.prepare('SELECT * FROM invites WHERE id = ?').get(id) as InviteRow | undefined
    return row && toInvite(row)
  }

  /** The organization's invite of that kind, or undefined when the id names none. */
  inOrg(orgId: string, kind: InviteKind, id: string): Invite | undefined {
    const invite = this.get(id)
    return invite?.orgId === orgId && invite.kind === kind ? invite : undefined
  }

  /** Invites of the organization, oldest first; `spaceId` null keeps organization-wide ones only. */
  list(orgId: string, kind: InviteKind, scope: { spaceId: string | null | 'any' } = { spaceId: 'any' }): Invite[] {
    let rows: InviteRow[]
    if (scope.spaceId === 'any') {
      rows = this.db.prepare('SELECT * FROM invites WHERE org_id = ? AND kind = ? ORDER BY created_at, rowid').all(orgId, kind) as InviteRow[]
    } else if (scope.spaceId === null) {
      rows = this.db
        .prepare('SELECT * FROM invites WHERE org_id = ? AND kind = ? AND space_id IS NULL ORDER BY created_at, rowid')
        .all(orgId, kind) as InviteRow[]
    } else {
      rows = this.db
        .prepare('SELECT * FROM invites WHERE org_id = ? AND kind = ? AND space_id = ? ORDER BY created_at, rowid')
        .all(orgId, kind, scope.spaceId) as InviteRow[]
    }
    return rows.map(toInvite)
  }

  pendingEmailInvite(orgId: string, email: string): Invite | undefined {
    const row = this.db
      .prepare("SELECT * FROM invites WHERE org_id = ? AND kind = 'email' AND email = ? ORDER BY created_at DESC, rowid DESC LIMIT 1")
      .get(orgId, email.toLowerCase()) as InviteRow | undefined
    return row && toInvite(row)
  }

  setRole(id: string, role: Role | null): Invite {
    this.db.prepare('UPDATE invites SET role = ? WHERE id = ?').run(role, id)
    const invite = this.get(id)
    if (!invite) throw new Error(`invite ${id} does not exist`)
    return invite
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM invites WHERE id = ?').run(id).changes > 0
  }
}

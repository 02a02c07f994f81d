import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import { newId } from './ids'
import { parseJson } from './json'
import type { ServiceStore } from './service-store'

/** Organization fields kept as JSON: the API shape minus id, title, createdAt. */
export interface OrganizationData {
  emailDomains: string[]
  hostname?: string
  type: string
  useCase?: string
  communityType?: string
  defaultRole?: Role | null
  defaultContent?: { type: 'site'; site: string } | null
  sso?: boolean
  ai?: boolean
  inviteLinks: boolean
  plan: string
  mergeRules: { type: 'inherit' } | { type: 'rules'; rules: Array<{ rule: string; users: string[] }> } | Record<string, unknown>
  logo?: string | null
  customHostname?: string
}

export interface Organization {
  id: string
  title: string
  createdAt: string
  data: OrganizationData
}

interface OrganizationRow {
  id: string
  title: string
  created_at: string
  data: string
}

export interface OrgMember {
  userId: string
  role: Role | null
  joinedAt: string
}

const toOrganization = (row: OrganizationRow): Organization => ({
  id: row.id,
  title: row.title,
  createdAt: row.created_at,
  data: parseJson<OrganizationData>(row.data, { emailDomains: [], type: 'business', inviteLinks: true, plan: 'free_2024', mergeRules: { type: 'inherit' } }),
})

export class OrganizationsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { title: string; owner: string; id?: string; data?: Partial<OrganizationData> }): Organization {
    const org: Organization = {
      id: input.id ?? newId(),
      title: input.title,
      createdAt: this.store.now(),
      data: {
        emailDomains: [],
        type: 'business',
        inviteLinks: true,
        plan: 'free_2024',
        mergeRules: { type: 'rules', rules: [] },
        defaultRole: 'edit',
        ...input.data,
      },
    }
    this.store.transaction(() => {
      this.db
        .prepare('INSERT INTO organizations (id, title, created_at, data) VALUES (?, ?, ?, ?)')
        .run(org.id, org.title, org.createdAt, JSON.stringify(org.data))
      this.setMember(org.id, input.owner, 'admin')
    })
    return org
  }

  get(id: string): Organization | undefined {
    const row = this.db.prepare('SELECT * FROM organizations WHERE id = ?').get(id) as OrganizationRow | undefined
    return row && toOrganization(row)
  }

  all(): Organization[] {
    return (this.db.prepare('SELECT * FROM organizations ORDER BY created_at, rowid').all() as OrganizationRow[]).map(toOrganization)
  }

  forUser(userId: string): Organization[] {
    const rows = this.db
      .prepare(
        'SELECT o.* FROM organizations o JOIN org_members m ON m.org_id = o.id WHERE m.user_id = ? ORDER BY o.created_at, o.rowid',
      )
      .all(userId) as OrganizationRow[]
    return rows.map(toOrganization)
  }

  update(id: string, patch: { title?: string; data?: Partial<OrganizationData> }): Organization {
    const current = this.get(id)
    if (!current) throw new Error(`organization ${id} does not exist`)
    const title = patch.title ?? current.title
    const data = { ...current.data, ...patch.data }
    this.db.prepare('UPDATE organizations SET title = ?, data = ? WHERE id = ?').run(title, JSON.stringify(data), id)
    return { ...current, title, data }
  }

  member(orgId: string, userId: string): OrgMember | undefined {
    const row = this.db.prepare('SELECT user_id, role, joined_at FROM org_members WHERE org_id = ? AND user_id = ?').get(orgId, userId) as
      | { user_id: string; role: Role | null; joined_at: string }
      | undefined
    return row && { userId: row.user_id, role: row.role, joinedAt: row.joined_at }
  }

  members(orgId: string): OrgMember[] {
    const rows = this.db.prepare('SELECT user_id, role, joined_at FROM org_members WHERE org_id = ? ORDER BY joined_at, rowid').all(orgId) as Array<{
      user_id: string
      role: Role | null
      joined_at: string
    }>
    return rows.map((r) => ({ userId: r.user_id, role: r.role, joinedAt: r.joined_at }))
  }

  setMember(orgId: string, userId: string, role: Role | null) {
    this.db
      .prepare(
        'INSERT INTO org_members (org_id, user_id, role, joined_at) VALUES (?, ?, ?, ?) ON CONFLICT(org_id, user_id) DO UPDATE SET role = excluded.role',
      )
      .run(orgId, userId, role, this.store.now())
  }

  removeMember(orgId: string, userId: string) {
    this.db.prepare('DELETE FROM org_members WHERE org_id = ? AND user_id = ?').run(orgId, userId)
  }
}

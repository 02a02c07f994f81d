import type Database from 'better-sqlite3'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

export type TeamMemberRole = 'owner' | 'member'

export interface Team {
  id: string
  orgId: string
  title: string
  createdAt: string
}

export interface TeamMembership {
  teamId: string
  userId: string
  role: TeamMemberRole
  addedAt: string
}

interface TeamRow {
  id: string
  org_id: string
  title: string
  created_at: string
}

interface MembershipRow {
  team_id: string
  user_id: string
  role: TeamMemberRole
  added_at: string
}

const toTeam = (row: TeamRow): Team => ({ id: row.id, orgId: row.org_id, title: row.title, createdAt: row.created_at })
const toMembership = (row: MembershipRow): TeamMembership => ({ teamId: row.team_id, userId: row.user_id, role: row.role, addedAt: row.added_at })

/** Teams of an organization and who belongs to them. */
export class TeamsRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(input: { orgId: string; title: string; members?: Array<{ userId: string; role?: TeamMemberRole }>; id?: string }): Team {
    const team: Team = { id: input.id ?? newId(), orgId: input.orgId, title: input.title, createdAt: this.store.now() }
    this.store.transaction(() => {
      this.db.prepare('INSERT INTO teams (id, org_id, title, created_at) VALUES (?, ?, ?, ?)').run(team.id, team.orgId, team.title, team.createdAt)
      for (const m of input.members ?? []) this.setMember(team.id, m.userId, m.role ?? 'member')
    })
    return team
  }

  get(id: string): Team | undefined {
    const row = this.db.prepare('SELECT * FROM teams WHERE id = ?').get(id) as TeamRow | undefined
    return row && toTeam(row)
  }

  /** The organization's team, or undefined when the id names no team of that organization. */
  inOrg(orgId: string, id: string): Team | undefined {
    const team = this.get(id)
    return team?.orgId === orgId ? team : undefined
  }

  listByOrg(orgId: string): Team[] {
    return (this.db.prepare('SELECT * FROM teams WHERE org_id = ? ORDER BY created_at, rowid').all(orgId) as TeamRow[]).map(toTeam)
  }

  rename(id: string, title: string): Team {
    this.db.prepare('UPDATE teams SET title = ? WHERE id = ?').run(title, id)
    const team = this.get(id)
    if (!team) throw new Error(`team ${id} does not exist`)
    return team
  }

  /** Deletes the team; its memberships, space grants and SAML default go with it (schema cascades). */
  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM teams WHERE id = ?').run(id).changes > 0
  }

  memberCount(teamId: string): number {
    return (this.db.prepare('SELECT COUNT(*) AS n FROM team_members WHERE team_id = ?').get(teamId) as { n: number }).n
  }

  /** Spaces (not deleted) the team holds a permission on. */
  spaceCount(teamId: string): number {
    const row = this.db
      .prepare('SELECT COUNT(*) AS n FROM space_teams st JOIN spaces s ON s.id = st.space_id WHERE st.team_id = ? AND s.deleted_at IS NULL')
      .get(teamId) as { n: number }
    return row.n
  }

  members(teamId: string): TeamMembership[] {
    const rows = this.db.prepare('SELECT * FROM team_members WHERE team_id = ? ORDER BY added_at, rowid').all(teamId) as MembershipRow[]
    return rows.map(toMembership)
  }

  membership(teamId: string, userId: string): TeamMembership | undefined {
    const row = this.db.prepare('SELECT * FROM team_members WHERE team_id = ? AND user_id = ?').get(teamId, userId) as MembershipRow | undefined
    return row && toMembership(row)
  }

  /** Teams of the organization the user belongs to, with the user's role in each. */
  teamsOfUser(orgId: string, userId: string): Array<{ team: Team; role: TeamMemberRole }> {
    const rows = this.db
      .prepare(
        `SELECT t.*, m.role AS member_role FROM teams t JOIN team_members m ON m.team_id = t.id
         WHERE t.org_id = ? AND m.user_id = ? ORDER BY t.created_at, t.rowid`,
      )
      .all(orgId, userId) as Array<TeamRow & { member_role: TeamMemberRole }>
    return rows.map((row) => ({ team: toTeam(row), role: row.member_role }))
  }

  /** Adds the user to the team, or changes their role when already in it. */
  setMember(teamId: string, userId: string, role: TeamMemberRole) {
    this.db
      .prepare(
        `INSERT INTO team_members (team_id, user_id, role, added_at) VALUES (?, ?, ?, ?)
         ON CONFLICT(team_id, user_id) DO UPDATE SET role = excluded.role`,
      )
      .run(teamId, userId, role, this.store.now())
  }

  removeMember(teamId: string, userId: string): boolean {
    return this.db.prepare('DELETE FROM team_members WHERE team_id = ? AND user_id = ?').run(teamId, userId).changes > 0
  }
}

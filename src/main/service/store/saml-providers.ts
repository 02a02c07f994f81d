import type Database from 'better-sqlite3'
import type { Role } from '../access/roles'
import { newId } from './ids'
import type { ServiceStore } from './service-store'

export interface SamlProvider {
  id: string
  orgId: string
  label: string
  entityId: string | null
  certificate: string | null
  ssoUrl: string | null
  defaultTeam: string | null
  defaultRole: Role | null
  createdAt: string
}

/** Fields a create or patch may set; `undefined` leaves a field as it is. */
export interface SamlProviderFields {
  label?: string
  entityId?: string
  certificate?: string
  ssoUrl?: string
  defaultTeam?: string
  defaultRole?: Role | null
}

interface SamlProviderRow {
  id: string
  org_id: string
  label: string
  entity_id: string | null
  certificate: string | null
  sso_url: string | null
  default_team: string | null
  default_role: Role | null
  created_at: string
}

const toProvider = (row: SamlProviderRow): SamlProvider => ({
  id: row.id,
  orgId: row.org_id,
  label: row.label,
  entityId: row.entity_id,
  certificate: row.certificate,
  ssoUrl: row.sso_url,
  defaultTeam: row.default_team,
  defaultRole: row.default_role,
  createdAt: row.created_at,
})

/** SAML identity providers an organization's members may sign in with. */
export class SamlProvidersRepository {
  constructor(
    private readonly db: Database.Database,
    private readonly store: ServiceStore,
  ) {}

  create(orgId: string, fields: SamlProviderFields & { label: string; defaultRole: Role | null }): SamlProvider {
    const provider: SamlProvider = {
      id: newId(),
      orgId,
      label: fields.label,
      entityId: fields.entityId ?? null,
      certificate: fields.certificate ?? null,
      ssoUrl: fields.ssoUrl ?? null,
      defaultTeam: fields.defaultTeam ?? null,
      defaultRole: fields.defaultRole,
      createdAt: this.store.now(),
    }
    this.db
      .prepare(
        `INSERT INTO saml_providers (id, org_id, label, entity_id, certificate, sso_url, default_team, default_role, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        provider.id,
        orgId,
        provider.label,
        provider.entityId,
        provider.certificate,
        provider.ssoUrl,
        provider.defaultTeam,
        provider.defaultRole,
        provider.createdAt,
      )
    return provider
  }

  get(id: string): SamlProvider | undefined {
    const row = this.db.prepare('SELECT * FROM saml_providers WHERE id = ?').get(id) as SamlProviderRow | undefined
    return row && toProvider(row)
  }

  inOrg(orgId: string, id: string): SamlProvider | undefined {
    const provider = this.get(id)
    return provider?.orgId === orgId ? provider : undefined
  }

  listByOrg(orgId: string): SamlProvider[] {
    return (this.db.prepare('SELECT * FROM saml_providers WHERE org_id = ? ORDER BY created_at, rowid').all(orgId) as SamlProviderRow[]).map(
      toProvider,
    )
  }

  update(id: string, fields: SamlProviderFields): SamlProvider {
    const current = this.get(id)
    if (!current) throw new Error(`SAML provider ${id} does not exist`)
    const next: SamlProvider = {
      ...current,
      label: fields.label ?? current.label,
      entityId: fields.entityId ?? current.entityId,
      certificate: fields.certificate ?? current.certificate,
      ssoUrl: fields.ssoUrl ?? current.ssoUrl,
      defaultTeam: fields.defaultTeam ?? current.defaultTeam,
      defaultRole: fields.defaultRole === undefined ? current.defaultRole : fields.defaultRole,
    }
    this.db
      .prepare('UPDATE saml_providers SET label = ?, entity_id = ?, certificate = ?, sso_url = ?, default_team = ?, default_role = ? WHERE id = ?')
      .run(next.label, next.entityId, next.certificate, next.ssoUrl, next.defaultTeam, next.defaultRole, id)
    return next
  }

  delete(id: string): boolean {
    return this.db.prepare('DELETE FROM saml_providers WHERE id = ?').run(id).changes > 0
  }
}

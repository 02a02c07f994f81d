import type { Migration } from '../../../db/migrate'

// Organization administration: teams and their members, invites, SAML providers, custom fonts and
// agent instructions. Everything here belongs to one organization and goes with it (ON DELETE CASCADE).
export const migration002OrgAdmin: Migration = {
  version: 2,
  name: 'org-admin',
  up(db) {
    db.exec(`
      CREATE TABLE teams (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        title TEXT NOT NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX teams_org ON teams(org_id);
      CREATE TABLE team_members (
        team_id TEXT NOT NULL REFERENCES teams(id) ON DELETE CASCADE,
        user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
        role TEXT NOT NULL CHECK (role IN ('owner', 'member')),
        added_at TEXT NOT NULL,
        PRIMARY KEY (team_id, user_id)
      );
      CREATE INDEX team_members_user ON team_members(user_id);
      -- space_teams predates the teams table (001), so it cannot reference it; these keep it consistent.
      CREATE TRIGGER teams_delete_grants AFTER DELETE ON teams BEGIN
        DELETE FROM space_teams WHERE team_id = OLD.id;
      END;
      -- Leaving an organization means leaving its teams.
      CREATE TRIGGER org_members_delete_teams AFTER DELETE ON org_members BEGIN
        DELETE FROM team_members
        WHERE user_id = OLD.user_id AND team_id IN (SELECT id FROM teams WHERE org_id = OLD.org_id);
      END;

      CREATE TABLE invites (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        kind TEXT NOT NULL CHECK (kind IN ('link', 'email')),
        -- Organization role for organization invites, space level for space invites (NULL: guest).
        role TEXT,
        space_id TEXT REFERENCES spaces(id) ON DELETE CASCADE,
        email TEXT,
        created_by TEXT REFERENCES users(id) ON DELETE SET NULL,
        created_at TEXT NOT NULL
      );
      CREATE INDEX invites_org ON invites(org_id, kind);

      CREATE TABLE saml_providers (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        label TEXT NOT NULL,
        entity_id TEXT,
        certificate TEXT,
        sso_url TEXT,
        default_team TEXT REFERENCES teams(id) ON DELETE SET NULL,
        default_role TEXT,
        created_at TEXT NOT NULL
      );
      CREATE INDEX saml_providers_org ON saml_providers(org_id);

      CREATE TABLE custom_fonts (
        id TEXT PRIMARY KEY,
        org_id TEXT NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        font_family TEXT NOT NULL,
        faces TEXT NOT NULL,
        created_at TEXT NOT NULL,
        updated_at TEXT NOT NULL
      );
      CREATE INDEX custom_fonts_org ON custom_fonts(org_id);

      CREATE TABLE agent_instructions (
        org_id TEXT PRIMARY KEY REFERENCES organizations(id) ON DELETE CASCADE,
        instructions TEXT NOT NULL,
        updated_at TEXT NOT NULL,
        updated_by TEXT NOT NULL
      );
    `)
  },
}

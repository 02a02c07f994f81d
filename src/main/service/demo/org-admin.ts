import { CustomFontsRepository } from '../store/fonts'
import { SamlProvidersRepository } from '../store/saml-providers'
import type { ServiceStore } from '../store/service-store'
import { TeamsRepository } from '../store/teams'

// Illustrative certificate text: it completes the provider's configuration so the demo shows an
// `active` provider. The local service never verifies SAML assertions, so no real key pair is needed.
const DEMO_CERTIFICATE = [
  'MIIBszCCAVmgAwIBAgIUQ3VpcmVEZW1vU0FNTENlcnQwCgYIKoZIzj0EAwIwGjEYMBYGA1UEAwwPUXVpcmUgRGVtbyBJZFAw',
  'HhcNMjQwMTAxMDAwMDAwWhcNMzQwMTAxMDAwMDAwWjAaMRgwFgYDVQQDDA9RdWlyZSBEZW1vIElkUDBZMBMGByqGSM49AgEG',
].join('')

/**
 * Adds the organization-admin part of the demo: a team the owner leads, an active SAML provider whose
 * new members land in that team, and a custom font with the required regular and bold faces.
 */
export function seedOrgAdminDemo(store: ServiceStore, orgId: string, ownerId: string) {
  store.transaction(() => {
    const team = store.repo(TeamsRepository).create({ orgId, title: 'Docs writers', members: [{ userId: ownerId, role: 'owner' }] })
    store.repo(SamlProvidersRepository).create(orgId, {
      label: 'Demo identity provider',
      entityId: 'https://idp.quire.local/metadata',
      certificate: DEMO_CERTIFICATE,
      ssoUrl: 'https://idp.quire.local/sso',
      defaultTeam: team.id,
      defaultRole: 'read',
    })
    store.repo(CustomFontsRepository).create(orgId, 'Quire Sans', [
      { weight: 400, storageKey: 'fonts/quire-sans/regular.woff2' },
      { weight: 700, storageKey: 'fonts/quire-sans/bold.woff2' },
    ])
  })
}

import type { SamlProvider } from '../../store/saml-providers'
import type { ServiceStore } from '../../store/service-store'
import { TeamsRepository } from '../../store/teams'
import { apiUrl } from '../urls'
import { teamJson } from './team'

/**
 * A provider can sign people in only once the identity provider side is fully known: its sign-in URL,
 * its entity id and its signing certificate. Until then it is `pending`.
 */
export function samlStatus(provider: SamlProvider): 'active' | 'pending' {
  return provider.ssoUrl && provider.entityId && provider.certificate ? 'active' : 'pending'
}

/**
 * The service-provider side a SAML identity provider is configured with. Quire's local service names
 * these endpoints under its own origin; it does not run SAML sign-ins, so nothing answers at them.
 */
export function samlServiceUrls(origin: string, provider: SamlProvider) {
  const base = `${origin}/sso/saml/${provider.orgId}/${provider.id}`
  return { acsURL: `${base}/acs`, startURL: `${base}/start`, entityID: `${base}/metadata` }
}

// The spec requires `ssoURL` to be a URI even before it is configured; `about:blank` is the URI that
// names nothing, and `status: pending` says the provider is not usable yet.
const UNSET_SSO_URL = 'about:blank'

/** The spec's `OrganizationSAMLProvider` as the caller sees it. */
export function samlProviderJson(store: ServiceStore, provider: SamlProvider, userId: string, origin: string) {
  const team = provider.defaultTeam ? store.repo(TeamsRepository).get(provider.defaultTeam) : undefined
  return {
    object: 'saml-provider' as const,
    id: provider.id,
    label: provider.label,
    ssoURL: provider.ssoUrl ?? UNSET_SSO_URL,
    entityID: provider.entityId ?? '',
    certificate: provider.certificate ?? '',
    ...(team ? { defaultTeam: teamJson(store, team, userId) } : {}),
    defaultRole: provider.defaultRole,
    createdAt: provider.createdAt,
    status: samlStatus(provider),
    service: samlServiceUrls(origin, provider),
    urls: { location: apiUrl(origin, `/orgs/${provider.orgId}/saml/${provider.id}`) },
  }
}

/** The spec's `OrganizationSSOProviderLogin`: what a sign-in page needs to offer the provider. */
export function ssoLoginJson(provider: SamlProvider, origin: string) {
  return { id: provider.id, label: provider.label, startURL: samlServiceUrls(origin, provider).startURL }
}

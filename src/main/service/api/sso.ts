import type { Role } from '../access/roles'
import { created, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { OrganizationsRepository } from '../store/organizations'
import { SamlProvidersRepository, type SamlProvider, type SamlProviderFields } from '../store/saml-providers'
import { TeamsRepository } from '../store/teams'
import { deleted } from './serializers/deleted'
import { orgForAdmin } from './serializers/org-admin-access'
import { samlProviderJson, samlStatus, ssoLoginJson } from './serializers/saml-provider'

interface SamlBody {
  label?: string
  entityID?: string
  certificate?: string
  ssoURL?: string
  defaultTeam?: string
  defaultRole?: Role | null
}

function isHttpUrl(text: string): boolean {
  try {
    return /^https?:$/.test(new URL(text).protocol)
  } catch {
    return false
  }
}

/** Turns the request body into stored fields; lengths and the URI format are checked by the spec schema. */
function fieldsOf(ctx: RequestContext, orgId: string, body: SamlBody): SamlProviderFields {
  if (body.label !== undefined && body.label.trim() === '') throw badRequest('body/label must not be blank')
  if (body.defaultTeam !== undefined && !ctx.store.repo(TeamsRepository).inOrg(orgId, body.defaultTeam)) {
    throw badRequest(`body/defaultTeam: no team ${body.defaultTeam} in this organization`)
  }
  if (body.ssoURL !== undefined && !isHttpUrl(body.ssoURL)) {
    throw badRequest('body/ssoURL must be an http(s) URL: identity providers are reached over HTTP')
  }
  return {
    label: body.label,
    entityId: body.entityID,
    certificate: body.certificate,
    ssoUrl: body.ssoURL,
    defaultTeam: body.defaultTeam,
    defaultRole: body.defaultRole,
  }
}

function providerOf(ctx: RequestContext, orgId: string): SamlProvider {
  const provider = ctx.store.repo(SamlProvidersRepository).inOrg(orgId, ctx.params.samlProviderId)
  if (!provider) throw notFound(`No SAML provider ${ctx.params.samlProviderId} in this organization`)
  return provider
}

const listProviders: Route = {
  operationId: 'listSAMLProvidersInOrganizationById',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const providers = ctx.store.repo(SamlProvidersRepository).listByOrg(org.id)
    return ok(paginate(providers, ctx.query, (p) => samlProviderJson(ctx.store, p, ctx.user.id, ctx.origin)))
  },
}

const createProvider: Route = {
  operationId: 'createOrganizationSAMLProvider',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const fields = fieldsOf(ctx, org.id, ctx.body as SamlBody)
    // New SSO members get the organization's default role unless the provider names one.
    const defaultRole = fields.defaultRole === undefined ? (org.data.defaultRole ?? null) : fields.defaultRole
    const provider = ctx.store.repo(SamlProvidersRepository).create(org.id, { ...fields, label: fields.label ?? '', defaultRole })
    const json = samlProviderJson(ctx.store, provider, ctx.user.id, ctx.origin)
    return { ...created(json), headers: { Location: json.urls.location } }
  },
}

const getProvider: Route = {
  operationId: 'getOrganizationSAMLProviderById',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    return ok(samlProviderJson(ctx.store, providerOf(ctx, org.id), ctx.user.id, ctx.origin))
  },
}

const updateProvider: Route = {
  operationId: 'updateOrganizationSAMLProvider',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const provider = providerOf(ctx, org.id)
    const updated = ctx.store.repo(SamlProvidersRepository).update(provider.id, fieldsOf(ctx, org.id, ctx.body as SamlBody))
    return ok(samlProviderJson(ctx.store, updated, ctx.user.id, ctx.origin))
  },
}

const deleteProvider: Route = {
  operationId: 'deleteOrganizationSAMLProvider',
  handler: (ctx) => {
    const { org } = orgForAdmin(ctx)
    const providers = ctx.store.repo(SamlProvidersRepository)
    const provider = providers.inOrg(org.id, ctx.params.samlProviderId)
    return deleted(!!provider && providers.delete(provider.id))
  },
}

/**
 * Sign-in choices for an organization. People look these up before they are members (that is how they
 * sign in), so any signed-in caller may read them; only `active` providers are offered.
 */
const listLogins: Route = {
  operationId: 'listSSOProviderLoginsInOrganization',
  handler: (ctx) => {
    const org = ctx.store.repo(OrganizationsRepository).get(ctx.params.organizationId)
    if (!org) throw notFound(`No organization ${ctx.params.organizationId}`)
    const providers = ctx.store
      .repo(SamlProvidersRepository)
      .listByOrg(org.id)
      .filter((p) => samlStatus(p) === 'active')
    return ok({ items: providers.map((p) => ssoLoginJson(p, ctx.origin)) })
  },
}

export const ssoRoutes: Route[] = [listProviders, createProvider, getProvider, updateProvider, deleteProvider, listLogins]

import { created, ok, type RequestContext, type Route } from '../http/context'
import { badRequest, conflict, forbidden, notFound } from '../http/errors'
import { paginate } from '../http/pagination'
import { newProcessToken, processTextSpec, processUrlSpec } from '../openapi/processing'
import { OpenApiSpecsRepository, type OpenApiSource, type OpenApiSpec, type OpenApiVisibility } from '../store/openapi-specs'
import { openApiSpecContentJson, openApiSpecJson, openApiSpecRawContentJson, openApiSpecVersionJson } from './serializers/openapi-spec'
import { organizationPermissions } from './serializers/organization'
import { orgForMember, type OrgCaller } from './serializers/org-admin-access'
import { deleteIfFound } from './delete-if-found'

/** Spec `OpenAPISpecSlug`; the PUT path parameter is a plain string in the spec, so it is checked here. */
const SLUG_PATTERN = /^[a-zA-Z0-9]+(?:-[a-zA-Z0-9]+)*$/
const SLUG_MAX = 100

/** Writing specs is what the organization's `permissions.createOpenAPISpec` flag announces. */
const canEdit = (caller: OrgCaller) => organizationPermissions(caller.member).createOpenAPISpec

function editor(ctx: RequestContext): OrgCaller {
  const caller = orgForMember(ctx)
  if (!canEdit(caller)) throw forbidden('Managing OpenAPI specifications needs the create role in the organization')
  return caller
}

const findSpec = (ctx: RequestContext, caller: OrgCaller) => ctx.store.repo(OpenApiSpecsRepository).bySlug(caller.org.id, ctx.params.specSlug)

function specOr404(ctx: RequestContext, caller: OrgCaller): OpenApiSpec {
  const spec = findSpec(ctx, caller)
  if (!spec) throw notFound(`No OpenAPI specification ${ctx.params.specSlug} in this organization`)
  return spec
}

/** The request schema accepts any URI; only http(s) can be fetched. */
function checkedSource(body: { source: OpenApiSource }): OpenApiSource {
  const source = body.source
  if ('url' in source) {
    let protocol: string
    try {
      protocol = new URL(source.url).protocol
    } catch {
      throw badRequest('body/source/url must be an absolute URL')
    }
    if (protocol !== 'http:' && protocol !== 'https:') throw badRequest('body/source/url must be an http or https URL')
    return { url: source.url }
  }
  return { text: source.text }
}

/**
 * Stores the spec with `write` and starts processing it. Text needs no I/O, so it is processed in the same
 * transaction and the response shows the result; a URL is fetched after the response is sent.
 */
function writeAndProcess(ctx: RequestContext, write: (token: string) => OpenApiSpec): OpenApiSpec {
  const token = newProcessToken()
  const spec = ctx.store.transaction(() => {
    const stored = write(token)
    return 'text' in stored.source ? processTextSpec(ctx.store, stored, token, stored.source.text) : stored
  })
  const source = spec.source
  if ('url' in source) ctx.defer(() => processUrlSpec(ctx.store, spec.id, token, source.url))
  return spec
}

function specJson(ctx: RequestContext, caller: OrgCaller, spec: OpenApiSpec) {
  return openApiSpecJson(spec, ctx.origin, canEdit(caller))
}

function latestVersion(ctx: RequestContext, spec: OpenApiSpec) {
  const version = spec.lastVersionId ? ctx.store.repo(OpenApiSpecsRepository).version(spec.id, spec.lastVersionId) : undefined
  if (!version) throw notFound(`OpenAPI specification ${spec.slug} has no processed version yet`)
  return version
}

function versionById(ctx: RequestContext, spec: OpenApiSpec) {
  const version = ctx.store.repo(OpenApiSpecsRepository).version(spec.id, ctx.params.versionId)
  if (!version) throw notFound(`No version ${ctx.params.versionId} of OpenAPI specification ${spec.slug}`)
  return version
}

export const openApiSpecRoutes: Route[] = [
  {
    operationId: 'listOpenAPISpecs',
    handler: (ctx) => {
      const caller = orgForMember(ctx)
      const specs = ctx.store.repo(OpenApiSpecsRepository).listByOrg(caller.org.id)
      return ok(paginate(specs, ctx.query, (spec) => specJson(ctx, caller, spec)))
    },
  },
  {
    operationId: 'createOpenAPISpec',
    handler: (ctx) => {
      const caller = editor(ctx)
      const body = ctx.body as { slug: string; source: OpenApiSource }
      const source = checkedSource(body)
      const repo = ctx.store.repo(OpenApiSpecsRepository)
      if (repo.bySlug(caller.org.id, body.slug)) throw conflict(`An OpenAPI specification with slug ${body.slug} already exists`)
      const spec = writeAndProcess(ctx, (token) => repo.create({ orgId: caller.org.id, slug: body.slug, source, processToken: token }))
      return created(specJson(ctx, caller, spec))
    },
  },
  {
    operationId: 'getOpenAPISpecBySlug',
    handler: (ctx) => {
      const caller = orgForMember(ctx)
      return ok(specJson(ctx, caller, specOr404(ctx, caller)))
    },
  },
  {
    operationId: 'createOrUpdateOpenAPISpecBySlug',
    handler: (ctx) => {
      const caller = editor(ctx)
      const slug = ctx.params.specSlug
      if (slug.length > SLUG_MAX || !SLUG_PATTERN.test(slug)) {
        throw badRequest(`path/specSlug must match ${SLUG_PATTERN.source} and be at most ${SLUG_MAX} characters`)
      }
      const source = checkedSource(ctx.body as { source: OpenApiSource })
      const repo = ctx.store.repo(OpenApiSpecsRepository)
      const existing = repo.bySlug(caller.org.id, slug)
      if (existing) return ok(specJson(ctx, caller, writeAndProcess(ctx, (token) => repo.replaceSource(existing.id, source, token))))
      const spec = writeAndProcess(ctx, (token) => repo.create({ orgId: caller.org.id, slug, source, processToken: token }))
      return created(specJson(ctx, caller, spec))
    },
  },
  {
    operationId: 'updateOpenAPISpecBySlug',
    handler: (ctx) => {
      const caller = editor(ctx)
      const spec = specOr404(ctx, caller)
      const { visibility } = ctx.body as { visibility: OpenApiVisibility }
      return ok(specJson(ctx, caller, ctx.store.repo(OpenApiSpecsRepository).setVisibility(spec.id, visibility)))
    },
  },
  {
    operationId: 'deleteOpenAPISpecBySlug',
    handler: (ctx) => {
      const caller = editor(ctx)
      return deleteIfFound(findSpec(ctx, caller), (spec) => ctx.store.repo(OpenApiSpecsRepository).delete(spec.id))
    },
  },
  {
    operationId: 'listOpenAPISpecVersions',
    handler: (ctx) => {
      const caller = orgForMember(ctx)
      const spec = specOr404(ctx, caller)
      const versions = ctx.store.repo(OpenApiSpecsRepository).versions(spec.id)
      return ok(paginate(versions, ctx.query, (version) => openApiSpecVersionJson(spec, version, ctx.origin)))
    },
  },
  {
    operationId: 'getLatestOpenAPISpecVersion',
    handler: (ctx) => {
      const spec = specOr404(ctx, orgForMember(ctx))
      return ok(openApiSpecVersionJson(spec, latestVersion(ctx, spec), ctx.origin))
    },
  },
  {
    operationId: 'getLatestOpenAPISpecVersionContent',
    handler: (ctx) => {
      const spec = specOr404(ctx, orgForMember(ctx))
      return ok(openApiSpecContentJson(spec, latestVersion(ctx, spec), ctx.origin))
    },
  },
  {
    operationId: 'getLatestOpenAPISpecVersionContentRaw',
    handler: (ctx) => {
      const spec = specOr404(ctx, orgForMember(ctx))
      return ok(openApiSpecRawContentJson(latestVersion(ctx, spec)))
    },
  },
  {
    operationId: 'getOpenAPISpecVersionById',
    handler: (ctx) => {
      const spec = specOr404(ctx, orgForMember(ctx))
      return ok(openApiSpecVersionJson(spec, versionById(ctx, spec), ctx.origin))
    },
  },
  {
    operationId: 'getOpenAPISpecVersionContentById',
    handler: (ctx) => {
      const spec = specOr404(ctx, orgForMember(ctx))
      return ok(openApiSpecContentJson(spec, versionById(ctx, spec), ctx.origin))
    },
  },
]

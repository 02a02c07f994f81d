import { parseOpenApiText } from '../../openapi/parse-spec'
import type { OpenApiSpec, OpenApiSpecVersion } from '../../store/openapi-specs'
import { apiUrl, appUrl, publishedUrl } from '../urls'

const specPath = (spec: OpenApiSpec) => `/orgs/${spec.orgId}/openapi/${encodeURIComponent(spec.slug)}`

/** The spec's `OpenAPISpec` object; `canEdit` comes from the same check the write handlers make. */
export function openApiSpecJson(spec: OpenApiSpec, origin: string, canEdit: boolean) {
  return {
    object: 'openapi-spec' as const,
    id: spec.id,
    createdAt: spec.createdAt,
    updatedAt: spec.updatedAt,
    slug: spec.slug,
    ...('url' in spec.source ? { sourceURL: spec.source.url } : {}),
    processingState: spec.processingState,
    visibility: spec.visibility,
    ...(spec.lastVersionId ? { lastVersion: spec.lastVersionId } : {}),
    ...(spec.lastProcessedAt ? { lastProcessedAt: spec.lastProcessedAt } : {}),
    ...(spec.lastErrorCode ? { lastProcessErrorCode: spec.lastErrorCode } : {}),
    lastProcessedErrors: spec.lastErrors,
    lastProcessedErrorCount: spec.lastErrorCount,
    permissions: { view: true, edit: canEdit },
    urls: {
      location: apiUrl(origin, specPath(spec)),
      app: appUrl(origin, specPath(spec)),
      ...(spec.visibility === 'public' ? { published: publishedUrl(origin, specPath(spec)) } : {}),
    },
  }
}

const versionPath = (spec: OpenApiSpec, version: OpenApiSpecVersion) => `${specPath(spec)}/versions/${version.id}`

/**
 * Where the version's text can be read: the URL it was fetched from, or (for text given in a request)
 * the version's content in this API.
 */
function versionSourceUrl(spec: OpenApiSpec, version: OpenApiSpecVersion, origin: string): string {
  return version.url ?? apiUrl(origin, `${versionPath(spec, version)}/content`)
}

export function openApiSpecVersionJson(spec: OpenApiSpec, version: OpenApiSpecVersion, origin: string) {
  return {
    object: 'openapi-spec-version' as const,
    id: version.id,
    createdAt: version.createdAt,
    url: versionSourceUrl(spec, version, origin),
    urls: { location: apiUrl(origin, versionPath(spec, version)) },
  }
}

/**
 * The spec's `OpenAPISpecContent`. `filesystem` maps the entry file to its parsed document (this service
 * stores single-file specifications). `public` is the source URL of a public spec fetched from a URL; a
 * spec given as text has no public address here (this service has no unauthenticated proxy), so null.
 */
export function openApiSpecContentJson(spec: OpenApiSpec, version: OpenApiSpecVersion, origin: string) {
  const parsed = parseOpenApiText(version.text)
  const entrypoint = `openapi.${version.format}`
  return {
    filesystem: { entrypoint, files: { [entrypoint]: parsed.ok ? parsed.document : {} } },
    urls: {
      source: versionSourceUrl(spec, version, origin),
      public: spec.visibility === 'public' && version.url ? version.url : null,
    },
  }
}

export function openApiSpecRawContentJson(version: OpenApiSpecVersion) {
  return { text: version.text, format: version.format }
}

import Ajv from 'ajv'
import { ok, type RequestContext, type Route } from '../http/context'
import { ApiError, badRequest, notFound } from '../http/errors'
import { SitesRepository } from '../store/sites'
import { loadSite } from './site-access'

type JsonObject = Record<string, unknown>

interface Claim {
  type?: string
  description?: string
  enum?: string[]
  items?: Claim
  properties?: Record<string, Claim>
}

// Claims are read in conditions as `visitor.claims.<name>`: names must be plain identifiers.
const CLAIM_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/
const draft07 = new Ajv({ strict: true, allErrors: true })

/**
 * Failures the document names `Unexpected Error`: anything but a deliberate answer becomes a 500 with
 * that name, not a crash.
 */
function unexpected<T>(what: string, run: () => T): T {
  try {
    return run()
  } catch (error) {
    if (error instanceof ApiError) throw error
    throw new ApiError(500, `Unexpected Error: ${what}: ${error instanceof Error ? error.message : String(error)}`)
  }
}

/** What the published schema cannot say: claim names, enum values, and that draft-07 compiles it. */
function checkSchema(schema: JsonObject) {
  const visit = (claims: Record<string, Claim>, where: string) => {
    for (const [name, claim] of Object.entries(claims)) {
      const path = `${where}/${name}`
      if (!CLAIM_NAME.test(name)) throw badRequest(`${path}: claim names must be identifiers (letters, digits, _) to be usable in conditions`)
      const values = claim.enum ?? claim.items?.enum
      if (values) {
        if (values.length === 0) throw badRequest(`${path}: enum must list at least one value`)
        if (new Set(values).size !== values.length) throw badRequest(`${path}: enum lists a value twice`)
      }
      if (claim.properties) visit(claim.properties, `${path}/properties`)
    }
  }
  visit((schema.properties ?? {}) as Record<string, Claim>, 'body/jsonSchema/properties')
  try {
    draft07.compile(schema)
    // Compiled only to be checked: drop it from Ajv's cache so schemas do not pile up.
    draft07.removeSchema(schema)
  } catch (error) {
    throw badRequest(`body/jsonSchema is not a valid JSON Schema draft-07: ${error instanceof Error ? error.message : String(error)}`)
  }
}

function readSchema(ctx: RequestContext, siteId: string): { jsonSchema: JsonObject; updatedAt: string } | undefined {
  const stored = ctx.store.repo(SitesRepository).adaptiveSchemaText(siteId)
  if (!stored) return undefined
  const parsed: unknown = JSON.parse(stored.text)
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('the stored schema is not a JSON object')
  return { jsonSchema: parsed as JsonObject, updatedAt: stored.updatedAt }
}

function templateConditions(claims: Record<string, Claim>, prefix: string): Array<{ description: string; condition: string }> {
  return Object.entries(claims).flatMap(([name, claim]) => {
    const path = `${prefix}.${name}`
    const label = claim.description || name
    if (claim.type === 'boolean') return [{ description: label, condition: `${path} === true` }]
    if (claim.type === 'string' && claim.enum) return claim.enum.map((v) => ({ description: `${label}: ${v}`, condition: `${path} === ${JSON.stringify(v)}` }))
    if (claim.type === 'array' && claim.items?.enum) {
      return claim.items.enum.map((v) => ({ description: `${label} includes ${v}`, condition: `${path}.includes(${JSON.stringify(v)})` }))
    }
    if (claim.type === 'object' && claim.properties) return templateConditions(claim.properties, path)
    // Free strings and numbers have no value to suggest a condition for.
    return []
  })
}

export const siteAdaptiveSchemaRoutes: Route[] = [
  {
    operationId: 'getSiteAdaptiveSchema',
    handler: (ctx) => {
      const { site } = loadSite(ctx, 'read')
      const stored = unexpected(`reading the adaptive schema of site ${site.id}`, () => readSchema(ctx, site.id))
      if (!stored) throw notFound(`Site ${site.id} has no visitor attributes schema`)
      return ok({ object: 'site-adaptive-schema', ...stored })
    },
  },
  {
    operationId: 'updateSiteAdaptiveSchema',
    handler: (ctx) => {
      const { site } = loadSite(ctx, 'admin')
      const jsonSchema = (ctx.body as { jsonSchema: JsonObject }).jsonSchema
      checkSchema(jsonSchema)
      const updatedAt = unexpected(`saving the adaptive schema of site ${site.id}`, () => ctx.store.repo(SitesRepository).setAdaptiveSchema(site.id, jsonSchema))
      return ok({ object: 'site-adaptive-schema', jsonSchema, updatedAt })
    },
  },
  {
    operationId: 'listSiteAdaptiveTemplateConditions',
    handler: (ctx) => {
      const { site } = loadSite(ctx, 'read')
      const stored = unexpected(`reading the adaptive schema of site ${site.id}`, () => readSchema(ctx, site.id))
      const claims = (stored?.jsonSchema.properties ?? {}) as Record<string, Claim>
      return ok({ items: templateConditions(claims, 'visitor.claims') })
    },
  },
]

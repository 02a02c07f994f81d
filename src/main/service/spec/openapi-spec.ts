import { createRequire } from 'node:module'
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js'
import addFormats from 'ajv-formats'
import { extraOperations } from './extra'
import type { JsonSchema, OperationSpec, ParameterSpec } from './types'

interface RawOperation {
  operationId?: string
  parameters?: unknown[]
  requestBody?: { required?: boolean; content?: Record<string, { schema?: JsonSchema }> }
  responses?: Record<string, { $ref?: string; content?: Record<string, { schema?: JsonSchema }> }>
}
interface RawSpec {
  paths: Record<string, Record<string, RawOperation | unknown[]>>
  components: Record<string, Record<string, unknown>>
}

const require = createRequire(import.meta.url)

/**
 * The one place the service reads the published spec other than literally (issue 26). A document page's
 * content is `Document`: `oneOf` markdown, a JSON document, or "Empty", the form of a page named without
 * its content (a page answer's subpages; the hosted service's trees, read page by page). The published
 * "Empty" is `{properties: {}, additionalProperties: false}` inside the page's `allOf`, where it sees the
 * whole page object: it rejects every page (each has an `id`), so no page could go without content. Read
 * as its title says: an object with neither `markdown` nor `document`. Self-contained (no imports, no
 * closure): its source is sent to the validators' workers (worker-ajv.ts), which read the spec themselves.
 */
export function applySpecErrata(components: Record<string, Record<string, unknown>>): void {
  // Issue 29: a `page_edited` change's `attributes` is `oneOf` the document, group and link page's
  // attributes, three open objects of `minProperties: 1` that every non-empty object matches: no edit could
  // be told. Read as the page's type picks one: `anyOf`.
  const edited = components.schemas?.RevisionSemanticChangePageEdited as { properties?: { attributes?: Record<string, unknown> } } | undefined
  const attributes = edited?.properties?.attributes
  if (attributes && Array.isArray(attributes.oneOf)) {
    attributes.anyOf = attributes.oneOf
    delete attributes.oneOf
  }
  const document = components.schemas?.Document as { oneOf?: Array<Record<string, unknown>> } | undefined
  const empty = document?.oneOf?.find((branch) => branch.title === 'Empty' && branch.additionalProperties === false)
  if (!empty) return
  delete empty.properties
  delete empty.additionalProperties
  empty.not = { anyOf: [{ required: ['markdown'] }, { required: ['document'] }] }
}

/** The published OpenAPI description the service is held to (with its erratum, applySpecErrata). */
export const publishedSpec = require('@gitbook/api/spec/openapi.json') as RawSpec
applySpecErrata(publishedSpec.components)

/** The id the spec document's components are added under; operations' refs name it (see rebaseRefs). */
export const SPEC_ID = 'gitbook'
const METHODS = ['get', 'post', 'put', 'patch', 'delete']

/** Refs inside operations point at `#/components/...`; compiled on their own they must name the spec document. */
function rebaseRefs<T>(value: T): T {
  if (Array.isArray(value)) return value.map(rebaseRefs) as T
  if (value && typeof value === 'object') {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) {
      out[k] = k === '$ref' && typeof v === 'string' && v.startsWith('#/') ? `${SPEC_ID}${v}` : rebaseRefs(v)
    }
    return out as T
  }
  return value
}

function resolveComponent<T>(value: T): T {
  const ref = (value as { $ref?: unknown })?.$ref
  if (typeof ref !== 'string' || !ref.startsWith('#/components/')) return value
  const [, , section, name] = ref.split('/')
  return resolveComponent(publishedSpec.components[section]?.[name] as T)
}

function jsonSchemaOf(content: Record<string, { schema?: JsonSchema }> | undefined): JsonSchema | null {
  const schema = content?.['application/json']?.schema
  return schema ? rebaseRefs(schema) : null
}

function readPublishedOperations(): OperationSpec[] {
  const ops: OperationSpec[] = []
  for (const [path, item] of Object.entries(publishedSpec.paths)) {
    const shared = (Array.isArray(item.parameters) ? item.parameters : []).map((p) => resolveComponent(p) as ParameterSpec)
    for (const method of METHODS) {
      const raw = item[method] as RawOperation | undefined
      if (!raw?.operationId) continue
      const own = (raw.parameters ?? []).map((p) => resolveComponent(p) as ParameterSpec)
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own].map(rebaseRefs)
      const responses: Record<string, JsonSchema | null> = {}
      for (const [status, response] of Object.entries(raw.responses ?? {})) {
        responses[status] = jsonSchemaOf(resolveComponent(response).content)
      }
      const body = raw.requestBody ? resolveComponent(raw.requestBody) : undefined
      ops.push({
        operationId: raw.operationId,
        method,
        path,
        parameters,
        requestBody: body ? { required: body.required, schema: jsonSchemaOf(body.content) ?? undefined } : undefined,
        responses,
      })
    }
  }
  return ops
}

/**
 * How both ajv instances are set up (with `coerceTypes`: 'array' for parameters, false for bodies). The
 * off-thread compiler (standalone-validators.ts) sets its instances up from these same values.
 */
export const AJV_OPTIONS = { strict: false, allErrors: true, useDefaults: false } as const
/** The spec names formats of its own; they carry no constraint a validator can check. */
export const UNCHECKED_FORMATS = ['emoji', 'icon'] as const

function createAjv(coerceTypes: boolean | 'array') {
  const ajv = new Ajv2020({ ...AJV_OPTIONS, coerceTypes })
  addFormats(ajv)
  for (const format of UNCHECKED_FORMATS) ajv.addFormat(format, true)
  ajv.addSchema({ $id: SPEC_ID, components: publishedSpec.components })
  return ajv
}

/** Parameters of one location (path or query) as the object schema their values are validated against. */
function parametersSchema(op: OperationSpec, location: 'path' | 'query'): JsonSchema {
  const params = op.parameters.filter((p) => p.in === location)
  return {
    type: 'object',
    properties: Object.fromEntries(params.map((p) => [p.name, p.schema ?? {}])),
    required: params.filter((p) => p.required).map((p) => p.name),
  }
}

/** A request validator to compile ahead of use: its key in the registry, its schema, and whether it coerces (parameters). */
export interface RequestValidatorJob {
  key: string
  schema: JsonSchema
  coerce: boolean
}

/**
 * The error text of a refused value: its first five distinct problems. Self-contained on purpose: its
 * source is sent to the body validators' worker (body-validator-pool.ts) and run there, so it may use
 * nothing of this module's, nor any import.
 */
export function formatErrors(where: string, errors: ErrorObject[] | null | undefined): string {
  const seen = new Set<string>()
  const lines: string[] = []
  for (const e of errors ?? []) {
    const path = `${where}${e.instancePath}`
    const detail = e.keyword === 'additionalProperties' ? `has unknown property "${(e.params as { additionalProperty: string }).additionalProperty}"` : e.message
    const line = `${path} ${detail}`
    if (!seen.has(line)) lines.push(line)
    seen.add(line)
    if (lines.length >= 5) break
  }
  return lines.join('; ')
}

export interface ValidationFailure {
  message: string
}

/** Looks up operations by id and validates requests and responses against their schemas. */
export class SpecRegistry {
  readonly operations = new Map<string, OperationSpec>()
  private readonly strict = createAjv(false)
  private readonly coercing = createAjv('array')
  private readonly cache = new Map<string, ValidateFunction>()

  constructor() {
    for (const op of readPublishedOperations()) this.operations.set(op.operationId, op)
    for (const extra of extraOperations) {
      if (this.operations.has(extra.operationId)) throw new Error(`extra operation ${extra.operationId} is already in the published spec`)
      this.operations.set(extra.operationId, { ...extra, requestBody: extra.requestBody })
    }
  }

  operation(operationId: string): OperationSpec {
    const op = this.operations.get(operationId)
    if (!op) throw new Error(`unknown operation ${operationId}`)
    return op
  }

  /**
   * The request validators of these operations (path and query parameters, body) not compiled yet, for a
   * warm-up that compiles them elsewhere and hands them back through `adopt`.
   */
  requestValidatorJobs(operationIds: Iterable<string>): RequestValidatorJob[] {
    const jobs: RequestValidatorJob[] = []
    const add = (key: string, schema: () => JsonSchema | undefined, coerce: boolean) => {
      const made = this.cache.has(key) ? undefined : schema()
      if (made) jobs.push({ key, schema: made, coerce })
    }
    for (const id of new Set(operationIds)) {
      const op = this.operation(id)
      add(`${id}:path`, () => parametersSchema(op, 'path'), true)
      add(`${id}:query`, () => parametersSchema(op, 'query'), true)
      add(`${id}:body`, () => op.requestBody?.schema, false)
    }
    return jobs
  }

  /** Whether the validator of this job's key is compiled (in place or adopted). */
  has(key: string): boolean {
    return this.cache.has(key)
  }

  /** Takes a validator compiled elsewhere from a job's schema; one already compiled here is kept. */
  adopt(key: string, fn: ValidateFunction): void {
    if (!this.cache.has(key)) this.cache.set(key, fn)
  }

  /** Compiles a job's validator here (where it was not adopted); the warm-up's fallback. */
  compileJob(job: RequestValidatorJob): void {
    this.compile(job.key, job.schema, job.coerce)
  }

  private compile(key: string, schema: JsonSchema, coerce: boolean): ValidateFunction {
    let fn = this.cache.get(key)
    if (!fn) {
      fn = (coerce ? this.coercing : this.strict).compile(schema)
      this.cache.set(key, fn)
    }
    return fn
  }

  /** Coerces raw string parameters to their declared types in place; returns an error message or null. */
  validateParameters(op: OperationSpec, location: 'path' | 'query', values: Record<string, unknown>): string | null {
    const key = `${op.operationId}:${location}`
    const fn = this.cache.get(key) ?? this.compile(key, parametersSchema(op, location), true)
    return fn(values) ? null : formatErrors(location, fn.errors)
  }

  validateBody(op: OperationSpec, body: unknown): string | null {
    const schema = op.requestBody?.schema
    if (!schema) return null
    const fn = this.compile(`${op.operationId}:body`, schema, false)
    return fn(body) ? null : formatErrors('body', fn.errors)
  }

  /** Validates a response body; statuses the operation does not name are checked against the error schema. */
  validateResponse(op: OperationSpec, status: number, body: unknown): string | null {
    // A status the operation declares with no body is stored as null: distinct from an undeclared status.
    const key = String(status)
    const declared = key in op.responses ? op.responses[key] : status >= 400 ? { $ref: `${SPEC_ID}#/components/schemas/Error` } : op.responses.default
    if (declared === undefined) {
      const declaresSuccess = Object.keys(op.responses).some((s) => s.startsWith('2'))
      return status < 300 && !declaresSuccess ? null : `status ${status} is not a response of ${op.operationId}`
    }
    if (declared === null) return body === undefined ? null : `${op.operationId} ${status} has no JSON body in the spec`
    const fn = this.compile(`${op.operationId}:response:${status}`, declared, false)
    return fn(body) ? null : formatErrors(`response ${op.operationId} ${status}`, fn.errors)
  }
}

let shared: SpecRegistry | undefined
export function specRegistry(): SpecRegistry {
  shared ??= new SpecRegistry()
  return shared
}

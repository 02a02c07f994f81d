import yaml from 'js-yaml'
import type { OpenApiProcessError, OpenApiTextFormat } from '../store/openapi-specs'

export type ParseOutcome =
  | { ok: true; format: OpenApiTextFormat; document: Record<string, unknown> }
  | { ok: false; errors: OpenApiProcessError[] }

const isObject = (value: unknown): value is Record<string, unknown> => !!value && typeof value === 'object' && !Array.isArray(value)

/** JSON when the text parses as JSON; otherwise YAML (which is how the hosted service tells them apart too). */
function parseText(text: string): { format: OpenApiTextFormat; value: unknown } | OpenApiProcessError {
  const trimmed = text.trim()
  if (trimmed === '') return { code: 'EMPTY', message: 'the specification is empty' }
  try {
    return { format: 'json', value: JSON.parse(trimmed) }
  } catch (error) {
    if (trimmed.startsWith('{') || trimmed.startsWith('[')) return { code: 'INVALID_JSON', message: `invalid JSON: ${(error as Error).message}` }
  }
  try {
    return { format: 'yaml', value: yaml.load(text, { json: true }) }
  } catch (error) {
    const reason = error instanceof yaml.YAMLException ? `${error.reason} (line ${error.mark.line + 1}, column ${error.mark.column + 1})` : String(error)
    return { code: 'INVALID_YAML', message: `invalid YAML: ${reason}` }
  }
}

/** YAML reads `version: 1.0` as a number; the hosted service accepts it, so we do too. */
const isVersionLike = (value: unknown) => typeof value === 'string' || typeof value === 'number'

/** The problems that keep a parsed document from being an OpenAPI 3.x or Swagger 2.0 description. */
function shapeErrors(doc: Record<string, unknown>): OpenApiProcessError[] {
  const errors: OpenApiProcessError[] = []
  const openapi = doc.openapi
  const swagger = doc.swagger
  if (openapi !== undefined) {
    if (typeof openapi !== 'string' || !/^3\.\d+(\.\d+)?(-[\w.]+)?$/.test(openapi)) {
      errors.push({ code: 'UNSUPPORTED_VERSION', message: `openapi must be a 3.x version string, got ${JSON.stringify(openapi)}` })
    }
  } else if (swagger !== undefined) {
    if (String(swagger) !== '2.0' && swagger !== 2) errors.push({ code: 'UNSUPPORTED_VERSION', message: `swagger must be "2.0", got ${JSON.stringify(swagger)}` })
  } else {
    errors.push({ code: 'NOT_OPENAPI', message: 'the document has neither an `openapi` (3.x) nor a `swagger` (2.0) field' })
  }
  const info = doc.info
  if (!isObject(info)) errors.push({ code: 'MISSING_INFO', message: '`info` must be an object with `title` and `version`' })
  else {
    if (typeof info.title !== 'string') errors.push({ code: 'MISSING_INFO_TITLE', message: '`info.title` must be a string' })
    if (!isVersionLike(info.version)) errors.push({ code: 'MISSING_INFO_VERSION', message: '`info.version` must be a string' })
  }
  for (const key of ['paths', 'components', 'webhooks', 'definitions']) {
    if (doc[key] !== undefined && !isObject(doc[key])) errors.push({ code: 'INVALID_FIELD', message: `\`${key}\` must be an object` })
  }
  if (openapi !== undefined && doc.paths === undefined && doc.components === undefined && doc.webhooks === undefined) {
    errors.push({ code: 'MISSING_PATHS', message: 'an OpenAPI 3 document needs `paths`, `components` or `webhooks`' })
  }
  if (swagger !== undefined && doc.paths === undefined) errors.push({ code: 'MISSING_PATHS', message: 'a Swagger 2.0 document needs `paths`' })
  return errors
}

/** Parses JSON or YAML text and checks that it looks like an OpenAPI 3.x or Swagger 2.0 description. */
export function parseOpenApiText(text: string): ParseOutcome {
  const parsed = parseText(text)
  if ('message' in parsed) return { ok: false, errors: [parsed] }
  if (!isObject(parsed.value)) return { ok: false, errors: [{ code: 'NOT_OPENAPI', message: 'the specification must be an object at the top level' }] }
  const errors = shapeErrors(parsed.value)
  return errors.length > 0 ? { ok: false, errors } : { ok: true, format: parsed.format, document: parsed.value }
}

/**
 * Validators compiled from the published OpenAPI spec's component schemas, so
 * tests check our output against GitBook's own definition of it.
 */
import Ajv2020 from 'ajv/dist/2020'
import addFormats from 'ajv-formats'
import type { ValidateFunction } from 'ajv'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)
const spec = require('@gitbook/api/spec/openapi.json') as { components: Record<string, unknown> }

let ajv: Ajv2020 | undefined
const cache = new Map<string, ValidateFunction>()

export function specValidator(schemaName: string): ValidateFunction {
  if (!ajv) {
    ajv = new Ajv2020({ strict: false, allErrors: true })
    addFormats(ajv)
    ajv.addFormat('emoji', true)
    ajv.addFormat('icon', true)
    ajv.addSchema({ $id: 'gitbook', components: spec.components })
  }
  let validate = cache.get(schemaName)
  if (!validate) {
    validate = ajv.compile({ $ref: `gitbook#/components/schemas/${schemaName}` })
    cache.set(schemaName, validate)
  }
  return validate
}

/** Validation errors as readable lines (empty when valid). */
export function specErrors(schemaName: string, value: unknown): string[] {
  const validate = specValidator(schemaName)
  return validate(value) ? [] : (validate.errors ?? []).slice(0, 10).map((e) => `${e.instancePath} ${e.message ?? ''} ${JSON.stringify(e.params)}`)
}

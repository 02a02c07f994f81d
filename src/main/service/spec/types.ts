/** The parts of an OpenAPI 3.1 operation the service reads. Schemas stay opaque JSON Schema objects. */
export type JsonSchema = Record<string, unknown>

export interface ParameterSpec {
  name: string
  in: 'path' | 'query' | 'header' | 'cookie'
  required?: boolean
  schema?: JsonSchema
}

export interface OperationSpec {
  operationId: string
  method: string
  path: string
  parameters: ParameterSpec[]
  requestBody?: { required?: boolean; schema?: JsonSchema }
  /** status code (or 'default') -> JSON schema of the body, null when the response has no JSON body */
  responses: Record<string, JsonSchema | null>
}

/**
 * An operation the interface document describes but the published spec lacks. Schemas are written
 * from the document and may `$ref` the published components as `gitbook#/components/schemas/X`.
 */
export interface ExtraOperation {
  operationId: string
  method: 'get' | 'post' | 'put' | 'patch' | 'delete'
  path: string
  parameters: ParameterSpec[]
  requestBody?: { required?: boolean; schema: JsonSchema }
  responses: Record<string, JsonSchema | null>
}

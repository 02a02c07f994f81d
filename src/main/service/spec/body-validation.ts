/**
 * Where a request body is validated (issue 16): in place on the event loop, as SpecRegistry.validateBody
 * does, or in a worker (body-validator-pool.ts) with the same verdict and error text. A body goes to the
 * worker when its schema is recursive (a document's blocks nest: the in-place validator's time grows
 * exponentially with their depth, so no size is small enough; see the pool's header), or when it is
 * larger than OFF_THREAD_ABOVE_BYTES (any schema costs time in proportion to the body).
 */
import { publishedSpec, type SpecRegistry } from './openapi-spec'
import { BodyValidatorPool } from './body-validator-pool'
import type { JsonSchema, OperationSpec } from './types'

/** Bodies of a flat schema larger than this go to the worker too. */
const OFF_THREAD_ABOVE_BYTES = 64 * 1024

function componentRefs(value: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(value)) for (const item of value) componentRefs(item, into)
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      // Operations' refs name the spec document (`gitbook#/components/...`), the components' own do not.
      if (key === '$ref' && typeof item === 'string') into.add(item.slice(item.indexOf('#') + 1))
      else componentRefs(item, into)
    }
  }
  return into
}

/** A component by its ref's path (`/components/schemas/X`). */
function component(path: string): unknown {
  const [, , section, name] = path.split('/')
  return (publishedSpec.components[section] as Record<string, unknown> | undefined)?.[name]
}

/** The components a schema reaches through its refs (itself not included unless a cycle leads back). */
function reachable(schema: unknown): Set<string> {
  const seen = new Set<string>()
  const stack = [...componentRefs(schema, new Set())]
  while (stack.length > 0) {
    const path = stack.pop() as string
    if (seen.has(path)) continue
    seen.add(path)
    stack.push(...componentRefs(component(path), new Set()))
  }
  return seen
}

const recursiveByOperation = new Map<string, boolean>()

/** Whether the body schema reaches a component that refers back to itself (values nest without bound). */
export function hasRecursiveBody(op: OperationSpec): boolean {
  let recursive = recursiveByOperation.get(op.operationId)
  if (recursive === undefined) {
    const schema: JsonSchema | undefined = op.requestBody?.schema
    recursive = !!schema && [...reachable(schema)].some((path) => reachable(component(path)).has(path))
    recursiveByOperation.set(op.operationId, recursive)
  }
  return recursive
}

let shared: BodyValidatorPool | undefined
const sharedPool = (): BodyValidatorPool => (shared ??= new BodyValidatorPool())

/**
 * The body's error text, null when it is valid: `spec.validateBody(op, body)`, with `raw` (the bytes
 * `body` was parsed from) judged in a worker where in place could hold the event loop (see the top).
 */
export async function validateRequestBody(spec: SpecRegistry, op: OperationSpec, body: unknown, raw: Buffer, pool: BodyValidatorPool = sharedPool()): Promise<string | null> {
  const schema = op.requestBody?.schema
  if (!schema) return null
  if (raw.length <= OFF_THREAD_ABOVE_BYTES && !hasRecursiveBody(op)) return spec.validateBody(op, body)
  // A copy of the bytes of its own, transferred to the worker (the copy is a memcpy: ~3 ms for 32 MB).
  const verdict = await pool.validate(`${op.operationId}:body`, schema, new Uint8Array(raw))
  return verdict === undefined ? spec.validateBody(op, body) : verdict
}

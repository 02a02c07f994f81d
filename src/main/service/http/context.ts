import type { OperationSpec } from '../spec/types'
import type { ServiceStore } from '../store/service-store'
import type { UserRow } from '../store/users'

export interface RequestContext {
  op: OperationSpec
  /** Path parameters, URL-decoded. */
  params: Record<string, string>
  /** Query parameters, coerced to the types the spec declares. */
  query: Record<string, unknown>
  /** The JSON body, already validated against the operation's request schema. */
  body: unknown
  user: UserRow
  store: ServiceStore
  /** Base URL of the service without `/v1`, e.g. `http://127.0.0.1:4000`. */
  origin: string
  /** How revision content is answered (the service's profile: friendly or hosted). */
  content: ContentProfile
  /** Lets a handler ask for work after the response is sent (e.g. processing an imported spec). */
  defer(task: () => Promise<void>): void
}

/**
 * What sets the hosted profile's content apart from the friendly one's. `treeMarkdown`: revision trees
 * carry each page's markdown (friendly) or none (hosted: a client reads pages one by one).
 * `fileOrigin`: where file download URLs point, '' for the API's own origin.
 */
export interface ContentProfile {
  treeMarkdown: boolean
  fileOrigin: string
}

export const FRIENDLY_CONTENT: ContentProfile = { treeMarkdown: true, fileOrigin: '' }

export interface HandlerResult {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

export type Handler = (ctx: RequestContext) => HandlerResult | Promise<HandlerResult>

/** A handler for one operation of the published spec (or of spec/extra), named by its operationId. */
export interface Route {
  operationId: string
  handler: Handler
}

export const ok = (body: unknown): HandlerResult => ({ status: 200, body })
export const created = (body: unknown): HandlerResult => ({ status: 201, body })
export const noContent = (): HandlerResult => ({ status: 204 })

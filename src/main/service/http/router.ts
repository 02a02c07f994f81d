import type { OperationSpec } from '../spec/types'
import type { Route } from './context'
import { badRequest } from './errors'

interface CompiledRoute {
  op: OperationSpec
  route: Route
  pattern: RegExp
  names: string[]
  /** Literal segments rank first, so `/content/files` wins over `/content/{x}`. */
  literalWeight: number
}

export interface RouteMatch {
  op: OperationSpec
  route: Route
  params: Record<string, string>
}

function compile(path: string) {
  const names: string[] = []
  const source = path
    .split('/')
    .map((segment) => {
      const m = /^\{(\w+)\}$/.exec(segment)
      if (m) {
        names.push(m[1])
        // Page paths are nested (`guide/install`) and clients send them unencoded.
        return m[1] === 'pagePath' ? '(.+)' : '([^/]+)'
      }
      return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
    })
    .join('/')
  return { pattern: new RegExp(`^${source}/?$`), names, literalWeight: path.split('/').filter((s) => s && !s.startsWith('{')).length }
}

/** A malformed percent-encoding is the client's mistake: 400, not an internal error. */
function decodePathSegment(raw: string): string {
  try {
    return decodeURIComponent(raw)
  } catch {
    throw badRequest(`path segment '${raw}' is not valid percent-encoding`)
  }
}

export class Router {
  private readonly byMethod = new Map<string, CompiledRoute[]>()

  constructor(routes: Route[], lookup: (operationId: string) => OperationSpec) {
    const seen = new Set<string>()
    for (const route of routes) {
      if (seen.has(route.operationId)) throw new Error(`two handlers for ${route.operationId}`)
      seen.add(route.operationId)
      const op = lookup(route.operationId)
      const list = this.byMethod.get(op.method) ?? []
      list.push({ op, route, ...compile(op.path) })
      this.byMethod.set(op.method, list)
    }
    for (const list of this.byMethod.values()) list.sort((a, b) => b.literalWeight - a.literalWeight)
  }

  /** Finds the route; `methodMismatch` tells a 405 from a 404. */
  match(method: string, path: string): RouteMatch | { methodMismatch: boolean } {
    const list = this.byMethod.get(method.toLowerCase()) ?? []
    for (const candidate of list) {
      const m = candidate.pattern.exec(path)
      if (!m) continue
      const params: Record<string, string> = {}
      candidate.names.forEach((name, i) => (params[name] = decodePathSegment(m[i + 1])))
      return { op: candidate.op, route: candidate.route, params }
    }
    for (const [other, routes] of this.byMethod) {
      if (other !== method.toLowerCase() && routes.some((r) => r.pattern.test(path))) return { methodMismatch: true }
    }
    return { methodMismatch: false }
  }

  operationIds(): string[] {
    return [...this.byMethod.values()].flat().map((r) => r.op.operationId)
  }
}

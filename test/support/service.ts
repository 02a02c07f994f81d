import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { startLocalService, type LocalService, type LocalServiceOptions } from '../../src/main/service/local-service'

export interface ApiResponse<T = unknown> {
  status: number
  body: T
  headers: Headers
}

export interface CallOptions {
  params?: Record<string, string | number>
  query?: Record<string, string | number | boolean | string[] | undefined>
  body?: unknown
  token?: string
}

/**
 * Calls the running service by operationId over real HTTP, and checks every response against the
 * published spec's schema for that operation and status (the service checks too; this is the client's view).
 */
export class ApiClient {
  constructor(
    readonly baseUrl: string,
    readonly token: string,
  ) {}

  as(token: string): ApiClient {
    return new ApiClient(this.baseUrl, token)
  }

  async call<T = any>(operationId: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const spec = specRegistry()
    const op = spec.operation(operationId)
    const path = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.params?.[name]
      if (value === undefined) throw new Error(`${operationId}: missing path parameter ${name}`)
      return encodeURIComponent(String(value))
    })
    const url = new URL(`${this.baseUrl}${path}`)
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v)
      else url.searchParams.set(key, String(value))
    }
    const response = await this.raw(op.method.toUpperCase(), url.toString(), options.body, options.token ?? this.token)
    const problem = spec.validateResponse(op, response.status, response.body)
    if (problem) throw new Error(`${operationId} answered ${response.status} that does not validate: ${problem}\n${JSON.stringify(response.body).slice(0, 2000)}`)
    return response as ApiResponse<T>
  }

  /** A request without spec checks, for malformed input. */
  async raw(method: string, url: string, body?: unknown, token: string | null = this.token, headers: Record<string, string> = {}): Promise<ApiResponse> {
    const init: RequestInit = { method, headers: { ...(token ? { Authorization: `Bearer ${token}` } : {}), ...headers } }
    if (body !== undefined) {
      init.body = typeof body === 'string' ? body : JSON.stringify(body)
      ;(init.headers as Record<string, string>)['Content-Type'] ??= 'application/json'
    }
    const res = await fetch(url.startsWith('http') ? url : `${this.baseUrl}${url}`, init)
    const text = await res.text()
    let parsed: unknown = undefined
    if (text) {
      try {
        parsed = JSON.parse(text)
      } catch {
        parsed = text
      }
    }
    return { status: res.status, body: parsed, headers: res.headers }
  }
}

export interface TestService {
  service: LocalService
  api: ApiClient
  close(): Promise<void>
}

/** A real local service on a random loopback port with an in-memory database, responses spec-checked. */
export async function startTestService(options: LocalServiceOptions = {}): Promise<TestService> {
  const errors: string[] = []
  const service = await startLocalService({ dataDir: ':memory:', port: 0, validateResponses: true, log: (l) => errors.push(l), ...options })
  return {
    service,
    api: new ApiClient(service.baseUrl, service.token),
    async close() {
      await service.close()
    },
  }
}

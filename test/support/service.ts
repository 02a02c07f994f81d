import { specRegistry } from '../../src/main/service/spec/openapi-spec'
import { startLocalService, type LocalService, type LocalServiceOptions, type ServiceProfile } from '../../src/main/service/local-service'

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

/**
 * The profile tests start the service in unless they name one: `QUIRE_TEST_PROFILE=hosted` runs a suite
 * against the hosted profile (trees without markdown, files from a file host, rate limit), else friendly.
 */
export function testProfile(): ServiceProfile {
  const given = process.env.QUIRE_TEST_PROFILE
  if (given === undefined || given === '' || given === 'friendly') return 'friendly'
  if (given === 'hosted') return 'hosted'
  throw new Error(`QUIRE_TEST_PROFILE must be friendly or hosted, got "${given}"`)
}

/**
 * A real local service on a random loopback port with an in-memory database, responses spec-checked; in
 * the profile `testProfile()` names unless `options.profile` does (with its latency, rate limit and file
 * host options, as `quire service --hosted` takes them).
 */
export async function startTestService(options: LocalServiceOptions = {}): Promise<TestService> {
  const errors: string[] = []
  const service = await startLocalService({ dataDir: ':memory:', port: 0, validateResponses: true, profile: testProfile(), log: (l) => errors.push(l), ...options })
  return {
    service,
    api: new ApiClient(service.baseUrl, service.token),
    async close() {
      await service.close()
    },
  }
}

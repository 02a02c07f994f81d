import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import { afterAll, beforeAll } from 'vitest'
import { specRegistry } from '../../../../src/main/service/spec/openapi-spec'
import { ApiClient, startTestService, type ApiResponse, type CallOptions, type TestService } from '../../../support/service'
import { tempDir } from './workspace'

/**
 * The real local service for one test file, on SQLite files instead of memory, so it can be stopped
 * (its port closed: a client gets a refused connection) and started again on the same data, port and
 * token, as a service restart looks to a client. Reads through to the running instance like
 * `serviceForFile`; while stopped, `service` and `api` still answer (calls through `api` are refused).
 */
export interface RestartableService extends TestService {
  readonly running: boolean
  stop(): Promise<void>
  start(): Promise<void>
}

export function restartableServiceForFile(options: { validateResponses?: boolean } = {}): RestartableService {
  const validateResponses = options.validateResponses ?? true
  const dataDir = tempDir('quire-service-')
  const token = `qs_${randomBytes(16).toString('hex')}`
  let current: TestService | undefined
  let last: TestService | undefined
  let port = 0
  let transition: Promise<void> = Promise.resolve()

  const start = async () => {
    if (current) return
    current = await startTestService({ dataDir, port, token, validateResponses })
    last = current
    port = Number(new URL(current.service.origin).port)
  }
  const stop = async () => {
    const running = current
    current = undefined
    await running?.close()
  }
  // Stops and starts may be asked from several places at once (a fault and the generator): one at a time.
  const serial = (work: () => Promise<void>) => (transition = transition.then(work, work))

  beforeAll(() => serial(start))
  afterAll(async () => {
    await serial(stop)
    fs.rmSync(dataDir, { recursive: true, force: true })
  })
  const known = (): TestService => {
    if (!last) throw new Error('the test service is started in beforeAll')
    return last
  }
  return {
    get running() {
      return current !== undefined
    },
    get service() {
      return known().service
    },
    get api(): ApiClient {
      return known().api
    },
    stop: () => serial(stop),
    start: () => serial(start),
    close: () => serial(stop),
  }
}

/**
 * The same calls as `ApiClient.call`, without checking each answer against the spec: the randomized test
 * reads whole revisions after every step, and the service's conformance has tests of its own.
 */
export class UncheckedApiClient extends ApiClient {
  override async call<T = any>(operationId: string, options: CallOptions = {}): Promise<ApiResponse<T>> {
    const op = specRegistry().operation(operationId)
    const pathname = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
      const value = options.params?.[name]
      if (value === undefined) throw new Error(`${operationId}: missing path parameter ${name}`)
      return encodeURIComponent(String(value))
    })
    const url = new URL(`${this.baseUrl}${pathname}`)
    for (const [key, value] of Object.entries(options.query ?? {})) {
      if (value === undefined) continue
      if (Array.isArray(value)) for (const v of value) url.searchParams.append(key, v)
      else url.searchParams.set(key, String(value))
    }
    return (await this.raw(op.method.toUpperCase(), url.toString(), options.body, options.token ?? this.token)) as ApiResponse<T>
  }

  /**
   * After a restart, a kept-alive connection to the stopped instance fails before the request is sent
   * ("other side closed"): the test's own calls try again on a new one (the writer's Quire retries by itself).
   */
  override async raw(method: string, url: string, body?: unknown, token: string | null = this.token, headers: Record<string, string> = {}): Promise<ApiResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await super.raw(method, url, body, token, headers)
      } catch (error) {
        if (attempt >= 3 || !(error instanceof TypeError) || error.message !== 'fetch failed') throw error
      }
    }
  }
}

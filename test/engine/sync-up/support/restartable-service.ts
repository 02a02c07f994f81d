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
    const response = await this.raw(op.method.toUpperCase(), url.toString(), options.body, options.token ?? this.token)
    await this.withTreeTexts(response, options.token ?? this.token)
    return response as ApiResponse<T>
  }

  /**
   * A revision of the hosted profile carries no page markdown; the test's checks read its pages' texts
   * (as the friendly profile's trees give them), so they are read one by one into the tree.
   */
  private async withTreeTexts(response: ApiResponse, token: string | null): Promise<void> {
    const revision = response.body as { object?: string; id?: string; pages?: unknown[] } | undefined
    if (response.status !== 200 || revision?.object !== 'revision' || !revision.id) return
    const missing: Array<Record<string, unknown>> = []
    const visit = (pages: unknown[]) => {
      for (const page of pages as Array<Record<string, unknown>>) {
        if (page.type === 'document' && typeof page.markdown !== 'string') missing.push(page)
        if (Array.isArray(page.pages)) visit(page.pages)
      }
    }
    visit(revision.pages ?? [])
    if (missing.length === 0) return
    const spaceId = /\/spaces\/([^/]+)\//.exec(new URL(String((revision as { urls?: { app?: string } }).urls?.app ?? '')).pathname)?.[1]
    if (!spaceId) throw new Error('a revision without its space in urls.app')
    await Promise.all(
      missing.map(async (page) => {
        const read = await this.raw('GET', `${this.baseUrl}/spaces/${spaceId}/revisions/${revision.id}/page/${String(page.id)}?format=markdown`, undefined, token)
        page.markdown = (read.body as { markdown?: string }).markdown
      }),
    )
  }

  /**
   * After a restart, a kept-alive connection to the stopped instance fails before the request is sent
   * ("other side closed"): the test's own calls try again on a new one (the writer's Quire retries by itself).
   */
  override async raw(method: string, url: string, body?: unknown, token: string | null = this.token, headers: Record<string, string> = {}): Promise<ApiResponse> {
    for (let attempt = 1; ; attempt++) {
      try {
        const response = await super.raw(method, url, body, token, headers)
        // The hosted profile's rate limit: the test's own calls wait it out (the writer's Quire paces itself).
        if (response.status === 429 && attempt < 10) {
          await new Promise((resolve) => setTimeout(resolve, Number(response.headers.get('retry-after') ?? 1) * 1000))
          continue
        }
        return response
      } catch (error) {
        if (attempt >= 3 || !(error instanceof TypeError) || error.message !== 'fetch failed') throw error
      }
    }
  }
}

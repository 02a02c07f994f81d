import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { CacheRepository } from '../../../src/main/engine/cache/cache-repository'
import { openCacheDatabase } from '../../../src/main/engine/cache/open-cache'
import { ApiGateway, type GatewayOptions } from '../../../src/main/engine/gateway/api-gateway'
import { SyncEngine, type SyncEngineOptions } from '../../../src/main/engine/sync/sync-engine'
import type { LocalServiceOptions } from '../../../src/main/service/local-service'
import { startTestService, type TestService } from '../../support/service'

/** A request as the counting fetch saw it: method and path below `/v1` (or the download path). */
export interface SeenRequest {
  method: string
  path: string
}

export interface SyncHarness {
  t: TestService
  cache: CacheRepository
  workspace: string
  requests: SeenRequest[]
  /** Rewrites a response body before the client sees it (a hostile server); undefined = untouched. */
  rewrite?: (path: string, body: string) => string | undefined
  engine(extra?: Partial<SyncEngineOptions>, gateway?: Partial<GatewayOptions>): SyncEngine
  /** Requests made while `fn` ran, as `METHOD path` strings. */
  counting(fn: () => Promise<unknown>): Promise<string[]>
  close(): Promise<void>
}

export async function startSyncHarness(options: LocalServiceOptions = { demo: true }): Promise<SyncHarness> {
  const t = await startTestService(options)
  const cache = new CacheRepository(openCacheDatabase(':memory:'))
  const workspace = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-sync-'))
  const user = (await t.api.call('getAuthenticatedUser')).body as { id: string; displayName: string }
  const account = cache.saveAccount({ id: `${user.id}@test`, endpoint: t.service.origin, userId: user.id, displayName: user.displayName, tokenStore: 'file' })
  const harness: SyncHarness = {
    t,
    cache,
    workspace,
    requests: [],
    engine(extra = {}, gateway = {}) {
      const counted: typeof fetch = async (input, init) => {
        const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
        const method = (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase()
        harness.requests.push({ method, path: url.pathname.replace(/^\/v1/, '') })
        const response = await fetch(input, init)
        const rewritten = harness.rewrite && response.ok ? harness.rewrite(url.pathname.replace(/^\/v1/, ''), await response.clone().text()) : undefined
        if (rewritten === undefined) return response
        return new Response(rewritten, { status: response.status, headers: response.headers })
      }
      const gw = new ApiGateway({ endpoint: t.service.origin, token: t.service.token, fetch: counted, maxAttempts: 2, backoff: { baseMs: 5, capMs: 20 }, ...gateway })
      return new SyncEngine({ cache, account, gateway: gw, workspace, ...extra })
    },
    async counting(fn) {
      const start = harness.requests.length
      await fn()
      return harness.requests.slice(start).map((r) => `${r.method} ${r.path}`)
    },
    async close() {
      cache.close()
      await t.close().catch(() => undefined)
      fs.rmSync(workspace, { recursive: true, force: true })
    },
  }
  return harness
}

/** Every file under `root`, relative, `/`-separated, sorted. */
export function listFiles(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) walk(full)
      else out.push(path.relative(root, full).split(path.sep).join('/'))
    }
  }
  if (fs.existsSync(root)) walk(root)
  return out.sort()
}

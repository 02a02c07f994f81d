import path from 'node:path'
import envPaths from 'env-paths'
import { allRoutes } from './api'
import { setGitTreeLimits } from './api/git-sync'
import type { TreeLimits } from './git/git-repository'
import { HttpService } from './http/server'
import { specRegistry } from './spec/openapi-spec'
import { openServiceDatabase } from './store/database'
import { ServiceStore } from './store/service-store'
import { UsersRepository } from './store/users'
import { seedDemo } from './demo/seed'
import { OrganizationsRepository } from './store/organizations'

export interface LocalServiceOptions {
  host?: string
  port?: number
  /** Folder of the SQLite file; `:memory:` keeps everything in memory. */
  dataDir?: string
  /** The token the service accepts for its owner; generated when absent. */
  token?: string
  /** The given `token` becomes the owner's only one: tokens of earlier starts stop working. */
  onlyToken?: boolean
  demo?: boolean
  rateLimitPerMinute?: number
  /** The largest tree Git import reads (default 1 GiB and 100,000 files); tests lower it to stand for a big repository. */
  gitTreeLimits?: Partial<TreeLimits>
  validateResponses?: boolean
  clock?: () => Date
  log?: (line: string) => void
  /** Lines about what is no fault of the service's (a client that left mid-request); off unless given. */
  debug?: (line: string) => void
  /** better-sqlite3 addon built for the host runtime (the desktop app under Electron); see openDatabase. */
  nativeBinding?: string
}

export interface LocalService {
  /** `http://HOST:PORT/v1` */
  baseUrl: string
  /** `http://HOST:PORT`, what the official client calls `endpoint`. */
  origin: string
  token: string
  ownerId: string
  store: ServiceStore
  /** Adds a user (and a token for them); tests use it to act as someone else. */
  createUser(input: { displayName: string; email: string }): { id: string; token: string }
  close(): Promise<void>
}

export function defaultServiceDataDir(): string {
  return path.join(envPaths('quire', { suffix: '' }).data, 'service')
}

export async function startLocalService(options: LocalServiceOptions = {}): Promise<LocalService> {
  const dataDir = options.dataDir ?? defaultServiceDataDir()
  const db = openServiceDatabase(dataDir === ':memory:' ? ':memory:' : path.join(dataDir, 'service.db'), { nativeBinding: options.nativeBinding })
  const store = new ServiceStore(db, options.clock)
  const users = store.repo(UsersRepository)

  let owner = users.first()
  if (!owner) owner = users.create({ displayName: 'Quire Owner', email: 'owner@quire.local' })
  const token = users.issueToken(owner.id, options.token)
  if (options.token !== undefined && options.onlyToken) users.revokeTokensOf(owner.id, token)
  if (store.repo(OrganizationsRepository).forUser(owner.id).length === 0 && options.demo) {
    seedDemo(store, owner.id)
  }

  if (options.gitTreeLimits) setGitTreeLimits(store, options.gitTreeLimits)
  const http = new HttpService({
    store,
    routes: allRoutes,
    spec: specRegistry(),
    rateLimitPerMinute: options.rateLimitPerMinute,
    validateResponses: options.validateResponses,
    log: options.log,
    debug: options.debug,
  })
  let origin: string
  try {
    origin = await http.listen(options.port ?? 0, options.host ?? '127.0.0.1')
  } catch (error) {
    store.close()
    throw error
  }

  return {
    baseUrl: `${origin}/v1`,
    origin,
    token,
    ownerId: owner.id,
    store,
    createUser(input) {
      const user = users.create(input)
      return { id: user.id, token: users.issueToken(user.id) }
    },
    async close() {
      await http.close()
      store.close()
    },
  }
}

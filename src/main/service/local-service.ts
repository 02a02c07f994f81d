import fs from 'node:fs'
import path from 'node:path'
import envPaths from 'env-paths'
import { allRoutes } from './api'
import { setGitTreeLimits } from './api/git-sync'
import type { TreeLimits } from './git/git-repository'
import { FileHost } from './http/file-host'
import { HttpService } from './http/server'
import { specRegistry } from './spec/openapi-spec'
import { openServiceDatabase } from './store/database'
import { ServiceStore } from './store/service-store'
import { UsersRepository } from './store/users'
import { DEMO_REVIEWER, seedDemo } from './demo/seed'
import { OrganizationsRepository } from './store/organizations'
import { addMember, MemberInputError, type AddedMember } from './access/members'
import type { Role } from './access/roles'

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
  /**
   * `friendly` (the default): trees carry every page's markdown and the API's origin serves file bytes.
   * `hosted`: as the hosted service behaves (issue 26): trees without markdown (pages read one by one),
   * file bytes from a file host on its own port, and a rate limit (HOSTED_RATE_LIMIT unless given).
   */
  profile?: ServiceProfile
  /** Requests each token may make per window (`rateLimitWindowMs`, default a minute); beyond, 429s with Retry-After. */
  rateLimitPerMinute?: number
  rateLimitWindowMs?: number
  /** Milliseconds each request (API and file host) waits before it is handled: a network's latency. */
  latencyMs?: number
  /** The hosted profile's file host port (default 0: any free port). */
  fileHostPort?: number
  /** The file host's origin as clients reach it (through a proxy or a CDN): download URLs name it. Default its own. */
  fileHostUrl?: string
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

export type ServiceProfile = 'friendly' | 'hosted'

/**
 * The hosted profile's rate limit when none is given: 100 requests a second per token. The hosted
 * service's own is not published; this one is met by a client that bursts past its pace, and a 429 costs
 * it a second (Retry-After), not a minute.
 */
export const HOSTED_RATE_LIMIT = { requests: 100, windowMs: 1000 }

export interface LocalService {
  /** `http://HOST:PORT/v1` */
  baseUrl: string
  profile: ServiceProfile
  /** The hosted profile's file host (`http://HOST:PORT`), where download URLs point; undefined in the friendly one. */
  fileOrigin?: string
  /** `http://HOST:PORT`, what the official client calls `endpoint`. */
  origin: string
  token: string
  ownerId: string
  store: ServiceStore
  /** Adds a user (and a token for them); tests use it to act as someone else. */
  createUser(input: { displayName: string; email: string }): { id: string; token: string }
  /** Makes NAME a member of the owner's organizations with `role`, with a new token (`quire service --add-user`; the app's demo reviewer). */
  addMember(input: { name: string; role: Role }): AddedMember
  /** How many requests the rate limit has answered 429 so far. */
  rateLimited(): number
  /** The demo's reviewer with a token, on the start that seeded the demo (only then: tokens are kept hashed). */
  demoReviewer?: AddedMember
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
  const ownerId = owner.id
  const token = users.issueToken(owner.id, options.token)
  if (options.token !== undefined && options.onlyToken) users.revokeTokensOf(owner.id, token)
  let demoReviewer: AddedMember | undefined
  if (store.repo(OrganizationsRepository).forUser(owner.id).length === 0 && options.demo) {
    seedDemo(store, owner.id)
    // The second person of the demo gets a token now, so one person can play both sides of a review.
    demoReviewer = addMember(store, ownerId, { name: DEMO_REVIEWER.displayName, role: DEMO_REVIEWER.role })
  }

  if (options.gitTreeLimits) setGitTreeLimits(store, options.gitTreeLimits)
  const profile = options.profile ?? 'friendly'
  const hosted = profile === 'hosted'
  const host = options.host ?? '127.0.0.1'
  const fileHost = hosted ? new FileHost(store, options.latencyMs) : undefined
  let fileOrigin: string | undefined
  try {
    fileOrigin = await fileHost?.listen(options.fileHostPort ?? 0, host)
  } catch (error) {
    store.close()
    throw error
  }
  const rateLimited = options.rateLimitPerMinute !== undefined || hosted
  const http = new HttpService({
    store,
    routes: allRoutes,
    spec: specRegistry(),
    rateLimitPerMinute: rateLimited ? (options.rateLimitPerMinute ?? HOSTED_RATE_LIMIT.requests) : undefined,
    rateLimitWindowMs: options.rateLimitPerMinute !== undefined ? options.rateLimitWindowMs : HOSTED_RATE_LIMIT.windowMs,
    content: { treeMarkdown: !hosted, fileOrigin: fileOrigin === undefined ? '' : (options.fileHostUrl?.replace(/\/+$/, '') ?? fileOrigin) },
    servesDownloads: !hosted,
    latencyMs: options.latencyMs,
    validateResponses: options.validateResponses,
    log: options.log,
    debug: options.debug,
  })
  let origin: string
  try {
    origin = await http.listen(options.port ?? 0, host)
  } catch (error) {
    await fileHost?.close()
    store.close()
    throw error
  }

  return {
    baseUrl: `${origin}/v1`,
    profile,
    fileOrigin,
    origin,
    token,
    ownerId: owner.id,
    store,
    createUser(input) {
      const user = users.create(input)
      return { id: user.id, token: users.issueToken(user.id) }
    },
    addMember: (input) => addMember(store, ownerId, input),
    rateLimited: () => http.rateLimited,
    demoReviewer,
    async close() {
      await Promise.all([http.close(), fileHost?.close()])
      store.close()
    },
  }
}

/**
 * `quire service --add-user`: adds the member in the service's database in `dataDir` without serving it
 * (a service running on it sees them at once: every request reads the database).
 */
export function addServiceMember(options: { dataDir: string; name: string; role: Role; nativeBinding?: string }): AddedMember {
  const file = path.join(options.dataDir, 'service.db')
  if (!fs.existsSync(file)) throw new MemberInputError(`no service data in ${options.dataDir} yet: start the service there first (quire service --demo)`)
  const store = new ServiceStore(openServiceDatabase(file, { nativeBinding: options.nativeBinding }))
  try {
    const owner = store.repo(UsersRepository).first()
    if (!owner) throw new MemberInputError(`the service in ${options.dataDir} has no owner yet: start it there first (quire service --demo)`)
    return addMember(store, owner.id, { name: options.name, role: options.role })
  } finally {
    store.close()
  }
}

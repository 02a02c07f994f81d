import { createHash } from 'node:crypto'
import type { DemoRole, SessionInfo } from '../../shared/contract'
import { accountToken, type AccountRow, ApiGateway, authErrorKey, type CacheRepository, describeTokenStore, findToken, type GatewayOptions, keepToken, normalizeEndpoint, removeToken, type TokenStoreKind } from '../engine'
import { DEMO_REVIEWER } from '../service/demo/seed'
import { startLocalService, type LocalService } from '../service/local-service'
import { AppError, fromApiError } from './errors'
import type { AppPaths } from './paths'
import type { TokenVault } from './token-vault'

/** A signed-in account with its gateway (and the embedded demo service when that is what it talks to). */
export interface SignedIn {
  account: AccountRow
  token: string
  gateway: ApiGateway
  demo?: LocalService
  /** Where the token went when it is not the OS keychain (the 0600 file, and why), for the activity log. */
  tokenNote?: string
}

export interface AccountsOptions {
  cache: CacheRepository
  paths: AppPaths
  /**
   * The shell's own vault (Electron's safeStorage), used for every account when given. Without one
   * (`quire serve`, the headless backend) tokens go through the engine's stores as the CLI's do: the OS
   * keychain, else the 0600 file, and the cache names which.
   */
  fixedVault?: TokenVault
  nativeBinding?: string
  startDemoService?: (options: { dataDir: string; token?: string }) => Promise<LocalService>
  /** Gateway tuning: shorter timeouts in tests; `fetch` and `intervalCap` for tests that fault the network. */
  gateway?: GatewayTuning
}

export type GatewayTuning = Pick<GatewayOptions, 'timeoutMs' | 'maxAttempts' | 'fetch' | 'intervalCap' | 'backoff'>

type AuthenticatedUser = Awaited<ReturnType<ApiGateway['client']['user']['getAuthenticatedUser']>>['data']

/** The demo service is one per data folder; its owner's account (the writer's) has this fixed id. */
export const DEMO_ACCOUNT = 'demo'
/** The account of the demo's reviewer (Ada Reviewer), beside the writer's: the same service, another person. */
export const DEMO_REVIEWER_ACCOUNT = 'demo-reviewer'

const DEMO_ACCOUNTS: Record<DemoRole, string> = { writer: DEMO_ACCOUNT, reviewer: DEMO_REVIEWER_ACCOUNT }

/** Whom an account plays on the demo service; undefined for an account of any other service. */
export function demoRoleOf(account: AccountRow): DemoRole | undefined {
  return account.id === DEMO_ACCOUNT ? 'writer' : account.id === DEMO_REVIEWER_ACCOUNT ? 'reviewer' : undefined
}

/**
 * Signing in and out for the app: a token is checked (GET /user) before anything ends, kept in the vault
 * (never in the cache, a log or an error), and the account row is shared with the CLI (`quire login`).
 */
export class Accounts {
  constructor(private readonly o: AccountsOptions) {}

  /** A new session from an endpoint and a token; throws (keeping whatever session there is) when refused. */
  async signIn(input: { endpoint: string; token: string }): Promise<SignedIn> {
    let endpoint: string
    try {
      endpoint = normalizeEndpoint(input.endpoint)
    } catch {
      throw new AppError('invalid', `"${input.endpoint}" is not an http(s) URL`)
    }
    const token = input.token.trim()
    let gateway: ApiGateway
    try {
      gateway = this.gatewayFor(endpoint, token)
    } catch (error) {
      // A token no HTTP header can carry; the message names the reason, never the token.
      throw new AppError('invalid', `Signing in to ${endpoint}: ${error instanceof Error ? error.message : String(error)}`)
    }
    const user = await this.authenticatedUser(gateway, endpoint)
    return this.keep({ endpoint, token, gateway, user })
  }

  /**
   * The embedded demo service as its writer (the owner, with the token of the service's last run) or its
   * reviewer (given a new token by the service: it keeps only hashes). `running` is the demo service of
   * the session that ends, kept for the next one; otherwise it is started. Closed again when this fails.
   */
  async demo(as: DemoRole = 'writer', running?: LocalService): Promise<SignedIn> {
    const demo = running ?? (await this.startDemo(await this.tokenOfId(DEMO_ACCOUNT)))
    try {
      const token = as === 'writer' ? demo.token : demo.addMember({ name: DEMO_REVIEWER.displayName, role: DEMO_REVIEWER.role }).token
      const gateway = this.gatewayFor(demo.origin, token)
      const user = await this.authenticatedUser(gateway, demo.origin)
      return { ...(await this.keep({ endpoint: demo.origin, token, gateway, user, demo: as })), demo }
    } catch (error) {
      await demo.close()
      throw error
    }
  }

  /** Picks up the account of the last run; the demo service is started again with the same token. */
  async restore(): Promise<SignedIn | { missingToken: AccountRow } | undefined> {
    const account = this.o.cache.activeAccount()
    if (!account) return undefined
    const token = this.o.fixedVault ? await this.o.fixedVault.get(account.id) : await accountToken(this.o.cache, account, this.o.paths.tokenFolder)
    if (!token) return { missingToken: account }
    const as = demoRoleOf(account)
    if (!as) return { account, token, gateway: this.gatewayFor(account.endpoint, token) }
    // The service starts with its owner's token; the reviewer's was given by it and is in its database.
    const demo = await this.startDemo(as === 'writer' ? token : await this.tokenOfId(DEMO_ACCOUNT))
    const restored = this.o.cache.saveAccount({ ...account, endpoint: demo.origin })
    return { account: restored, token, gateway: this.gatewayFor(demo.origin, token), demo }
  }

  /** Forgets the token; the synced folders and their journal stay, for the next sign-in (like `quire logout`). */
  async signOut(session: SignedIn) {
    if (this.o.fixedVault) await this.o.fixedVault.delete(session.account.id)
    else await removeToken(session.account, this.o.paths.tokenFolder)
    this.o.cache.deactivateAccount(session.account.id)
  }

  private async keep(input: { endpoint: string; token: string; gateway: ApiGateway; user: AuthenticatedUser; demo?: DemoRole }): Promise<SignedIn> {
    // The CLI's account id (`quire login`), so both see the same account in the shared cache.
    const id = input.demo ? DEMO_ACCOUNTS[input.demo] : `${input.user.id}@${createHash('sha256').update(input.endpoint).digest('hex').slice(0, 12)}`
    const { tokenStore, tokenNote } = await this.storeToken(id, input.token)
    // The service just accepted this token: a refusal of the one before is over (the session reads it at start).
    this.o.cache.setSetting(authErrorKey(id), '')
    const account = this.o.cache.saveAccount({ id, endpoint: input.endpoint, userId: input.user.id, displayName: input.user.displayName, email: input.user.email, tokenStore })
    return { account, token: input.token, gateway: input.gateway, ...(tokenNote ? { tokenNote } : {}) }
  }

  private gatewayFor(endpoint: string, token: string): ApiGateway {
    return new ApiGateway({ ...this.o.gateway, endpoint, token })
  }

  private startDemo(token: string | undefined): Promise<LocalService> {
    const start = this.o.startDemoService ?? ((o) => startLocalService({ demo: true, port: 0, nativeBinding: this.o.nativeBinding, ...o }))
    return start({ dataDir: this.o.paths.serviceDir, ...(token ? { token } : {}) })
  }

  private async authenticatedUser(gateway: ApiGateway, endpoint: string): Promise<AuthenticatedUser> {
    try {
      return (await gateway.client.user.getAuthenticatedUser()).data
    } catch (error) {
      throw fromApiError(error, `Signing in to ${endpoint}`)
    }
  }

  /** The shell's vault when it passed one, else the engine's stores; the fallback to the 0600 file is said. */
  private async storeToken(id: string, token: string): Promise<{ tokenStore: TokenStoreKind; tokenNote?: string }> {
    const vault = this.o.fixedVault
    if (vault) {
      await vault.set(id, token)
      return { tokenStore: vault.kind }
    }
    const stored = await keepToken(id, token, this.storeOptions())
    const fellBack = stored.fallbackReason !== undefined && stored.store.kind === 'file'
    return { tokenStore: stored.store.kind, ...(fellBack ? { tokenNote: `The token is kept in ${describeTokenStore(stored, this.o.paths.tokenFolder)}` } : {}) }
  }

  private storeOptions() {
    return { fileFolder: this.o.paths.tokenFolder, prefer: process.env.QUIRE_TOKEN_STORE }
  }

  /** A token by account id alone (the demo owner's, to restart its service): the shell's vault, else any store that has it. */
  private tokenOfId(id: string): Promise<string | undefined> {
    return this.o.fixedVault ? this.o.fixedVault.get(id) : findToken(id, this.storeOptions())
  }
}

export function sessionInfo(session: SignedIn | undefined, authError?: string): SessionInfo {
  if (!session) return { signedIn: false, demo: false }
  const { account } = session
  return {
    signedIn: true,
    endpoint: account.endpoint,
    user: { id: account.userId, displayName: account.displayName, ...(account.email ? { email: account.email } : {}) },
    demo: session.demo !== undefined,
    ...(session.demo ? { demoAs: demoRoleOf(account) } : {}),
    ...(authError ? { authError } : {}),
  }
}

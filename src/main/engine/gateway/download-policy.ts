import dns from 'node:dns'
import net from 'node:net'

/**
 * Where file bytes may be downloaded from. A hosted service names file hosts of its own (a CDN, a bucket,
 * `files.gitbook.com`, `*-files.gitbook.io`), so any `https` origin it names is fetched. What a service on
 * the internet must not do is make Quire fetch from the writer's own machine or network (SSRF: a router's
 * admin page, a cloud metadata address, another local service): loopback, private and link-local targets,
 * and plain `http`, are fetched only when the API itself is on such an origin (the local service, a
 * company's server on its own network). Names are judged by the addresses they resolve to, once before
 * the request and again at the connection (`guardedLookup`), so a name that resolves to a public address
 * for the check and to a private one for the connection (DNS rebinding) is refused too.
 *
 * The token never goes with a download: download URLs are signed, and the gateway sends `Authorization`
 * to the API's origin only.
 */

/** Where an address sits: the open internet, or the writer's own machine or network. */
export type Network = 'public' | 'private'

const NOT_PUBLIC = new net.BlockList()
for (const [prefix, bits] of [
  ['0.0.0.0', 8], // "this network": 0.0.0.0 reaches this machine
  ['10.0.0.0', 8],
  ['100.64.0.0', 10], // carrier-grade NAT: a provider's private network
  ['127.0.0.0', 8],
  ['169.254.0.0', 16], // link-local, cloud metadata (169.254.169.254)
  ['172.16.0.0', 12],
  ['192.168.0.0', 16],
  ['224.0.0.0', 3], // multicast and reserved
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv4')
}
for (const [prefix, bits] of [
  ['::', 128], // unspecified
  ['::1', 128],
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['ff00::', 8], // multicast
] as const) {
  NOT_PUBLIC.addSubnet(prefix, bits, 'ipv6')
}

/** The network of an IP address (IPv4-mapped IPv6 such as `::ffff:127.0.0.1` judged as its IPv4 address). */
export function addressNetwork(address: string): Network {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
  const ip = mapped ? mapped[1] : address
  const family = net.isIP(ip)
  if (family === 0) return 'private' // not an address at all: never taken for a public one
  return NOT_PUBLIC.check(ip, family === 6 ? 'ipv6' : 'ipv4') ? 'private' : 'public'
}

/** The network of a URL's host when it can be told without DNS (an IP literal, `localhost`); undefined for other names. */
export function hostNetwork(hostname: string): Network | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').replace(/\.$/, '').toLowerCase()
  if (net.isIP(host)) return addressNetwork(host)
  if (host === 'localhost' || host.endsWith('.localhost')) return 'private'
  return undefined
}

export type Verdict = { allowed: true } | { allowed: false; reason: string }

/**
 * The policy itself, a pure function: may a file be fetched from `target`, for an API at `api.origin` on
 * `api.network`, when the target's name resolved to `addresses` (none given for an IP literal or before
 * resolving)?
 */
export function judgeDownload(api: { origin: string; network: Network }, target: URL, addresses: readonly string[] = []): Verdict {
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return { allowed: false, reason: `it is not an http or https address (${target.protocol})` }
  if (target.username !== '' || target.password !== '') return { allowed: false, reason: 'the address carries a user name or password' }
  const apiUrl = new URL(api.origin)
  // The API's own origin is where the writer chose to connect: never a way into anywhere else.
  if (target.origin === apiUrl.origin || api.network === 'private') return { allowed: true }
  if (target.protocol === 'http:' && apiUrl.protocol === 'https:') {
    return { allowed: false, reason: `it is plain http, and the service (${apiUrl.origin}) is on https` }
  }
  const literal = hostNetwork(target.hostname)
  const inside = literal === 'private' ? target.hostname : addresses.find((a) => addressNetwork(a) === 'private')
  if (inside !== undefined) {
    const where = inside === target.hostname ? 'is on this machine or a private network' : `resolves to ${inside}, on this machine or a private network`
    return { allowed: false, reason: `it ${where}, and the service (${apiUrl.origin}) is not: only a service on your own machine or network may send files from there` }
  }
  return { allowed: true }
}

/** A download the policy refused; `host` and `reason` say which and why (the file is named by the caller). */
export class DownloadRefusedError extends Error {
  constructor(
    readonly host: string,
    readonly reason: string,
  ) {
    super(`refusing to download from ${host}: ${reason}`)
    this.name = 'DownloadRefusedError'
  }
}

/** Resolves a name to every address it has (`dns.lookup` with `all`): the DNS seam of the policy. */
export type Resolve = (hostname: string) => Promise<string[]>

export const resolveAll: Resolve = async (hostname) => (await dns.promises.lookup(hostname, { all: true, verbatim: true })).map((a) => a.address)

/** The policy for one API: the API's network found once, each target checked before it is fetched. */
export class DownloadPolicy {
  private network: Promise<Network> | undefined

  constructor(
    readonly apiOrigin: string,
    /** The API's network when known beforehand; found from its address otherwise. */
    private readonly given: Network | undefined,
    private readonly resolve: Resolve = resolveAll,
  ) {}

  /**
   * The API's network: its host's when that is an IP literal or `localhost`, else private only when every
   * address its name resolves to is (a name that cannot be resolved counts as public: the stricter).
   */
  apiNetwork(): Promise<Network> {
    this.network ??= (async () => {
      if (this.given) return this.given
      const host = new URL(this.apiOrigin).hostname
      const known = hostNetwork(host)
      if (known) return known
      const addresses = await this.resolve(host).catch(() => [])
      return addresses.length > 0 && addresses.every((a) => addressNetwork(a) === 'private') ? 'private' : 'public'
    })()
    return this.network
  }

  /** Throws DownloadRefusedError when `target` may not be fetched; a name is resolved and its addresses judged. */
  async check(target: URL): Promise<void> {
    const api = { origin: this.apiOrigin, network: await this.apiNetwork() }
    let verdict = judgeDownload(api, target)
    if (verdict.allowed && api.network === 'public' && target.origin !== new URL(this.apiOrigin).origin && hostNetwork(target.hostname) === undefined) {
      // A name that does not resolve is left to the connection to fail as unreachable.
      verdict = judgeDownload(api, target, await this.resolve(target.hostname).catch(() => []))
    }
    if (!verdict.allowed) throw new DownloadRefusedError(target.host, verdict.reason)
  }

  /**
   * A `lookup` for the file host connections of a public API: the addresses a name resolves to at the
   * moment of connecting are judged again, so the connection goes only where the check allowed.
   */
  readonly guardedLookup: net.LookupFunction = (hostname, options, callback) => {
    this.resolve(hostname).then(
      (addresses) => {
        const inside = addresses.find((a) => addressNetwork(a) === 'private')
        if (inside !== undefined || addresses.length === 0) {
          const reason = inside ? `it resolves to ${inside}, on this machine or a private network, and the service (${new URL(this.apiOrigin).origin}) is not` : 'it resolves to no address'
          callback(new DownloadRefusedError(hostname, reason) as NodeJS.ErrnoException, '', 0)
          return
        }
        const all = addresses.map((address) => ({ address, family: net.isIP(address) }))
        const wanted = options.family === 4 || options.family === 6 ? all.filter((a) => a.family === options.family) : all
        if (wanted.length === 0) {
          callback(Object.assign(new Error(`${hostname} has no IPv${options.family} address`), { code: 'ENOTFOUND' }), '', 0)
          return
        }
        // net.connect asks for every address (`all`) when it may try each family in turn.
        if (options.all) (callback as unknown as (e: null, a: typeof wanted) => void)(null, wanted)
        else callback(null, wanted[0].address, wanted[0].family)
      },
      (error: NodeJS.ErrnoException) => callback(error, '', 0),
    )
  }
}

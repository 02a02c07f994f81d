import type { ApiGateway } from '../gateway/api-gateway'
import type { ContentSource } from './executor'

const utf8 = new TextEncoder()

/**
 * Page markdown and file bytes through the gateway. Pages are read from the revision the plan was made
 * for, not the space's moving head, so a pass writes one consistent revision even if the space changes
 * meanwhile.
 */
export class GatewayContentSource implements ContentSource {
  constructor(
    private readonly gateway: ApiGateway,
    private readonly spaceId: string,
    private readonly revisionId: string,
    /** Origins besides the service's own that may serve file bytes (a service's declared file host). */
    private readonly fileHosts: readonly string[] = [],
  ) {}

  async page(id: string): Promise<Uint8Array> {
    const { data } = await this.gateway.client.spaces.getPageInRevisionById(this.spaceId, this.revisionId, id, { format: 'markdown' })
    if (!('markdown' in data) || typeof data.markdown !== 'string') throw new Error(`the service sent page ${id} without its markdown`)
    return utf8.encode(data.markdown)
  }

  async file(id: string, url: string): Promise<Uint8Array> {
    // No Authorization header: download URLs are signed, and the token must not go to another host.
    // Redirects are followed here, each hop checked like the first.
    let target = this.downloadUrl(id, url)
    for (let hop = 0; ; hop++) {
      const response = await this.gateway.fetch(target.href, { redirect: 'manual' })
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null
      if (location !== null && hop < MAX_REDIRECTS) {
        await response.body?.cancel()
        target = this.downloadUrl(id, new URL(location, target).href)
        continue
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new Error(`downloading file ${id} failed with HTTP ${response.status}`)
      }
      return new Uint8Array(await response.arrayBuffer())
    }
  }

  /**
   * A download URL the service gave, accepted only on the service's own origin or its declared file
   * host: a service (or anything rewriting its answers) must not make Quire fetch from another local
   * port or host.
   */
  private downloadUrl(id: string, raw: string): URL {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new Error(`file ${id} has no download URL`)
    }
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`file ${id} has no download URL`)
    if (url.username !== '' || url.password !== '' || !this.origins.includes(url.origin)) {
      throw new Error(`refusing to download file ${id} from ${url.origin}: files are fetched only from ${this.origins.join(' or ')}`)
    }
    return url
  }

  private get origins(): string[] {
    return downloadOrigins(this.gateway.client.endpoint, this.fileHosts)
  }
}

const MAX_REDIRECTS = 5

/** Hosted services serve file bytes from their file host, not the API's origin. */
const DECLARED_FILE_HOSTS: Record<string, string[]> = {
  'https://api.gitbook.com': ['https://files.gitbook.com'],
}

/** Origins file bytes may be downloaded from: the API's own, its declared file hosts, and any given. */
export function downloadOrigins(endpoint: string, extra: readonly string[] = []): string[] {
  const url = new URL(endpoint)
  // A local service is one server whichever loopback name reaches it: the same port, never another.
  const aliases = LOOPBACK.includes(url.hostname) ? LOOPBACK.map((host) => `${url.protocol}//${host}${url.port ? `:${url.port}` : ''}`) : []
  return [...new Set([url.origin, ...aliases, ...(DECLARED_FILE_HOSTS[url.origin] ?? []), ...extra.map((o) => new URL(o).origin)])]
}

const LOOPBACK = ['127.0.0.1', 'localhost', '[::1]']

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
  ) {}

  async page(id: string): Promise<Uint8Array> {
    const { data } = await this.gateway.client.spaces.getPageInRevisionById(this.spaceId, this.revisionId, id, { format: 'markdown' })
    if (!('markdown' in data) || typeof data.markdown !== 'string') throw new Error(`the service sent page ${id} without its markdown`)
    return utf8.encode(data.markdown)
  }

  async file(id: string, url: string): Promise<Uint8Array> {
    if (!/^https?:\/\//i.test(url)) throw new Error(`file ${id} has no download URL`)
    // No Authorization header: download URLs are signed, and the token must not go to another host.
    const response = await this.gateway.fetch(url)
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(`downloading file ${id} failed with HTTP ${response.status}`)
    }
    return new Uint8Array(await response.arrayBuffer())
  }
}

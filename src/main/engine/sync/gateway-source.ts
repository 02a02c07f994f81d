import type { JSONDocument } from '@gitbook/api'
import { ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'
import { DownloadRefusedError } from '../gateway/download-policy'
import type { ByteStream } from '../workspace/space-files'
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

  /** A reusable content's body, from the revision the plan was made for. */
  async reusableContent(id: string): Promise<JSONDocument> {
    const { data } = await this.gateway.client.spaces.getReusableContentDocumentInRevisionById(this.spaceId, this.revisionId, id)
    return data
  }

  async file(id: string, url: string): Promise<Uint8Array> {
    const response = await this.download(id, url, false)
    return new Uint8Array(await response.arrayBuffer())
  }

  /**
   * File bytes handed to `sink` as they arrive (written to disk, never held whole: a space's files are
   * most of what a first mirror moves). A body cut mid-way is fetched and handed over again, the sink
   * starting afresh, as the gateway retries a cut body it reads whole; past that the service counts as
   * unreachable.
   */
  async fileInto<T>(id: string, url: string, sink: (body: ByteStream) => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt++) {
      const response = await this.download(id, url, true)
      const chunks = bodyChunks(response)
      try {
        return await sink({ size: decodedSize(response), chunks })
      } catch (error) {
        if (!(error instanceof BodyCutError)) throw error
        if (attempt >= BODY_ATTEMPTS) throw new ServiceUnreachableError(response.url || url, error.cause)
      } finally {
        // However the sink ended, the connection is released (a no-op when the body was read to its end).
        await chunks.return(undefined).catch(() => undefined)
      }
    }
  }

  /**
   * The download's response, redirects followed here, each hop judged by the download policy like the
   * first (the gateway never sends the token with a download); its body unread.
   */
  private async download(id: string, url: string, stream: boolean): Promise<Response> {
    let target = downloadUrl(id, url)
    for (let hop = 0; ; hop++) {
      let response: Response
      try {
        response = await this.gateway.fetchFile(target, { stream })
      } catch (error) {
        if (error instanceof DownloadRefusedError) throw new Error(`refusing to download file ${id} from ${error.host}: ${error.reason}`)
        throw error
      }
      const location = response.status >= 300 && response.status < 400 ? response.headers.get('location') : null
      if (location !== null && hop < MAX_REDIRECTS) {
        await response.body?.cancel()
        target = downloadUrl(id, new URL(location, target).href)
        continue
      }
      if (!response.ok) {
        await response.body?.cancel()
        throw new Error(`downloading file ${id} failed with HTTP ${response.status}`)
      }
      return response
    }
  }
}

function downloadUrl(id: string, raw: string): URL {
  try {
    return new URL(raw)
  } catch {
    throw new Error(`file ${id} has no download URL`)
  }
}

/**
 * The size of the bytes the body will yield, when announced: Content-Length counts the bytes on the
 * wire, which for a compressed answer (decoded by fetch) are not the file's.
 */
function decodedSize(response: Response): number | undefined {
  const encoding = response.headers.get('content-encoding')
  if (encoding !== null && encoding.trim().toLowerCase() !== 'identity') return undefined
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

const MAX_REDIRECTS = 5

/** Times a file whose body is cut mid-way is fetched (the gateway's own attempts for a body read whole). */
const BODY_ATTEMPTS = 5

/** The body stopped before its end (a reset, a timeout): a transport failure, not the sink's. */
class BodyCutError extends Error {
  constructor(cause: unknown) {
    super(`the download was cut off: ${cause instanceof Error ? cause.message : String(cause)}`, { cause })
  }
}

/** The body's chunks as they arrive; a failure to read one is a BodyCutError. Returning early cancels the body. */
async function* bodyChunks(response: Response): AsyncGenerator<Uint8Array, void, undefined> {
  const reader = response.body?.getReader()
  if (!reader) return
  let done = false
  try {
    for (;;) {
      let read: ReadableStreamReadResult<Uint8Array>
      try {
        read = await reader.read()
      } catch (error) {
        done = true
        throw new BodyCutError(error)
      }
      if (read.done) {
        done = true
        return
      }
      yield read.value
    }
  } finally {
    if (!done) await reader.cancel().catch(() => undefined)
    reader.releaseLock()
  }
}

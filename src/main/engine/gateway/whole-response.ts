/** Statuses whose responses have no body (a Response cannot be built with one). */
const NULL_BODY_STATUS = new Set([204, 205, 304])

const utf8 = new TextDecoder()

/**
 * A response whose body was read in full once (see `readWhole`). Its readers hand out those very bytes:
 * a Response rebuilt from a buffer copies it at construction and again through its stream when read,
 * which for a large space's revision (tens of megabytes of JSON) was two more copies of the largest
 * thing a pass holds, and for every downloaded file two more allocations of its size. Like any
 * Response, its body can be read once.
 */
export class WholeResponse extends Response {
  private used = false
  private stream: Response['body'] = null

  constructor(
    source: Response,
    private readonly content: Uint8Array<ArrayBuffer>,
  ) {
    super(null, { status: source.status, statusText: source.statusText, headers: source.headers })
    this.sourceUrl = source.url
  }

  private readonly sourceUrl: string

  override get url(): string {
    return this.sourceUrl
  }

  override get bodyUsed(): boolean {
    return this.used
  }

  /** A stream over the bytes, made only for a caller that asks for one (a streaming reader). */
  override get body(): Response['body'] {
    if (NULL_BODY_STATUS.has(this.status)) return null
    if (!this.stream) {
      const bytes = this.content
      this.stream = new ReadableStream<Uint8Array<ArrayBuffer>>({
        start: (controller) => {
          this.used = true
          if (bytes.byteLength > 0) controller.enqueue(bytes)
          controller.close()
        },
      })
    }
    return this.stream
  }

  private take(): Uint8Array<ArrayBuffer> {
    if (this.used) throw new TypeError('Body is unusable: Body has already been read')
    this.used = true
    return this.content
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = this.take()
    return bytes.byteOffset === 0 && bytes.byteLength === bytes.buffer.byteLength ? bytes.buffer : bytes.slice().buffer
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    return new Uint8Array(await this.arrayBuffer())
  }

  override async text(): Promise<string> {
    return utf8.decode(this.take())
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text())
  }

  override async blob(): Promise<Blob> {
    return new Blob([this.take()], { type: this.headers.get('content-type') ?? '' })
  }

  override clone(): WholeResponse {
    if (this.used) throw new TypeError('Response.clone: Body has already been consumed.')
    return new WholeResponse(this, this.content)
  }
}

/**
 * The response with its body read in full. Reading is part of the attempt: a body cut mid-read
 * (`TypeError: terminated`) or stalled past the timeout is a transport failure to classify and retry
 * there, not an error surfacing later from inside the API client as if the service had said something.
 */
export async function readWhole(response: Response): Promise<WholeResponse> {
  const bytes = NULL_BODY_STATUS.has(response.status) ? new Uint8Array(0) : new Uint8Array(await response.arrayBuffer())
  return new WholeResponse(response, bytes)
}

/**
 * How long one request may take: a base (the answer's wait) plus its bytes at a slow but honest rate, for
 * the request body and for the answer's. A fixed limit failed big content batches and big files on a slow
 * link while a small request that hangs should still fail soon: a 10 MB batch on a 1 Mbit/s uplink needs
 * 80 s, a page 30 s at most. An answer of unannounced length (chunked, compressed) earns its time as its
 * bytes arrive.
 */

/** The slowest rate a transfer is allowed before it counts as stalled: about 1 Mbit/s. */
export const SLOWEST_BYTES_PER_SECOND = 128 * 1024

export class TransferDeadline {
  private readonly controller = new AbortController()
  private timer: ReturnType<typeof setTimeout> | undefined
  private readonly started = Date.now()
  private deadline: number
  private done = false

  constructor(
    private readonly baseMs: number,
    private readonly bytesPerSecond: number,
    requestBytes: number,
  ) {
    this.deadline = this.started + baseMs + this.timeFor(requestBytes)
    this.arm()
  }

  get signal(): AbortSignal {
    return this.controller.signal
  }

  /** More time for `bytes` more to move. */
  allow(bytes: number) {
    if (this.done || bytes <= 0) return
    this.deadline += this.timeFor(bytes)
    this.arm()
  }

  /** The transfer ended (or failed): no abort will come. */
  clear() {
    this.done = true
    if (this.timer) clearTimeout(this.timer)
  }

  private timeFor(bytes: number): number {
    return Math.ceil((bytes * 1000) / this.bytesPerSecond)
  }

  private arm() {
    if (this.timer) clearTimeout(this.timer)
    const allowed = this.deadline - Date.now()
    this.timer = setTimeout(() => {
      this.done = true
      const seconds = Math.round((this.deadline - this.started) / 100) / 10
      // A TimeoutError, as AbortSignal.timeout raises: the gateway tells timeouts apart by that name.
      this.controller.abort(new DOMException(`no complete answer within ${seconds} s (${this.baseMs / 1000} s and the time its bytes need)`, 'TimeoutError'))
    }, Math.max(0, allowed))
    // A pending deadline never keeps the process alive on its own.
    this.timer.unref?.()
  }
}

/** Bytes of a request body as fetch will send them, when that can be told without reading it (else 0). */
export function requestBodyBytes(body: RequestInit['body']): number {
  if (body === null || body === undefined) return 0
  if (typeof body === 'string') return Buffer.byteLength(body)
  if (body instanceof ArrayBuffer) return body.byteLength
  if (ArrayBuffer.isView(body)) return body.byteLength
  if (body instanceof Blob) return body.size
  if (body instanceof URLSearchParams) return Buffer.byteLength(body.toString())
  return 0
}

/** The answer's announced length on the wire (compressed, when it is), if any. */
export function announcedLength(response: Response): number | undefined {
  const length = Number(response.headers.get('content-length') ?? Number.NaN)
  return Number.isSafeInteger(length) && length >= 0 ? length : undefined
}

/**
 * The response with its body under the deadline: time for an announced length is given at once, an
 * unannounced one earns it chunk by chunk; the deadline ends with the body (read to the end, failed or
 * cancelled).
 */
export function bodyUnderDeadline(response: Response, deadline: TransferDeadline): Response {
  const length = announcedLength(response)
  if (length !== undefined) deadline.allow(length)
  if (!response.body) {
    deadline.clear()
    return response
  }
  const counted = response.body.pipeThrough(
    new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        if (length === undefined) deadline.allow(chunk.byteLength)
        controller.enqueue(chunk)
      },
      flush() {
        deadline.clear()
      },
    }),
  )
  const wrapped = new Response(counted, { status: response.status, statusText: response.statusText, headers: response.headers })
  Object.defineProperty(wrapped, 'url', { value: response.url })
  return wrapped
}

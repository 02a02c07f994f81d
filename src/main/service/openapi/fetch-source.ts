import type { OpenApiProcessError } from '../store/openapi-specs'

export interface FetchOptions {
  timeoutMs: number
  maxBytes: number
}

export type FetchOutcome =
  | { ok: true; text: string; contentType: string }
  | { ok: false; code: 'FETCH_TIMEOUT' | 'FETCH_ERROR'; error: OpenApiProcessError }

/** Node's fetch hides the socket error (ECONNREFUSED, ENOTFOUND...) in `cause`. */
function systemErrorCode(error: unknown): string | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 4 && current && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code
    if (typeof code === 'string') return code
    current = (current as { cause?: unknown }).cause
  }
  return undefined
}

function describe(error: unknown): string {
  const cause = (error as { cause?: unknown })?.cause
  if (cause instanceof Error && cause.message) return cause.message
  return error instanceof Error ? error.message : String(error)
}

async function readCapped(response: Response, maxBytes: number): Promise<Buffer> {
  const declared = Number(response.headers.get('content-length'))
  if (Number.isFinite(declared) && declared > maxBytes) throw new TooLargeError(maxBytes)
  const chunks: Buffer[] = []
  let size = 0
  if (!response.body) return Buffer.alloc(0)
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > maxBytes) {
      await reader.cancel()
      throw new TooLargeError(maxBytes)
    }
    chunks.push(Buffer.from(value))
  }
  return Buffer.concat(chunks)
}

class TooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the specification is larger than ${maxBytes} bytes`)
  }
}

/**
 * Fetches a specification's text. The deadline covers the whole exchange, body included, so a server
 * that accepts the connection and never answers ends as FETCH_TIMEOUT rather than hanging the run.
 */
export async function fetchSpecSource(url: string, options: FetchOptions): Promise<FetchOutcome> {
  const signal = AbortSignal.timeout(options.timeoutMs)
  try {
    const response = await fetch(url, {
      signal,
      redirect: 'follow',
      headers: { Accept: 'application/json, application/yaml, text/yaml, text/plain;q=0.9, */*;q=0.5' },
    })
    if (!response.ok) {
      await response.body?.cancel().catch(() => undefined)
      return {
        ok: false,
        code: 'FETCH_ERROR',
        error: { code: `HTTP_${response.status}`, message: `${url} answered HTTP ${response.status} ${response.statusText}`.trim() },
      }
    }
    const bytes = await readCapped(response, options.maxBytes)
    return { ok: true, text: bytes.toString('utf8'), contentType: response.headers.get('content-type') ?? '' }
  } catch (error) {
    if (signal.aborted) {
      return { ok: false, code: 'FETCH_TIMEOUT', error: { code: 'TIMEOUT', message: `no complete answer from ${url} within ${options.timeoutMs} ms` } }
    }
    if (error instanceof TooLargeError) return { ok: false, code: 'FETCH_ERROR', error: { code: 'TOO_LARGE', message: error.message } }
    return { ok: false, code: 'FETCH_ERROR', error: { code: systemErrorCode(error) ?? 'FETCH_FAILED', message: `fetching ${url} failed: ${describe(error)}` } }
  }
}

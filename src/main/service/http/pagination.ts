import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { badRequest } from './errors'

const DEFAULT_LIMIT = 50

export interface ListEnvelope<T> {
  next?: { page: string }
  count: number
  items: T[]
}

// Tokens are signed so a client can only send back what this process issued: a token edited or made up
// by hand is refused (400) instead of silently paging from an arbitrary offset. The key lives as long
// as the process, so a list started before a restart is started again.
const TOKEN_KEY = randomBytes(32)

const signature = (payload: string) => createHmac('sha256', TOKEN_KEY).update(payload).digest('base64url').slice(0, 22)

/** Page tokens are opaque to clients; inside they carry the offset of the next page. */
function encodeToken(offset: number): string {
  const payload = Buffer.from(JSON.stringify({ o: offset })).toString('base64url')
  return `${payload}.${signature(payload)}`
}

function decodeToken(token: string): number {
  const [payload, mac, ...rest] = token.split('.')
  const expected = payload ? Buffer.from(signature(payload)) : undefined
  if (rest.length === 0 && mac && expected && Buffer.byteLength(mac) === expected.length && timingSafeEqual(Buffer.from(mac), expected)) {
    try {
      const parsed = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8')) as { o?: unknown }
      if (typeof parsed.o === 'number' && Number.isInteger(parsed.o) && parsed.o >= 0) return parsed.o
    } catch {
      // fall through to the error below
    }
  }
  throw badRequest('query/page is not a page token this service issued')
}

/**
 * Slices a full list into the published envelope. `count` is the size of the whole list; `next` is
 * absent on the last page.
 */
export function paginate<T, U = T>(all: readonly T[], query: Record<string, unknown>, map?: (item: T) => U): ListEnvelope<U> {
  const rawLimit = query.limit
  const limit = rawLimit === undefined ? DEFAULT_LIMIT : Number(rawLimit)
  if (!Number.isFinite(limit) || limit < 0 || limit > 1000) throw badRequest('query/limit must be a number from 0 to 1000')
  const size = Math.floor(limit) || DEFAULT_LIMIT
  const offset = typeof query.page === 'string' && query.page !== '' ? decodeToken(query.page) : 0
  const slice = all.slice(offset, offset + size)
  const items = map ? slice.map(map) : (slice as unknown as U[])
  const envelope: ListEnvelope<U> = { count: all.length, items }
  if (offset + size < all.length) envelope.next = { page: encodeToken(offset + size) }
  return envelope
}

import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { RevisionsRepository } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'

/**
 * Signed, unauthenticated download links for stored blobs (file bytes, generated PDFs):
 *   GET /files/<oid>/<name>?type=<content type>[&exp=<epoch seconds>]&sig=<hmac>
 * (a name that is a dot segment, `.` or `..`, as `/files/<oid>/file?name=..&…`, which no URL parser
 * rewrites).
 * A blob id alone is guessable by anyone who has the content, so links carry an HMAC keyed by a
 * secret of this process; links therefore stop working when the service restarts, like the hosted
 * service's temporary URLs stop working after a while.
 */
const SECRET = randomBytes(32)
export const DOWNLOAD_PREFIX = '/files/'

export interface DownloadTarget {
  oid: string
  name: string
  contentType: string
  /** Epoch seconds after which the link is refused; absent = valid while the process runs. */
  expiresAt?: number
}

export interface DownloadReply {
  status: number
  headers: Record<string, string>
  body: Buffer
}

function signature(target: DownloadTarget): string {
  return createHmac('sha256', SECRET)
    .update([target.oid, target.name, target.contentType, target.expiresAt ?? ''].join('\n'))
    .digest('base64url')
}

export function signedDownloadUrl(origin: string, target: DownloadTarget): string {
  const query = new URLSearchParams({ type: target.contentType })
  if (target.expiresAt !== undefined) query.set('exp', String(target.expiresAt))
  // `.` and `..` (even written `%2e`) are dot segments every URL parser removes: such a name goes in the
  // query, under a placeholder segment, so the link still reaches this route.
  if (isDotSegment(target.name)) query.set('name', target.name)
  query.set('sig', signature(target))
  const segment = isDotSegment(target.name) ? DOT_NAME_SEGMENT : encodeURIComponent(target.name)
  return `${origin}${DOWNLOAD_PREFIX}${target.oid}/${segment}?${query.toString()}`
}

const DOT_NAME_SEGMENT = 'file'
const isDotSegment = (name: string) => name === '.' || name === '..'

const plain = (status: number, message: string): DownloadReply => ({
  status,
  headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  body: Buffer.from(`${message}\n`),
})

/** Answers a request under `/files/`; a link that was not issued by this process is a 404. */
export function serveDownload(store: ServiceStore, method: string, url: URL): DownloadReply {
  if (method !== 'GET') return plain(405, `${method} is not allowed on downloads`)
  const match = /^\/files\/([0-9a-f]{40})\/([^/]+)$/.exec(url.pathname)
  const sig = url.searchParams.get('sig') ?? ''
  const contentType = url.searchParams.get('type') ?? ''
  const exp = url.searchParams.get('exp')
  if (!match || !contentType || (exp !== null && !/^\d{1,12}$/.test(exp))) return plain(404, 'Not found')
  let name: string
  try {
    name = decodeURIComponent(match[2])
  } catch {
    return plain(404, 'Not found')
  }
  const dotName = url.searchParams.get('name')
  if (dotName !== null) {
    if (!isDotSegment(dotName) || name !== DOT_NAME_SEGMENT) return plain(404, 'Not found')
    name = dotName
  }
  const target: DownloadTarget = { oid: match[1], name, contentType, ...(exp !== null ? { expiresAt: Number(exp) } : {}) }
  const expected = Buffer.from(signature(target))
  const given = Buffer.from(sig)
  if (expected.length !== given.length || !timingSafeEqual(expected, given)) return plain(404, 'Not found')
  if (target.expiresAt !== undefined && target.expiresAt * 1000 < store.clock().getTime()) return plain(410, 'This download link has expired')
  const bytes = store.repo(RevisionsRepository).blob(target.oid)
  if (!bytes) return plain(404, 'Not found')
  return {
    status: 200,
    headers: {
      'Content-Type': contentType,
      'Content-Disposition': `inline; filename*=UTF-8''${encodeURIComponent(name)}`,
      'Cache-Control': 'private, max-age=3600',
      'X-Content-Type-Options': 'nosniff',
    },
    body: bytes,
  }
}

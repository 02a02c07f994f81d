import type { ServerResponse } from 'node:http'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import zlib from 'node:zlib'
import { promisify } from 'node:util'

/**
 * Compressed JSON answers, as the request's Accept-Encoding asks (issue 26): a revision tree of an
 * 800-page space gzips about 4x, and over a 50 Mbit/s link the bytes are most of a first mirror's time.
 * Answers below COMPRESS_ABOVE_BYTES go as they are (the headers would outweigh the gain).
 */
export const COMPRESS_ABOVE_BYTES = 1024

export type ContentCoding = 'br' | 'gzip'

/**
 * Brotli's default quality (11) costs seconds per MB; 4 compresses JSON about as well as gzip's default
 * (and better), at gzip's speed.
 */
const BROTLI_QUALITY = 4

const gzip = promisify(zlib.gzip)
const brotli = promisify(zlib.brotliCompress)

/** The coding an Accept-Encoding header asks for, br before gzip; undefined for none (or `identity` only). */
export function chosenCoding(header: string | string[] | undefined): ContentCoding | undefined {
  const text = Array.isArray(header) ? header.join(',') : (header ?? '')
  const accepted = new Map<string, number>()
  for (const part of text.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)?.[1]).find((v) => v !== undefined)
    accepted.set(name, q === undefined ? 1 : Number(q))
  }
  const weight = (coding: string) => accepted.get(coding) ?? accepted.get('*') ?? 0
  if (weight('br') > 0) return 'br'
  if (weight('gzip') > 0) return 'gzip'
  return undefined
}

/** The body compressed in zlib's thread pool, off the event loop. */
export function compressed(body: Buffer, coding: ContentCoding): Promise<Buffer> {
  if (coding === 'gzip') return gzip(body)
  return brotli(body, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length } })
}

function compressor(coding: ContentCoding, size: number) {
  if (coding === 'gzip') return zlib.createGzip()
  return zlib.createBrotliCompress({ params: { [zlib.constants.BROTLI_PARAM_QUALITY]: BROTLI_QUALITY, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: size } })
}

/**
 * JSON made ahead in pieces (a large page's document) written through a compressor, pieces never joined;
 * its length is not known ahead, so the answer goes chunked. A client gone mid-answer ends it quietly.
 */
export async function writeCompressedPieces(res: ServerResponse, pieces: readonly Buffer[], coding: ContentCoding, size: number): Promise<void> {
  try {
    await pipeline(Readable.from(pieces), compressor(coding, size), res)
  } catch {
    // The connection closed before the answer was sent: nobody reads it.
    if (!res.destroyed) res.destroy()
  }
}

/**
 * What we can tell about uploaded bytes without any I/O: a content type from
 * the file name and the pixel size of common image formats (the API reports
 * `dimensions` for images).
 */

const CONTENT_TYPES: Record<string, string> = {
  png: 'image/png',
  jpg: 'image/jpeg',
  jpeg: 'image/jpeg',
  gif: 'image/gif',
  webp: 'image/webp',
  svg: 'image/svg+xml',
  avif: 'image/avif',
  ico: 'image/x-icon',
  pdf: 'application/pdf',
  zip: 'application/zip',
  json: 'application/json',
  txt: 'text/plain',
  md: 'text/markdown',
  csv: 'text/csv',
  mp4: 'video/mp4',
  webm: 'video/webm',
  mp3: 'audio/mpeg',
}

/** Content type implied by a file name's extension; `application/octet-stream` when unknown. */
export function contentTypeFromName(name: string): string {
  const extension = name.includes('.') ? name.slice(name.lastIndexOf('.') + 1).toLowerCase() : ''
  return CONTENT_TYPES[extension] ?? 'application/octet-stream'
}

export interface Dimensions {
  width: number
  height: number
}

/** Width and height of a PNG, GIF, JPEG or WebP image; undefined for anything else or truncated data. */
export function imageDimensions(bytes: Uint8Array): Dimensions | undefined {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  try {
    if (startsWith(bytes, [0x89, 0x50, 0x4e, 0x47])) return { width: view.getUint32(16), height: view.getUint32(20) }
    if (startsWith(bytes, [0x47, 0x49, 0x46, 0x38])) return { width: view.getUint16(6, true), height: view.getUint16(8, true) }
    if (startsWith(bytes, [0xff, 0xd8])) return jpegDimensions(bytes, view)
    if (startsWith(bytes, [0x52, 0x49, 0x46, 0x46]) && ascii(bytes, 8, 4) === 'WEBP') return webpDimensions(bytes, view)
  } catch {
    // A RangeError from a truncated header: the bytes are not a readable image.
  }
  return undefined
}

/** Walks JPEG segments to the first start-of-frame marker, which holds the size. */
function jpegDimensions(bytes: Uint8Array, view: DataView): Dimensions | undefined {
  let offset = 2
  while (offset + 9 < bytes.length) {
    if (bytes[offset] !== 0xff) return undefined
    const marker = bytes[offset + 1]
    const isStartOfFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isStartOfFrame) return { height: view.getUint16(offset + 5), width: view.getUint16(offset + 7) }
    offset += 2 + view.getUint16(offset + 2)
  }
  return undefined
}

function webpDimensions(bytes: Uint8Array, view: DataView): Dimensions | undefined {
  const chunk = ascii(bytes, 12, 4)
  if (chunk === 'VP8 ') return { width: view.getUint16(26, true) & 0x3fff, height: view.getUint16(28, true) & 0x3fff }
  if (chunk === 'VP8L') {
    const bits = view.getUint32(21, true)
    return { width: (bits & 0x3fff) + 1, height: ((bits >> 14) & 0x3fff) + 1 }
  }
  if (chunk === 'VP8X') {
    const width = 1 + (bytes[24] | (bytes[25] << 8) | (bytes[26] << 16))
    const height = 1 + (bytes[27] | (bytes[28] << 8) | (bytes[29] << 16))
    return { width, height }
  }
  return undefined
}

function startsWith(bytes: Uint8Array, prefix: number[]): boolean {
  return prefix.every((byte, i) => bytes[i] === byte)
}

function ascii(bytes: Uint8Array, offset: number, length: number): string {
  return String.fromCharCode(...bytes.subarray(offset, offset + length))
}

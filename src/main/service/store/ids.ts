import { randomBytes } from 'node:crypto'

const ALPHABET = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'

/** Opaque identifiers like the hosted service's: 20 characters of base62. */
export function newId(length = 20): string {
  const bytes = randomBytes(length)
  let id = ''
  for (const b of bytes) id += ALPHABET[b % ALPHABET.length]
  return id
}

export function newSecret(): string {
  return `qs_${randomBytes(24).toString('base64url')}`
}

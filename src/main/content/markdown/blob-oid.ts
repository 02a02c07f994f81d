/**
 * Git's blob object id: SHA-1 of `blob <byte length>\0` followed by the bytes.
 * Pages and files are stored content-addressed by this id so that the service's
 * `git.oid` fields and a real `git hash-object` of the synced file agree.
 */
import { createHash } from 'node:crypto'

const utf8 = new TextEncoder()

export function toBytes(content: string | Uint8Array): Uint8Array {
  return typeof content === 'string' ? utf8.encode(content) : content
}

export function gitBlobOid(content: string | Uint8Array): string {
  const bytes = toBytes(content)
  return createHash('sha1').update(`blob ${bytes.byteLength}\0`).update(bytes).digest('hex')
}

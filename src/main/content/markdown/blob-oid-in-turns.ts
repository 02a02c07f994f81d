/**
 * `gitBlobOid` of a large text over several turns of the event loop (issue 16): encoding and hashing a
 * 5 MB page file in one go held the service's loop for 15-25 ms, in proportion to the page. The text is
 * encoded and hashed a slice at a time, the loop given back between slices; the oid is the same.
 */
import { createHash } from 'node:crypto'
import { giveBackTurn } from './turn-clock'

/** Characters encoded and hashed per turn: about a millisecond's work. */
const SLICE_CHARS = 512 * 1024

export async function gitBlobOidInTurns(text: string, sliceChars = SLICE_CHARS): Promise<string> {
  const hash = createHash('sha1').update(`blob ${Buffer.byteLength(text, 'utf8')}\0`)
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + sliceChars)
    // A surrogate pair split across two slices would encode as two replacement characters.
    if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1)) && to - 1 > from) to--
    hash.update(text.slice(from, to), 'utf8')
    from = to
    if (from < text.length) await giveBackTurn()
  }
  return hash.digest('hex')
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

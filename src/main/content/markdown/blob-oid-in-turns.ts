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
  // Two passes: the header needs the byte length first (counting 5 MB in one go took ~10 ms).
  const slices = slicesOf(text, sliceChars)
  let bytes = 0
  for (const slice of slices) {
    bytes += Buffer.byteLength(slice, 'utf8')
    await giveBackTurn()
  }
  const hash = createHash('sha1').update(`blob ${bytes}\0`)
  for (const slice of slices) {
    hash.update(slice, 'utf8')
    await giveBackTurn()
  }
  return hash.digest('hex')
}

/** `text` cut into slices of at most `sliceChars`, never between the two halves of a surrogate pair. */
function slicesOf(text: string, sliceChars: number): string[] {
  const slices: string[] = []
  for (let from = 0; from < text.length; ) {
    let to = Math.min(text.length, from + sliceChars)
    // A pair split across two slices would encode as two replacement characters: the slice ends before
    // the pair, or after it where the pair is all the slice holds.
    if (to < text.length && isHighSurrogate(text.charCodeAt(to - 1))) to += to - 1 > from ? -1 : 1
    slices.push(text.slice(from, to))
    from = to
  }
  return slices
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff

/**
 * How deep a request's JSON may nest. Free-form document `data` is the only place the spec leaves
 * nesting open, and real documents stay within a few dozen levels; JSON.stringify, the spec validator
 * and the document walkers recurse, so a 10,000-deep body would overflow the stack on the way out.
 */
export const MAX_JSON_DEPTH = 256

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN_BRACE = 0x7b
const OPEN_BRACKET = 0x5b
const CLOSE_BRACE = 0x7d
const CLOSE_BRACKET = 0x5d

/**
 * True when the JSON text nests objects and arrays more than `limit` levels deep. One pass over the text
 * before it is parsed (brackets inside strings do not count): about a sixth of JSON.parse's time, where a walk
 * of the parsed value costs about as much as the parse itself.
 */
export function nestsDeeperThan(text: string, limit = MAX_JSON_DEPTH): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === BACKSLASH) i++
      else if (c === QUOTE) inString = false
    } else if (c === QUOTE) inString = true
    else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      if (++depth > limit) return true
    } else if (c === CLOSE_BRACE || c === CLOSE_BRACKET) depth--
  }
  return false
}

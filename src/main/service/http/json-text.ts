import { ApiError } from './errors'

/**
 * The text of a JSON request body, read strictly. Bytes that are not UTF-8 would be decoded as U+FFFD
 * (and stored so, while the answer echoed what was sent), and a string may name a lone surrogate
 * (`"\ud800"`) that no UTF-8 file or database text can hold: the GitBook API takes neither. Both are
 * the client's mistake: a 400, and nothing is written.
 */

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true })

/** The body's bytes as text; a 400 when they are not valid UTF-8. */
export function decodeJsonBody(raw: Buffer): string {
  try {
    return STRICT_UTF8.decode(raw)
  } catch {
    throw new ApiError(400, 'request body is not valid UTF-8')
  }
}

/** `\uD800`-`\uDFFF` escapes: the only way valid UTF-8 text can bring a surrogate into a parsed string. */
const SURROGATE_ESCAPE = /\\u[dD][89a-fA-F]/
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

/**
 * A 400 when a string of the parsed body (a value or a key) holds a lone surrogate. Looked for only when
 * the text escapes a surrogate at all (pairs escaped as `\ud83d\ude00` are fine), so most bodies cost one
 * regular expression over their text.
 */
export function refuseLoneSurrogates(text: string, body: unknown) {
  if (!SURROGATE_ESCAPE.test(text)) return
  const where = loneSurrogateAt(body, '')
  if (where !== undefined) throw new ApiError(400, `request body holds a lone UTF-16 surrogate (not a Unicode character) at ${where || 'its top level'}`)
}

/** The JSON path of the first string holding a lone surrogate. Depth is bounded (json-depth.ts) before parsing. */
function loneSurrogateAt(value: unknown, path: string): string | undefined {
  if (typeof value === 'string') return LONE_SURROGATE.test(value) ? path : undefined
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = loneSurrogateAt(value[i], `${path}[${i}]`)
      if (found !== undefined) return found
    }
    return undefined
  }
  if (value !== null && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (LONE_SURROGATE.test(key)) return `${path}.<a key>`
      const found = loneSurrogateAt(item, `${path}.${key}`)
      if (found !== undefined) return found
    }
  }
  return undefined
}

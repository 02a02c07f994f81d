/**
 * Tokens never reach an error message, a log line or an exception's text. Every token this process uses
 * is remembered here (the gateway registers its own), and whatever formats errors for a person or a log
 * passes the text through `redactSecrets` first. Errors quote header values whole (undici puts
 * `"Bearer <token>"` into "invalid header value"), so the scrub happens on the text, not the cause.
 */

const REDACTED = '[redacted]'
/** Shorter strings are not secrets worth scrubbing, and scrubbing them would mangle ordinary text. */
const MIN_SECRET_LENGTH = 8
/** What a header value can carry and a person can paste: printable ASCII without spaces. */
const TOKEN_SHAPE = /^[\x21-\x7e]+$/
export const MAX_TOKEN_LENGTH = 4096

const known = new Set<string>()
let patterns: string[] = []

/** Pieces of a secret that could be printed alone: itself, its JSON-escaped form, its lines. */
function forms(secret: string): string[] {
  // eslint-disable-next-line no-control-regex -- splitting on control characters is the point
  const pieces = [secret, JSON.stringify(secret).slice(1, -1), ...secret.split(/[\x00-\x20\x7f]+/)]
  return pieces.filter((p) => p.length >= MIN_SECRET_LENGTH)
}

export function registerSecret(secret: string | undefined): void {
  if (!secret || known.has(secret)) return
  known.add(secret)
  // Longest first, so a secret's whole form is replaced before one of its lines.
  patterns = [...new Set([...known].flatMap(forms))].sort((a, b) => b.length - a.length)
}

/** The text with every known token (and `extra`) and anything after `Bearer ` replaced. */
export function redactSecrets(text: string, extra: Iterable<string> = []): string {
  let out = text
  const all = [...patterns, ...[...extra].flatMap(forms)]
  for (const secret of all) out = out.split(secret).join(REDACTED)
  return out.replace(/\b(Bearer)\s+(?!\[redacted\])[^\s"'`,;)\]}]+/gi, `$1 ${REDACTED}`)
}

/** The message of an error, scrubbed. */
export function redactedMessage(error: unknown): string {
  return redactSecrets(error instanceof Error ? error.message : String(error))
}

/** A token that cannot be sent as `Authorization: Bearer <token>`; the message never quotes it. */
export class UnusableTokenError extends Error {
  constructor(reason: string) {
    super(`the token ${reason}; copy it again from the service's developer settings`)
    this.name = 'UnusableTokenError'
  }
}

/** Throws UnusableTokenError unless the token can be carried in an HTTP header as it is. */
export function checkTokenShape(token: string): void {
  if (token === '') throw new UnusableTokenError('is empty')
  if (token.length > MAX_TOKEN_LENGTH) throw new UnusableTokenError(`is ${token.length} characters long (at most ${MAX_TOKEN_LENGTH})`)
  if (!TOKEN_SHAPE.test(token)) {
    // eslint-disable-next-line no-control-regex -- naming the control character is the point
    const odd = /[\r\n]/.test(token) ? 'a line break' : /\s/.test(token) ? 'a space' : /[\x00-\x1f\x7f]/.test(token) ? 'a control character' : 'a character outside printable ASCII'
    throw new UnusableTokenError(`contains ${odd}, which an HTTP header cannot carry`)
  }
}

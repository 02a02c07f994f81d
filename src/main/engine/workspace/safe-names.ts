import path from 'node:path'

const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i
// Characters Windows forbids in names, plus control characters (C0 and DEL).
// eslint-disable-next-line no-control-regex
const FORBIDDEN = /[<>:"/\\|?*\u0000-\u001f\u007f]/g
const MAX_NAME_BYTES = 255

function truncateUtf8(name: string, maxBytes: number): string {
  if (Buffer.byteLength(name) <= maxBytes) return name
  const ext = path.posix.extname(name)
  const keepExt = ext.length > 0 && ext.length <= 16 ? ext : ''
  let stem = name.slice(0, name.length - keepExt.length)
  // Cut whole code points until stem + extension fits.
  const chars = Array.from(stem)
  while (chars.length > 0 && Buffer.byteLength(chars.join('') + keepExt) > maxBytes) chars.pop()
  stem = chars.join('')
  return stem + keepExt
}

/**
 * Makes one path segment from the server safe on every desktop OS: NFC, no separators or control
 * characters, no Windows-reserved names or characters, no trailing dots or spaces, not `.`/`..`, at
 * most 255 bytes. Never empty.
 */
export function safeSegment(raw: string): string {
  // Idempotent (a safe name stays as it is), so a stored path can be checked by making it safe again.
  let name = raw
  for (let round = 0; round < 4; round++) {
    const next = safeOnce(name)
    if (next === name) break
    name = next
  }
  return name
}

/**
 * A name `safeOnce` leaves as it is, told by one test: ASCII letters, digits and `_-.() `, not only dots,
 * no trailing dot or space, not a reserved name (tested apart), at most 255 bytes. Most names of a space are.
 */
const PLAIN_NAME = /^(?!\.+$)[A-Za-z0-9_().-][A-Za-z0-9_(). -]{0,254}(?<![. ])$/

function safeOnce(raw: string): string {
  if (PLAIN_NAME.test(raw) && !WINDOWS_RESERVED.test(raw)) return raw
  let name = raw.normalize('NFC').replace(FORBIDDEN, '_')
  name = name.replace(/[. ]+$/u, (m) => '_'.repeat(Math.min(m.length, 1)))
  if (name === '' || name === '.' || name === '..') name = '_'
  if (/^\.+$/.test(name)) name = '_'
  // `CON.md` -> `CON_.md`: the reserved stem is what Windows refuses, whatever the extension.
  if (WINDOWS_RESERVED.test(name)) name = name.replace(/^([^.]*)/, '$1_')
  return truncateUtf8(name, MAX_NAME_BYTES)
}

export class PathEscapeError extends Error {
  constructor(readonly relative: string) {
    super(`refusing a path from the server that leaves its folder: ${JSON.stringify(relative)}`)
  }
}

/**
 * Joins a server-given relative path (e.g. a page's `git.path`) onto `root`, every segment made safe,
 * and proves the result stays inside `root`. Absolute paths and `..` segments never escape.
 */
export function confinedPath(root: string, relative: string): string {
  const segments = relative
    .replace(/\\/g, '/')
    .split('/')
    .filter((s) => s !== '' && s !== '.')
    .map((s) => (s === '..' ? '_' : safeSegment(s)))
  if (segments.length === 0) throw new PathEscapeError(relative)
  const full = path.resolve(root, ...segments)
  const rel = path.relative(path.resolve(root), full)
  // `..` alone or followed by a separator leaves the folder; `...` or `..foo` are ordinary names.
  if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) throw new PathEscapeError(relative)
  return full
}

/**
 * Hands out names within one folder so that no two differ only by Unicode normalization, nor by case
 * where the disk folds it (`foldCase`, the default: they would be one file on macOS and Windows): a
 * later clash gets ` (2)`, ` (3)` before its extension.
 */
export class FolderNameRegistry {
  private readonly taken = new Map<string, string>()

  constructor(private readonly foldCase = true) {}

  /** `accept`: a further rule every name handed out must meet (a candidate that fails it is skipped). */
  claim(wanted: string, owner: string, accept: (name: string) => boolean = () => true): string {
    const base = safeSegment(wanted)
    const ext = path.posix.extname(base)
    const stem = base.slice(0, base.length - ext.length)
    for (let n = 1; ; n++) {
      const candidate = n === 1 ? base : truncateUtf8(`${stem} (${n})${ext}`, MAX_NAME_BYTES)
      if (n > 10_000) throw new Error(`no acceptable name for ${JSON.stringify(wanted)}`)
      if (!accept(candidate)) continue
      const normalized = candidate.normalize('NFC')
      const key = this.foldCase ? normalized.toLowerCase() : normalized
      const holder = this.taken.get(key)
      if (holder === undefined || holder === owner) {
        this.taken.set(key, owner)
        return candidate
      }
    }
  }
}

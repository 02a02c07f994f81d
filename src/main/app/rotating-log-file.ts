import fs from 'node:fs'
import path from 'node:path'

/** How large a log file grows before it is rotated, and how many rotated files (at least 1) are kept beside it. */
export interface RotationLimits {
  maxBytes: number
  keep: number
}

/** A log read in a bug report needs the last days, not the last years: 2 MB now and three before it. */
export const DEFAULT_ROTATION: RotationLimits = { maxBytes: 2 * 1024 * 1024, keep: 3 }

/**
 * An append-only log file that never grows past its limit: when a line would take it over, `name` becomes
 * `name.1` (`name.1` becomes `name.2`, ..., the oldest is dropped) and a new file starts, as GitHub Desktop's
 * log does. Files are created 0600: a log names the user's folders and pages.
 *
 * Both append forms keep the size in memory (one stat when the first line is written), so a line costs one
 * write; the shell's log appends asynchronously (the main process never blocks on it), the backend's
 * activity log synchronously (its entry must be on disk when the call returns).
 */
export class RotatingLogFile {
  private size: number | undefined

  constructor(
    readonly file: string,
    private readonly limits: RotationLimits = DEFAULT_ROTATION,
  ) {}

  appendSync(text: string): void {
    const bytes = Buffer.byteLength(text)
    if (this.size === undefined) {
      fs.mkdirSync(path.dirname(this.file), { recursive: true })
      this.size = fs.statSync(this.file, { throwIfNoEntry: false })?.size ?? 0
    }
    if (this.size > 0 && this.size + bytes > this.limits.maxBytes) this.rotateSync()
    fs.appendFileSync(this.file, text, { mode: 0o600 })
    this.size += bytes
  }

  async append(text: string): Promise<void> {
    const bytes = Buffer.byteLength(text)
    if (this.size === undefined) {
      await fs.promises.mkdir(path.dirname(this.file), { recursive: true })
      this.size = (await fs.promises.stat(this.file).catch(() => undefined))?.size ?? 0
    }
    // Renames are rare (once per maxBytes) and each is one quick metadata change: done in one go.
    if (this.size > 0 && this.size + bytes > this.limits.maxBytes) this.rotateSync()
    await fs.promises.appendFile(this.file, text, { mode: 0o600 })
    this.size += bytes
  }

  /** The files oldest first (rotated ones that exist, then the current one): what a reader replays. */
  files(): string[] {
    const rotated = Array.from({ length: this.limits.keep }, (_, i) => `${this.file}.${this.limits.keep - i}`)
    return [...rotated, this.file].filter((file) => fs.existsSync(file))
  }

  private rotateSync(): void {
    fs.rmSync(`${this.file}.${this.limits.keep}`, { force: true })
    for (let n = this.limits.keep - 1; n >= 1; n--) renameIfPresent(`${this.file}.${n}`, `${this.file}.${n + 1}`)
    renameIfPresent(this.file, `${this.file}.1`)
    this.size = 0
  }
}

/**
 * The last `maxBytes` of the log's text (from its newest files), starting at a whole line: what a reader
 * that only wants the latest entries needs, without reading megabytes of history at start-up.
 */
export function readLogTail(log: RotatingLogFile, maxBytes: number): string {
  const parts: string[] = []
  let left = maxBytes
  for (const file of log.files().reverse()) {
    if (left <= 0) break
    const text = readLastBytes(file, left)
    parts.unshift(text)
    left -= Buffer.byteLength(text)
  }
  const joined = parts.join('')
  // The first line may have been cut by the byte limit: drop it unless the read began at a file's start.
  return left > 0 ? joined : joined.slice(joined.indexOf('\n') + 1)
}

function readLastBytes(file: string, maxBytes: number): string {
  let fd: number
  try {
    fd = fs.openSync(file, 'r')
  } catch {
    return ''
  }
  try {
    const size = fs.fstatSync(fd).size
    const length = Math.min(size, maxBytes)
    const buffer = Buffer.alloc(length)
    fs.readSync(fd, buffer, 0, length, size - length)
    return buffer.toString('utf8')
  } finally {
    fs.closeSync(fd)
  }
}

function renameIfPresent(from: string, to: string): void {
  try {
    fs.renameSync(from, to)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
  }
}

import { createHash } from 'node:crypto'
import fsSync, { constants, type Dirent, type Stats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid, SUMMARY_FILE } from '../../content'
import { contentKind, enclosingIn, folderReason, nameReason } from '../workspace/content-names'
import { statSignature, type StatMemo } from '../workspace/stat-first'
import { MAX_PAGE_BYTES, type LocalFile, type SkipReason } from './push-types'

interface Seen {
  mtimeMs: number
  size: number
  ino: number
  hash: string
}

export interface LocalScan {
  files: Map<string, LocalFile>
  summary?: string
  /**
   * Paths the scan saw but did not read, and why: a folder it does not look into stands for all it
   * holds. Something is there, so a page whose file is among them (or under one) was not removed.
   */
  skipped: Map<string, SkipReason>
  /**
   * Regular files under skipped names (hidden or editor's names, inside hidden folders too) that may
   * hold a page: read only when a page file the caller expects is missing, within SKIPPED_BOUNDS.
   */
  skippedFiles: Map<string, LocalFile>
  /** Files at a new path with the inode a file had at a now empty path in the previous scan: new -> old. */
  inodeMoves: Map<string, string>
}

/**
 * What the scan reads under skipped names, to find a page renamed there (`faq.md~`, `.getting-started/`):
 * names with `.md` in them only, small ones, a few, not deep, never inside `.git`. Cheap by design:
 * nothing of it runs unless a page file is missing.
 */
export const SKIPPED_BOUNDS = { maxFiles: 200, maxBytes: 1024 * 1024, maxEntries: 2000, maxDepth: 4 }

/** Files looked at (lstat) between two turns of the event loop. */
const YIELD_EVERY = 256

/**
 * Scans made, those of them limited to the watcher's paths, files looked at (lstat) and files read to be
 * hashed, in this process (the tests that an idle pass reads nothing and that a save looks at its file, not the folder, count them).
 */
export const scanCounts = { scans: 0, limited: 0, statted: 0, hashed: 0 }

// Opening without following a link: a file swapped for a symlink after the listing is not read through.
const READ_FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0)

/**
 * Lists the files of a space folder that sync up cares about — the workspace content of
 * `content-names.ts`: page files and `.gitbook/assets/**` (and includes) — with their git blob hashes.
 * Hashes are remembered by (mtime, size, inode) between scans, so a scan re-reads only files that
 * changed; text is kept only for the files the caller asks for. Symbolic links are never followed.
 */
export class LocalScanner {
  private readonly seen = new Map<string, Seen>()
  /**
   * What the last scan skipped, kept with `seen` (its files) as the view a scan of changed paths starts
   * from; undefined until a whole scan made one, and after `forgetView`.
   */
  private viewSkipped: Map<string, SkipReason> | undefined
  private statted = 0

  /**
   * `memo`: hashes remembered by stat across processes (the cache's stat journal, which sync down fills):
   * asked on the first scan of this scanner only, so a start over a 20,000-file folder does not read
   * every file again to learn what the cache already knows.
   */
  constructor(
    readonly root: string,
    private readonly memo?: () => StatMemo,
  ) {}

  /**
   * `expected`: paths the caller knows files at (journal, change request); each one neither read nor
   * under a skipped folder is looked at alone (lstat), so only a path with nothing at all there is
   * absent from both `files` and `skipped`.
   */
  async scan(wantText: (path: string, hash: string) => boolean, expected: Iterable<string> = [], changed?: ReadonlySet<string>): Promise<LocalScan> {
    scanCounts.scans++
    if (changed && this.viewSkipped) {
      const limited = await this.scanChanged(changed, wantText, expected)
      if (limited) {
        scanCounts.limited++
        return limited
      }
    }
    this.viewSkipped = undefined
    const files = new Map<string, LocalFile>()
    const skipped = new Map<string, SkipReason>()
    const inodes = new Map<string, number>()
    const previous = new Map(this.seen)
    const memo = this.seen.size === 0 ? this.memo?.() : undefined
    let summary: string | undefined
    // The one buffer this scan hashes assets through: it reads one file at a time (scans of the same
    // folder may overlap, so each has its own).
    const chunk = Buffer.allocUnsafe(256 * 1024)
    const visit = async (dir: string, relative: string): Promise<void> => {
      let entries: Dirent[]
      try {
        entries = await fs.readdir(dir, { withFileTypes: true })
      } catch (error) {
        // A space folder gone as a whole is a moved workspace or an unmounted drive, not the writer
        // deleting every page: nothing is taken for deleted then.
        if (relative === '') skipped.set('.', 'unreadable')
        else if (!isGone(error)) skipped.set(relative, 'unreadable')
        return
      }
      for (const entry of entries) {
        const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
        const full = path.join(dir, entry.name)
        if (entry.isSymbolicLink()) {
          // Never followed, whatever it points at (a folder's pages included).
          const reason = folderReason(rel)
          skipped.set(rel, reason === undefined || reason === 'outside' ? 'symlink' : reason)
          continue
        }
        if (entry.isDirectory()) {
          const reason = folderReason(rel)
          if (reason === undefined) await visit(full, rel)
          else if (reason !== 'outside') skipped.set(rel, reason)
          continue
        }
        const kind = contentKind(rel)
        if (kind === undefined) {
          const reason = nameReason(entry.name)
          if (reason) skipped.set(rel, reason)
          continue
        }
        if (!entry.isFile()) skipped.set(rel, 'not-a-file')
        else {
          const read = await this.read(full, rel, kind === 'page', wantText, chunk, inodes, memo)
          if (typeof read === 'string') skipped.set(rel, read)
          else if (read) {
            if (rel === SUMMARY_FILE) summary = read.text
            files.set(rel, read)
          }
        }
      }
    }
    await visit(this.root, '')
    for (const known of this.seen.keys()) if (!files.has(known)) this.seen.delete(known)
    let missing = false
    for (const rel of expected) {
      if (files.has(rel) || enclosingIn(skipped, rel) !== undefined) continue
      const reason = await this.presence(rel)
      if (reason) skipped.set(rel, reason)
      else missing = true
    }
    const skippedFiles = missing ? await this.readSkipped(skipped, inodes) : new Map<string, LocalFile>()
    this.viewSkipped = new Map(skipped)
    return { files, summary, skipped, skippedFiles, inodeMoves: inodeMoves(previous, inodes, files) }
  }

  /** The next scan walks the whole folder (something may have changed that no path reported says). */
  forgetView() {
    this.viewSkipped = undefined
  }

  /**
   * The scan `scan` would make, from the last scan's view and the files at `changed` alone (the watcher's
   * paths since that scan): those are looked at again, and the pages whose text the plan wants are read
   * as a whole scan reads them. Undefined where the paths cannot say it all — a path gone or a folder
   * (a removal, a move: the old path's page must be found), one under a folder the view skipped, a page
   * file the caller expects missing, any file of the view gone — and the caller walks the whole folder.
   */
  private async scanChanged(changed: ReadonlySet<string>, wantText: (path: string, hash: string) => boolean, expected: Iterable<string>): Promise<LocalScan | undefined> {
    const skipped = new Map(this.viewSkipped)
    const fresh = new Map<string, LocalFile>()
    const inodes = new Map<string, number>()
    const chunk = Buffer.allocUnsafe(256 * 1024)
    for (const rel of changed) {
      if (rel === '' || rel === '.' || enclosingIn(skipped, rel) !== undefined) return undefined
      let outside = false
      for (let at = rel.indexOf('/'); at !== -1; at = rel.indexOf('/', at + 1)) {
        const reason = folderReason(rel.slice(0, at))
        if (reason === 'outside') outside = true
        else if (reason !== undefined) return undefined
      }
      if (outside) continue
      const full = path.join(this.root, ...rel.split('/'))
      let stat: Stats
      try {
        stat = fsSync.lstatSync(full)
      } catch {
        return undefined
      }
      if (!stat.isFile()) return undefined
      const kind = contentKind(rel)
      if (kind === undefined) {
        const reason = nameReason(rel.slice(rel.lastIndexOf('/') + 1))
        if (reason) skipped.set(rel, reason)
        continue
      }
      skipped.delete(rel)
      const read = await this.read(full, rel, kind === 'page', wantText, chunk, inodes)
      if (read === undefined) return undefined
      if (typeof read === 'string') {
        skipped.set(rel, read)
        this.seen.delete(rel)
      } else fresh.set(rel, read)
    }
    // The view's files in the order the last walk listed them (new ones last), each as `read` takes it.
    const files = new Map<string, LocalFile>()
    for (const [rel, seen] of this.seen) {
      const got = fresh.get(rel)
      if (got) {
        files.set(rel, got)
        continue
      }
      const isPage = contentKind(rel) === 'page'
      if (!(isPage && (rel === SUMMARY_FILE || wantText(rel, seen.hash)))) {
        files.set(rel, { hash: seen.hash, size: seen.size })
        continue
      }
      // A file no path reported changed that is gone or no longer a plain file now: the walk says what happened.
      const read = await this.read(path.join(this.root, ...rel.split('/')), rel, true, wantText, chunk, inodes)
      if (read === undefined || typeof read === 'string') return undefined
      files.set(rel, read)
    }
    for (const rel of expected) if (!files.has(rel) && enclosingIn(skipped, rel) === undefined) return undefined
    this.viewSkipped = skipped
    return { files, summary: files.get(SUMMARY_FILE)?.text, skipped, skippedFiles: new Map(), inodeMoves: new Map() }
  }

  /** The regular files under skipped names that may hold a page (SKIPPED_BOUNDS), hashed, with their text. */
  private async readSkipped(skipped: ReadonlyMap<string, SkipReason>, inodes: Map<string, number>): Promise<Map<string, LocalFile>> {
    const out = new Map<string, LocalFile>()
    let entries = 0
    const readOne = async (rel: string) => {
      if (out.size >= SKIPPED_BOUNDS.maxFiles || !/\.md/i.test(rel.slice(rel.lastIndexOf('/') + 1))) return
      try {
        const handle = await fs.open(path.join(this.root, ...rel.split('/')), READ_FLAGS)
        try {
          const stat = await handle.stat()
          if (!stat.isFile() || stat.size > SKIPPED_BOUNDS.maxBytes) return
          const bytes = await handle.readFile()
          inodes.set(rel, stat.ino)
          out.set(rel, { hash: gitBlobOid(bytes), size: bytes.byteLength, text: bytes.toString('utf8') })
        } finally {
          await handle.close()
        }
      } catch {
        // gone, a link, or unreadable since the listing: it holds nothing to find
      }
    }
    // Folders by their listing's types (no stat per entry); only names with `.md` in them are opened.
    const visit = async (rel: string, depth: number): Promise<void> => {
      const name = rel.slice(rel.lastIndexOf('/') + 1)
      if (depth > SKIPPED_BOUNDS.maxDepth || name === '.git' || name === 'node_modules') return
      let list: Dirent[]
      try {
        list = await fs.readdir(path.join(this.root, ...rel.split('/')), { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of list) {
        if (out.size >= SKIPPED_BOUNDS.maxFiles || ++entries > SKIPPED_BOUNDS.maxEntries) return
        if (entry.isDirectory()) await visit(`${rel}/${entry.name}`, depth + 1)
        else if (entry.isFile()) await readOne(`${rel}/${entry.name}`)
      }
    }
    for (const [rel, reason] of skipped) {
      if (reason !== 'hidden' && reason !== 'ignored') continue
      let stat: Stats
      try {
        stat = await fs.lstat(path.join(this.root, ...rel.split('/')))
      } catch {
        continue
      }
      if (stat.isDirectory()) await visit(rel, 1)
      else if (stat.isFile()) await readOne(rel)
    }
    return out
  }

  /** Why something at `rel` was not read, or undefined when nothing is there (lstat: ENOENT, ENOTDIR). */
  private async presence(rel: string): Promise<SkipReason | undefined> {
    // Segment by segment: lstat follows links in the folders above, and a link there is not the writer's removal.
    const segments = rel.split('/')
    let stat: Stats | undefined
    for (let i = 1; i <= segments.length; i++) {
      try {
        stat = await fs.lstat(path.join(this.root, ...segments.slice(0, i)))
      } catch (error) {
        return isGone(error) ? undefined : 'unreadable'
      }
      if (stat.isSymbolicLink()) return 'symlink'
      if (i < segments.length && !stat.isDirectory()) return undefined
    }
    if (!stat!.isFile()) return 'not-a-file'
    // A file that came after the listing, or one under a folder the walk could not list: it is there.
    return 'unreadable'
  }

  private async read(
    full: string,
    rel: string,
    isPage: boolean,
    wantText: (path: string, hash: string) => boolean,
    chunk: Buffer,
    inodes: Map<string, number>,
    memo?: StatMemo,
  ): Promise<LocalFile | SkipReason | undefined> {
    let stat: Stats
    try {
      // Synchronous: a promise per file was most of a 20,000-file scan's CPU. The loop is let go every
      // few hundred files (`yieldEvery`), so a large scan does not hold it.
      stat = fsSync.lstatSync(full)
    } catch (error) {
      return isGone(error) ? undefined : 'unreadable'
    }
    scanCounts.statted++
    if (++this.statted % YIELD_EVERY === 0) await new Promise((resolve) => setImmediate(resolve))
    inodes.set(rel, stat.ino)
    if (stat.isSymbolicLink()) return 'symlink'
    if (!stat.isFile()) return 'not-a-file'
    if (isPage && stat.size > MAX_PAGE_BYTES) return 'too-large'
    const seen = this.seen.get(rel)
    const unchanged = seen && seen.mtimeMs === stat.mtimeMs && seen.size === stat.size && seen.ino === stat.ino
    if (unchanged && !(isPage && (rel === SUMMARY_FILE || wantText(rel, seen.hash)))) return { hash: seen.hash, size: stat.size }
    const known = !seen && memo ? knownHash(memo, full, rel) : undefined
    if (known !== undefined && !(isPage && (rel === SUMMARY_FILE || wantText(rel, known)))) {
      this.seen.set(rel, { mtimeMs: stat.mtimeMs, size: stat.size, ino: stat.ino, hash: known })
      return { hash: known, size: stat.size }
    }
    let bytes: Buffer | undefined
    let hashed: { hash: string; size: number } | undefined
    scanCounts.hashed++
    try {
      const handle = await fs.open(full, READ_FLAGS)
      try {
        // A page's text may be wanted: read whole. Any other file (an asset) only needs its hash, read
        // through one small buffer: a tree of 100 MB of images is not 100 MB of buffers to collect.
        if (!isPage) hashed = await hashStreamed(handle, chunk)
        if (!hashed) bytes = await handle.readFile()
      } finally {
        await handle.close()
      }
    } catch (error) {
      if (isGone(error)) return undefined
      return (error as NodeJS.ErrnoException).code === 'ELOOP' ? 'symlink' : 'unreadable'
    }
    if (bytes && isPage && bytes.byteLength > MAX_PAGE_BYTES) return 'too-large'
    const { hash, size } = hashed ?? { hash: gitBlobOid(bytes!), size: bytes!.byteLength }
    this.seen.set(rel, { mtimeMs: stat.mtimeMs, size, ino: stat.ino, hash })
    const text = bytes && isPage && (rel === SUMMARY_FILE || wantText(rel, hash)) ? bytes.toString('utf8') : undefined
    return { hash, size, ...(text !== undefined ? { text } : {}) }
  }
}

/** The hash the stat journal holds for the file's exact stat now (stat-first.ts says why that vouches for it). */
function knownHash(memo: StatMemo, full: string, rel: string): string | undefined {
  try {
    return memo.hashFor(rel, statSignature(fsSync.lstatSync(full, { bigint: true })))
  } catch {
    return undefined
  }
}

/**
 * Files at paths the previous scan did not have whose inode a file at a now empty path had: the same
 * file renamed (the planner still checks its content, as inodes are reused). Only within one process.
 */
function inodeMoves(previous: ReadonlyMap<string, Seen>, inodes: ReadonlyMap<string, number>, files: ReadonlyMap<string, LocalFile>): Map<string, string> {
  const moves = new Map<string, string>()
  const gone = new Map<number, string>()
  for (const [rel, seen] of previous) if (!files.has(rel) && seen.ino !== 0) gone.set(seen.ino, rel)
  if (gone.size === 0) return moves
  for (const [rel, ino] of inodes) {
    const before = gone.get(ino)
    if (before !== undefined && !previous.has(rel)) moves.set(rel, before)
  }
  return moves
}

function isGone(error: unknown): boolean {
  const code = (error as NodeJS.ErrnoException).code
  return code === 'ENOENT' || code === 'ENOTDIR'
}

/**
 * The git blob hash of an open file, read in chunks; undefined when the file's length changed while it
 * was read (the caller reads it whole then, as the bytes it hashes must be the bytes it counted).
 */
async function hashStreamed(handle: fs.FileHandle, chunk: Buffer): Promise<{ hash: string; size: number } | undefined> {
  const { size } = await handle.stat()
  const hash = createHash('sha1').update(`blob ${size}\0`)
  let read = 0
  for (;;) {
    const { bytesRead } = await handle.read(chunk, 0, chunk.byteLength, read)
    if (bytesRead === 0) break
    read += bytesRead
    if (read > size) return undefined
    hash.update(chunk.subarray(0, bytesRead))
  }
  return read === size ? { hash: hash.digest('hex'), size } : undefined
}

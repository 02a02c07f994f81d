import { createHash } from 'node:crypto'
import { constants, fstatSync, futimesSync, linkSync, lstatSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { NO_HARD_LINKS, putTemp, removeHeld, swapIn } from './name-hold'
import type { ByteStream } from './space-files'
import { tempPath } from './temp-names'

export { TEMP_MARK } from './temp-names'

/** 0 where the platform has no such flag (Windows): there `lstat` checks stand alone. */
const O_NOFOLLOW = constants.O_NOFOLLOW ?? 0

export interface AtomicWriteOptions {
  /**
   * Sync the folder after the rename, so the new name survives a power cut (default true). A caller
   * writing many files passes false and calls `syncFolder` once per folder before relying on them.
   */
  syncFolder?: boolean
}

/**
 * The file is not what the plan was made from: the writer saved, created or removed it meanwhile. Nothing
 * was written, renamed or removed; the writer's bytes are as they left them.
 */
export class LocalFileChanged extends Error {
  constructor(
    readonly label: string,
    readonly how: 'changed' | 'appeared' | 'disappeared',
  ) {
    super(`${label} ${how} locally`)
  }
}

/**
 * Writes a file so that readers see the old or the new content, never a mix: a temp file in the same
 * folder, fsync, rename over the target, fsync of the folder. A full disk fails before the rename, so the
 * old file is untouched. Replaces whatever is there: `replaceIfUnchanged` is the writer-safe form.
 */
export async function writeFileAtomic(target: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> {
  const dir = path.dirname(target)
  let temp: string
  try {
    temp = await writeTempFile(dir, path.basename(target), data)
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error
    // The folder is created only when the temp file cannot be (most writes go to folders that exist).
    await fs.mkdir(dir, { recursive: true })
    temp = await writeTempFile(dir, path.basename(target), data)
  }
  try {
    await fs.rename(temp, target)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
  if (options.syncFolder !== false) await syncFolder(dir)
}

/**
 * A durable temp file in `dir` (which must exist) holding `data`, next to where `name` goes. Created
 * exclusively and without following links, so it never lands on something already there.
 */
export async function writeTempFile(dir: string, name: string, data: string | Uint8Array): Promise<string> {
  return (await writeStampedTempFile(dir, name, data, false)).temp
}

/**
 * `writeTempFile`, and (`stamped`) the temp file's mtime set back by STAMP_BACK_NS before it closes, its
 * stat returned: a file that still has that stat once in place holds these bytes (see `WrittenStamp`).
 */
export async function writeStampedTempFile(dir: string, name: string, data: string | Uint8Array, stamped = true): Promise<{ temp: string; stamp?: WrittenStamp }> {
  const size = typeof data === 'string' ? Buffer.byteLength(data) : data.byteLength
  return writeTemp(dir, name, (handle) => handle.writeFile(data), O_DSYNC !== 0 && size <= ONE_WRITE, stamped)
}

/**
 * What a temp file was when its writer closed it: its inode, size and the mtime it was given, set back
 * STAMP_BACK_NS from the clock. Why a file at the target with this inode, size and mtime still holds the
 * bytes written: any write to it (by any program, through any handle) sets its mtime to the clock's now,
 * which is never a time STAMP_BACK_NS back, on file systems with coarse times too (FAT's 2 s). Only a
 * program that sets the mtime back to exactly this value (an editor that keeps timestamps, saving within
 * the kernel's timestamp tick of the step, since the ctime in the signature moves too) could pass it.
 * So the caller may remember the stat it finds in place as the hash of what it wrote (stat-first.ts),
 * and the next scan need not read the file. The mtime is not the write's time by these seconds.
 */
export interface WrittenStamp {
  dev: bigint
  ino: bigint
  size: bigint
  mtimeNs: bigint
}

/** How far back a written file's mtime is set (WrittenStamp): more than the coarsest mtime tick (FAT's 2 s). */
export const STAMP_BACK_NS = 3_000_000_000n

/** Whether `now` (an lstat of the target) is the stamped temp file, unwritten since. */
export function isStamped(now: BigIntStats | undefined, stamp: WrittenStamp | undefined): now is BigIntStats {
  return now !== undefined && stamp !== undefined && now.isFile() && now.dev === stamp.dev && now.ino === stamp.ino && now.size === stamp.size && now.mtimeNs === stamp.mtimeNs
}

/** 0 where the platform has no such flag (Windows): there the temp file is synced by fsync. */
const O_DSYNC = constants.O_DSYNC ?? 0
/** Bytes Node writes in one write(2) (its writeFile chunk): a file this size is one synchronous write. */
const ONE_WRITE = 512 * 1024
/** A download this size arrives in one or a few chunks: each written synchronously costs less than an fsync's round trip. */
const FEW_CHUNKS = 32 * 1024

/**
 * `writeTempFile` from bytes as they arrive (a download), never held whole, hashed as they are written
 * (git's blob id: `gitBlobOid`). The hash needs the size first: a body that announces none is gathered,
 * then written. A body that ends short of its announced size or runs past it fails, nothing left behind.
 */
export async function writeTempStream(dir: string, name: string, body: ByteStream, stamped = false): Promise<{ temp: string; hash: string; stamp?: WrittenStamp }> {
  const size = body.size
  if (size === undefined) {
    const chunks: Uint8Array[] = []
    for await (const chunk of body.chunks) chunks.push(chunk)
    const bytes = Buffer.concat(chunks)
    return { ...(await writeStampedTempFile(dir, name, bytes, stamped)), hash: gitBlobOid(bytes) }
  }
  const hash = createHash('sha1').update(`blob ${size}\0`)
  let written = 0
  async function* counted() {
    for await (const chunk of body.chunks) {
      written += chunk.byteLength
      if (written > size!) throw new Error(`${name}: the download runs past the ${size} bytes it announced`)
      hash.update(chunk)
      yield chunk
    }
  }
  const temp = await writeTemp(dir, name, async (handle) => {
    for await (const chunk of counted()) {
      for (let at = 0; at < chunk.byteLength; ) at += (await handle.write(chunk, at, chunk.byteLength - at)).bytesWritten
    }
    if (written !== size) throw new Error(`${name}: the download ended after ${written} of the ${size} bytes it announced`)
  }, O_DSYNC !== 0 && size <= FEW_CHUNKS, stamped)
  return { ...temp, hash: hash.digest('hex') }
}

/**
 * A new temp file beside `name` in `dir`, filled by `fill`, synced and closed; removed if anything fails.
 * `dsync`: opened O_DSYNC, so each write returns once its bytes (and what reading them needs) are on
 * disk, as fsync would make them; for a file of one write that spares the fsync's own round trip
 * through the thread pool, per file of a mirror.
 */
async function writeTemp(dir: string, name: string, fill: (handle: fs.FileHandle) => Promise<void>, dsync = false, stamped = false): Promise<{ temp: string; stamp?: WrittenStamp }> {
  const temp = tempPath(dir, name)
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW | (dsync ? O_DSYNC : 0), 0o644)
  let stamp: WrittenStamp | undefined
  try {
    await fill(handle)
    if (stamped) stamp = stampBack(handle.fd)
    if (!dsync) await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await fs.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  return { temp, stamp }
}

/** Sets the open file's times STAMP_BACK_NS back (synchronously: two syscalls of microseconds) and says what it is now. */
function stampBack(fd: number): WrittenStamp {
  const back = new Date(Date.now() - Number(STAMP_BACK_NS / 1_000_000n))
  futimesSync(fd, back, back)
  const stat = fstatSync(fd, { bigint: true })
  return { dev: stat.dev, ino: stat.ino, size: stat.size, mtimeNs: stat.mtimeNs }
}

/*
 * Race-free replacement. A writer may save at any moment, so "check the file, then rename over it"
 * loses a save made between the two. Each guarded operation below therefore does its slow work first
 * (the temp file is written and synced before anything is checked), then proves the target is what the
 * plan expected: its content hashes to `expect` (exact) and, in the same synchronous turn as the final
 * step, an lstat shows the very inode, size, mtime and ctime (nanoseconds) the hash was read from
 * (cheap, and it catches a save during or after the read). The final step follows that lstat with no
 * await between them, and goes through a hold (name-hold.ts): the file is renamed aside, proven to be
 * the checked inode, and only then is the new file linked at the name, which refuses a name taken again.
 * So an editor's save by rename (a new file renamed over the name) that lands after the lstat is moved
 * aside with the name, never unlinked, and goes back; one that lands while the name is free stays. The
 * file it replaces or removes stays open meanwhile: if its size or mtime moved after all (a save that
 * reached that inode inside the window), the writer's bytes are read back from it and put back in place
 * (or beside it as a conflicted copy when the writer has saved yet again), and the step reports the file
 * as changed locally.
 *
 * A write through a handle the writer opened before the step and wrote after the fstat that follows it
 * (an append is an open, then a write: a busy machine may pause the writer between the two) reaches the
 * replaced file after the step: a caller that passes `keep` gets that file, still open, and looks at it
 * again once the writer has had time to finish (replaced-files.ts); one that does not, loses such a write.
 * That look also catches a save renamed over the name after the step (the name holds neither what the
 * step left nor the file it checked): the writer's edit of the text they had, so the step is undone.
 *
 * What remains: a write into a replaced file after the caller's last look at it (a writer paused longer
 * than the watch); a rename-save made from the old text that lands after that look counts as an edit of
 * the new text (it undoes the remote change in what sync up sends; nothing of the writer's is lost).
 * For the microseconds between the hold's rename and the link, nothing is at the name: a reader or an
 * editor that opens the name without creating it (vim's backup rename) fails once there. Filesystems
 * without hard links and names over 200 bytes go without a hold: there a rename-save that lands between
 * the lstat and the step's own rename or unlink is replaced, the way any two programs renaming one name
 * race. Filesystems with coarse timestamps (FAT: 2 s) let a same-size in-place save within one tick of
 * the previous one pass the stat comparison. Creating a file that must not exist has no window at all:
 * `link` fails when the name is taken.
 */

export interface GuardOptions {
  /** Where the writer's bytes go when they cannot go back in place (a conflicted copy beside `target`). */
  copyPath: (target: string) => string
  /** Tests: runs after the read found the file unchanged, before the final lstat. */
  checked?: () => void
  /** Tests: runs after the final lstat, right before the step (inside the window). */
  inWindow?: () => void
  /**
   * Takes the file a replacement or removal took away, still open, so a save that reaches it later is
   * seen (and closes it); without it, the file is closed right after the step.
   */
  keep?: (replaced: ReplacedFile) => void
}

/** The file a step replaced or removed, held open: a writer who opened it before the step may still write to it. */
export interface ReplacedFile {
  /** The name it had. */
  target: string
  handle: fs.FileHandle
  /** Its size and mtime right after the step: a write since shows as a change of either. */
  after: BigIntStats
  /** What the step left at `target` (undefined: nothing). */
  placed: BigIntStats | undefined
}

const HOLD_OPEN = process.platform !== 'win32'

/**
 * Renames `temp` over `target` only if `target` still hashes to `expect` (undefined: nothing is there).
 * `offThread`: a new file (nothing expected) is linked in place on the thread pool rather than in this
 * turn, so the event loop does not wait while other writes hold the folder's lock; only for bytes whose
 * record may wait (a kill before the caller journals them must leave a file the next pass adopts).
 */
export async function replaceIfUnchanged(temp: string, target: string, expect: string | undefined, label: string, guard: GuardOptions, offThread = false): Promise<void> {
  try {
    if (expect === undefined) {
      await (offThread ? createExclusiveOffThread(temp, target, label) : createExclusive(temp, target, label))
      return
    }
    let placed: BigIntStats | undefined
    const overtaken = await whenUnchanged(target, expect, label, guard, (checked) => {
      const step = swapIn(temp, target, checked, guard.copyPath)
      if (step === 'changed' || step === 'disappeared') throw new LocalFileChanged(label, step)
      placed = step
      return placed
    })
    if (overtaken) await putBack(target, overtaken, placed, label, guard)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}

/** Removes `target` only if it still hashes to `expect`. */
export async function removeIfUnchanged(target: string, expect: string, label: string, guard: GuardOptions): Promise<void> {
  const overtaken = await whenUnchanged(target, expect, label, guard, (checked) => {
    const refused = removeHeld(target, checked, guard.copyPath)
    if (refused) throw new LocalFileChanged(label, refused)
  })
  if (overtaken) await putBack(target, overtaken, undefined, label, guard)
}

/** Renames `from` to `to` only if `from` still hashes to `expect` and nothing is at `to`. */
export async function renameIfUnchanged(from: string, to: string, expect: string, labels: { from: string; to: string }, guard: GuardOptions): Promise<void> {
  if (lstatSync(to, { throwIfNoEntry: false })) throw new LocalFileChanged(labels.to, 'appeared')
  // A save that reaches the file just after it moved is in the moved file: nothing to put back.
  await whenUnchanged(from, expect, labels.from, guard, () => {
    // Node has no rename that refuses to replace (renameat2 is Linux-only): this lstat is the guard.
    if (lstatSync(to, { throwIfNoEntry: false })) throw new LocalFileChanged(labels.to, 'appeared')
    renameSync(from, to)
  }, false)
}

/**
 * Runs `step` (no await; it is given the checked file's stat and returns what it left at `target`) once
 * `target` is proven to hold `expect`, read again while the file moves under the read. Returns the
 * replaced file's bytes when a save reached it inside the window; otherwise hands the replaced file to
 * `guard.keep` when `replaces`.
 */
async function whenUnchanged(target: string, expect: string, label: string, guard: GuardOptions, step: (checked: BigIntStats) => BigIntStats | undefined | void, replaces = true): Promise<Uint8Array | undefined> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const seen = await openExpected(target, expect, label)
    let kept = false
    try {
      guard.checked?.()
      // Windows may refuse to replace or remove a file that is open: there the handle is closed first
      // and a save inside the window is not caught.
      if (!HOLD_OPEN) await seen.handle.close()
      const now = lstatSync(target, { bigint: true, throwIfNoEntry: false })
      if (now === undefined) throw new LocalFileChanged(label, 'disappeared')
      if (!sameFile(seen.stat, now)) continue
      guard.inWindow?.()
      const placed = step(now)
      if (!HOLD_OPEN) return undefined
      // The rename or unlink changes the old inode's ctime, not its size or mtime: only a write does.
      const after = fstatSync(seen.handle.fd, { bigint: true })
      if (after.size !== seen.stat.size || after.mtimeNs !== seen.stat.mtimeNs) return await readAll(seen.handle)
      if (replaces && guard.keep) {
        guard.keep({ target, handle: seen.handle, after, placed: placed ?? undefined })
        kept = true
      }
      return undefined
    } finally {
      // Not awaited: the caller journals the step in this same turn (see executePlan).
      if (!kept) void seen.handle.close().catch(() => {})
    }
  }
  throw new LocalFileChanged(label, 'changed')
}

/**
 * The writer saved into the file just replaced or removed: their bytes go back at `target` if it is
 * still what the step left there (`placed`; undefined: nothing), else beside it as a conflicted copy.
 */
async function putBack(target: string, bytes: Uint8Array, placed: BigIntStats | undefined, label: string, guard: GuardOptions): Promise<never> {
  await placeBack(target, bytes, placed, guard.copyPath)
  throw new LocalFileChanged(label, 'changed')
}

/**
 * The writer's `bytes` at `target` if it still holds what a step left there (`placed`; undefined:
 * nothing), else at `copyPath(target)`. Says which.
 */
export async function placeBack(target: string, bytes: Uint8Array, placed: BigIntStats | undefined, copyPath: (target: string) => string): Promise<'in place' | 'copy'> {
  const temp = await writeTempFile(path.dirname(target), path.basename(target), bytes)
  try {
    return putTemp(temp, target, placed, copyPath)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}

/** Opens `target` without following a link and proves it hashes to `expect`; the handle stays open. */
async function openExpected(target: string, expect: string, label: string): Promise<{ handle: fs.FileHandle; stat: BigIntStats }> {
  let handle: fs.FileHandle
  try {
    handle = await fs.open(target, constants.O_RDONLY | O_NOFOLLOW)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new LocalFileChanged(label, 'disappeared')
    // A symbolic link now stands where a file was: not the file planned from.
    if (code === 'ELOOP') throw new LocalFileChanged(label, 'changed')
    throw error
  }
  try {
    const stat = await handle.stat({ bigint: true })
    if (!stat.isFile()) throw new LocalFileChanged(label, 'changed')
    if (gitBlobOid(await readAll(handle)) !== expect) throw new LocalFileChanged(label, 'changed')
    return { handle, stat }
  } catch (error) {
    await handle.close()
    throw error
  }
}

/** The whole file from its start, whatever the handle's position. */
export async function readAll(handle: fs.FileHandle): Promise<Uint8Array> {
  const chunks: Buffer[] = []
  for (let position = 0; ; ) {
    const buffer = Buffer.allocUnsafe(64 * 1024)
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, position)
    if (bytesRead === 0) return Buffer.concat(chunks)
    chunks.push(buffer.subarray(0, bytesRead))
    position += bytesRead
  }
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs
}

/** Puts `temp` at `target` only if nothing is there: `link` refuses an existing name atomically. */
async function createExclusive(temp: string, target: string, label: string): Promise<void> {
  try {
    linkSync(temp, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (code === 'EEXIST') throw new LocalFileChanged(label, 'appeared')
    if (!NO_HARD_LINKS.has(code)) throw error
    if (lstatSync(target, { throwIfNoEntry: false })) throw new LocalFileChanged(label, 'appeared')
    renameSync(temp, target)
    return
  }
  // Synchronously, so the caller journals the file in this same turn (a leftover temp is swept anyway).
  try {
    unlinkSync(temp)
  } catch {
    // Removed by the next pass's sweep of temp files.
  }
}

/** `createExclusive` with its link and the temp's removal on the thread pool. */
async function createExclusiveOffThread(temp: string, target: string, label: string): Promise<void> {
  try {
    await fs.link(temp, target)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? ''
    if (code === 'EEXIST') throw new LocalFileChanged(label, 'appeared')
    if (!NO_HARD_LINKS.has(code)) throw error
    // Without hard links, the check and the rename stay in one turn.
    return createExclusive(temp, target, label)
  }
  // A temp left by a kill here is removed by the next pass's sweep of temp files.
  await fs.unlink(temp).catch(() => {})
}

/** Makes the names in `dir` (renames, new files) durable. */
export async function syncFolder(dir: string): Promise<void> {
  // Windows cannot open folders for fsync; there the rename is already durable enough.
  if (process.platform === 'win32') return
  const handle = await fs.open(dir, 'r')
  try {
    await handle.sync()
  } finally {
    await handle.close()
  }
}

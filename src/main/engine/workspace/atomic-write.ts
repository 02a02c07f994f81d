import { randomUUID } from 'node:crypto'
import { constants, linkSync, lstatSync, renameSync, unlinkSync, type BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'

/** Temp files Quire leaves only if killed mid-write; the watcher ignores them and a pass removes them. */
export const TEMP_MARK = '.quire-tmp-'

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
  const temp = path.join(dir, `${TEMP_MARK}${randomUUID().replace(/-/g, '').slice(0, 12)}-${name.slice(0, 64)}`)
  const handle = await fs.open(temp, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | O_NOFOLLOW, 0o644)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await fs.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  return temp
}

/*
 * Race-free replacement. A writer may save at any moment, so "check the file, then rename over it"
 * loses a save made between the two. Each guarded operation below therefore does its slow work first
 * (the temp file is written and synced before anything is checked), then proves the target is what the
 * plan expected: its content hashes to `expect` (exact) and, in the same synchronous turn as the final
 * step, an lstat shows the very inode, size, mtime and ctime (nanoseconds) the hash was read from
 * (cheap, and it catches a save during or after the read). The final step is one syscall right after
 * that lstat, with no await between them.
 *
 * The remaining window is that syscall itself (and the lstat just before it): a save that lands inside
 * it is lost the way any two programs renaming one name race. A write through a handle the writer
 * opened before the check and writes after it goes to the old inode, as with every rename-based save;
 * filesystems with coarse timestamps (FAT: 2 s) let a same-size in-place save within one tick of the
 * previous one pass the stat comparison. Creating a file that must not exist has no window at all:
 * `link` fails when the name is taken.
 */

/** Renames `temp` over `target` only if `target` still hashes to `expect` (undefined: nothing is there). */
export async function replaceIfUnchanged(temp: string, target: string, expect: string | undefined, label: string, checked?: () => void): Promise<void> {
  try {
    if (expect === undefined) await createExclusive(temp, target, label)
    else await whenUnchanged(target, expect, label, () => renameSync(temp, target), checked)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}

/** Removes `target` only if it still hashes to `expect`. */
export async function removeIfUnchanged(target: string, expect: string, label: string, checked?: () => void): Promise<void> {
  await whenUnchanged(target, expect, label, () => unlinkSync(target), checked)
}

/** Renames `from` to `to` only if `from` still hashes to `expect` and nothing is at `to`. */
export async function renameIfUnchanged(from: string, to: string, expect: string, labels: { from: string; to: string }, checked?: () => void): Promise<void> {
  if (lstatSync(to, { throwIfNoEntry: false })) throw new LocalFileChanged(labels.to, 'appeared')
  await whenUnchanged(
    from,
    expect,
    labels.from,
    () => {
      // Node has no rename that refuses to replace (renameat2 is Linux-only): this lstat is the guard.
      if (lstatSync(to, { throwIfNoEntry: false })) throw new LocalFileChanged(labels.to, 'appeared')
      renameSync(from, to)
    },
    checked,
  )
}

/**
 * Runs `step` (one syscall) once `target` is proven to hold `expect`; read again while the file moves
 * under the read. `checked` (tests) runs between the read and the final lstat.
 */
async function whenUnchanged(target: string, expect: string, label: string, step: () => void, checked?: () => void): Promise<void> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const seen = await readExpected(target, expect, label)
    checked?.()
    const now = lstatSync(target, { bigint: true, throwIfNoEntry: false })
    if (now === undefined) throw new LocalFileChanged(label, 'disappeared')
    if (sameFile(seen, now)) {
      step()
      return
    }
  }
  throw new LocalFileChanged(label, 'changed')
}

/** Hashes `target` without following a link; what it was read from, if it holds `expect`. */
async function readExpected(target: string, expect: string, label: string): Promise<BigIntStats> {
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
    const before = await handle.stat({ bigint: true })
    if (!before.isFile()) throw new LocalFileChanged(label, 'changed')
    if (gitBlobOid(await handle.readFile()) !== expect) throw new LocalFileChanged(label, 'changed')
    return before
  } finally {
    await handle.close()
  }
}

function sameFile(a: BigIntStats, b: BigIntStats): boolean {
  return a.dev === b.dev && a.ino === b.ino && a.size === b.size && a.mtimeNs === b.mtimeNs && a.ctimeNs === b.ctimeNs
}

/** Filesystems without hard links (FAT, some network shares) answer these to `link`. */
const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EINVAL'])

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

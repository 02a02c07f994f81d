import { linkSync, lstatSync, renameSync, unlinkSync, type BigIntStats, type Dirent } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { heldFrom, holdPath, TEMP_MARK } from './temp-names'

/*
 * The last syscalls of a guarded replacement or removal (atomic-write.ts says why they come last). An
 * editor saves by writing a new file and renaming it over the name; such a rename landing after the
 * step's final lstat would be replaced (its inode unlinked, never held open) by a plain rename over the
 * name. So the step first moves whatever is at the name aside to a hold name (`.quire-tmp-held-...`, same
 * folder): one rename, which takes the editor's file too when it landed first, and never unlinks it. The
 * hold is then proven to be the checked inode; if it is not, it is the writer's save and goes back. Only
 * then is the new file linked at the name, which refuses a name taken again meanwhile (the writer's save
 * stays), and the hold and temp names removed. Between the two, for a few microseconds, nothing is at the
 * name: a save landing there is kept; a program opening the name without creating it fails once.
 */

/** Filesystems without hard links (FAT, some network shares) answer these to `link`. */
export const NO_HARD_LINKS = new Set(['EPERM', 'ENOTSUP', 'EOPNOTSUPP', 'ENOSYS', 'EINVAL'])

/** Devices whose `link` failed so: steps there rename over the name, checked by the final lstat alone. */
const linkless = new Set<bigint>()

const codeOf = (error: unknown): string => (error as NodeJS.ErrnoException).code ?? ''
const sameInode = (a: BigIntStats, b: BigIntStats) => a.dev === b.dev && a.ino === b.ino
const lstatOf = (file: string) => lstatSync(file, { bigint: true, throwIfNoEntry: false })

function unlinkQuietly(file: string): void {
  try {
    unlinkSync(file)
  } catch {
    // A temp or hold name left behind is settled by the next pass's sweep (settleLeftHold).
  }
}

/** Where the file at `target` (the `checked` one) goes aside; undefined where no hold can be used. */
function holdFor(target: string, checked: BigIntStats): string | undefined {
  return linkless.has(checked.dev) ? undefined : holdPath(target, checked.ino)
}

/**
 * Gives `from` the name `to` only if nothing is there: `link` refuses a taken name atomically, and
 * `from` keeps its own name ('linked'). Without hard links, an lstat then a rename ('renamed': `from`
 * is gone), and the device is remembered. 'taken': something is at `to`; nothing changed.
 */
export function linkInto(from: string, to: string): 'linked' | 'renamed' | 'taken' {
  try {
    linkSync(from, to)
    return 'linked'
  } catch (error) {
    const code = codeOf(error)
    if (code === 'EEXIST') return 'taken'
    const stat = lstatOf(from)
    // A folder cannot be linked anywhere: that says nothing of the filesystem.
    if (!NO_HARD_LINKS.has(code) || stat === undefined) throw error
    if (stat.isFile()) linkless.add(stat.dev)
    if (lstatOf(to)) return 'taken'
    renameSync(from, to)
    return 'renamed'
  }
}

/** A held file back at `target`, or at `copyPath(target)` when the name is taken again. Says which. */
function putHeldBack(hold: string, target: string, copyPath: (target: string) => string): 'in place' | 'copy' {
  const put = linkInto(hold, target)
  if (put === 'linked') unlinkQuietly(hold)
  if (put !== 'taken') return 'in place'
  renameSync(hold, copyPath(target))
  return 'copy'
}

type Aside = { held: BigIntStats } | { refused: 'changed' | 'disappeared' }

/**
 * Moves whatever is at `target` to `hold` and proves it is the `checked` file. If it is not, a save was
 * renamed over the name after the final lstat: it goes back (putHeldBack) and the step is refused.
 */
function takeAside(target: string, hold: string, checked: BigIntStats, copyPath: (target: string) => string): Aside {
  try {
    renameSync(target, hold)
  } catch (error) {
    if (codeOf(error) === 'ENOENT') return { refused: 'disappeared' }
    throw error
  }
  let held: BigIntStats
  try {
    held = lstatSync(hold, { bigint: true })
  } catch (error) {
    restoreAfterFailure(hold, target, copyPath)
    throw error
  }
  if (sameInode(held, checked)) return { held }
  putHeldBack(hold, target, copyPath)
  return { refused: 'changed' }
}

/** A step failed with its file aside: back at its name if it can be now (else the next pass's sweep puts it back). */
function restoreAfterFailure(hold: string, target: string, copyPath: (target: string) => string): void {
  try {
    putHeldBack(hold, target, copyPath)
  } catch {
    // Left for settleLeftHold; the step's own error is the one to report.
  }
}

/** Whether the held file was written since `before` (a rename changes its ctime, not its size or mtime). */
const writtenSince = (held: BigIntStats, before: BigIntStats) => held.size !== before.size || held.mtimeNs !== before.mtimeNs

/**
 * The final step of a replacement: `temp` at `target` in place of the `checked` file, through a hold.
 * Returns what it left at `target` (its inode identifies it even when an editor replaced it since), or
 * why it was refused (nothing replaced; the writer's file is at its name or in a conflicted copy).
 */
export function swapIn(temp: string, target: string, checked: BigIntStats, copyPath: (target: string) => string): BigIntStats | undefined | 'changed' | 'disappeared' {
  const hold = holdFor(target, checked)
  if (hold === undefined) {
    renameSync(temp, target)
    return lstatOf(target)
  }
  const aside = takeAside(target, hold, checked, copyPath)
  if ('refused' in aside) return aside.refused
  let put: ReturnType<typeof linkInto>
  try {
    put = linkInto(temp, target)
  } catch (error) {
    restoreAfterFailure(hold, target, copyPath)
    throw error
  }
  if (put === 'taken') {
    // A save landed while the name was free: it stays. The checked file goes (beside it if written meanwhile).
    const held = lstatSync(hold, { bigint: true })
    if (writtenSince(held, checked)) renameSync(hold, copyPath(target))
    else unlinkSync(hold)
    return 'changed'
  }
  // The new file is in place: what follows only tidies up and says what is there, and a failure in it
  // leaves names the next pass's sweep settles.
  const ours = put === 'linked' ? lstatQuietly(temp) : undefined
  if (put === 'linked') unlinkQuietly(temp)
  unlinkQuietly(hold)
  const now = lstatQuietly(target)
  return ours === undefined || (now !== undefined && sameInode(now, ours)) ? now : ours
}

function lstatQuietly(file: string): BigIntStats | undefined {
  try {
    return lstatOf(file)
  } catch {
    return undefined
  }
}

/** The final step of a removal: the `checked` file at `target` goes, through a hold. Says why it did not, if it did not. */
export function removeHeld(target: string, checked: BigIntStats, copyPath: (target: string) => string): 'changed' | 'disappeared' | undefined {
  const hold = holdFor(target, checked)
  if (hold === undefined) {
    unlinkSync(target)
    return undefined
  }
  const aside = takeAside(target, hold, checked, copyPath)
  if ('refused' in aside) return aside.refused
  try {
    unlinkSync(hold)
  } catch (error) {
    restoreAfterFailure(hold, target, copyPath)
    throw error
  }
  return undefined
}

/**
 * `temp` (a writer's bytes read back) at `target` if the name still holds `placed` unwritten since
 * (undefined: nothing), else at `copyPath(target)`. Through a hold, so a save renamed over the name
 * meanwhile stays where it is. Says which.
 */
export function putTemp(temp: string, target: string, placed: BigIntStats | undefined, copyPath: (target: string) => string): 'in place' | 'copy' {
  const toCopy = () => {
    renameSync(temp, copyPath(target))
    return 'copy' as const
  }
  const free = () => {
    const put = linkInto(temp, target)
    if (put === 'linked') unlinkQuietly(temp)
    return put === 'taken' ? toCopy() : 'in place'
  }
  if (placed === undefined) return free()
  const hold = holdFor(target, placed)
  if (hold === undefined) {
    const now = lstatOf(target)
    if (now === undefined || !sameInode(now, placed) || writtenSince(now, placed)) return toCopy()
    renameSync(temp, target)
    return 'in place'
  }
  const aside = takeAside(target, hold, placed, copyPath)
  if ('refused' in aside) return toCopy()
  if (writtenSince(aside.held, placed)) {
    // The writer saved over what the step left, in place: that save stays at the name.
    putHeldBack(hold, target, copyPath)
    return toCopy()
  }
  const went = free()
  unlinkQuietly(hold)
  return went
}

/**
 * A hold a killed step left, found by a pass's sweep. Back at its name when nothing is there (it may be
 * the only copy of the page); dropped when the name holds it again, or when it is the checked file (proven
 * to be the page's unedited text) and the name holds something else; otherwise (a writer's save moved
 * aside, the name taken since) into a conflicted copy. Undefined: not a hold.
 */
function settleLeftHold(hold: string, copyPath: (target: string) => string): 'in place' | 'copy' | 'dropped' | undefined {
  const from = heldFrom(path.basename(hold))
  const held = from && lstatOf(hold)
  if (!from || !held?.isFile()) return undefined
  const target = path.join(path.dirname(hold), from.name)
  const now = lstatOf(target)
  if (now !== undefined && (sameInode(now, held) || held.ino === from.ino)) {
    unlinkSync(hold)
    return 'dropped'
  }
  return putHeldBack(hold, target, copyPath)
}

/**
 * What killed writes left under `root`: temp files are removed (they never replaced anything), holds
 * settled (settleLeftHold). Returns how many temp files were removed.
 */
export async function sweepLeftovers(root: string, copyPath: (target: string) => string): Promise<number> {
  let removed = 0
  const walk = async (dir: string): Promise<void> => {
    let entries: Dirent[]
    try {
      entries = await fs.readdir(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const full = path.join(dir, entry.name)
      if (entry.isDirectory()) await walk(full)
      else if (entry.isFile() && entry.name.startsWith(TEMP_MARK) && settleLeftHold(full, copyPath) === undefined) {
        await fs.rm(full, { force: true })
        removed++
      }
    }
  }
  await walk(root)
  return removed
}

import type { BigIntStats } from 'node:fs'

/**
 * Stat-first change detection: a file is read and hashed only when its stat differs from the stat it
 * had when it was last hashed. The rule, chosen so that no local edit is ever taken for no change:
 *
 * - The stat compared is device, inode, size, mtime and ctime, to the nanosecond (`statSignature`).
 *   ctime is what makes it safe: the kernel sets it on every write, rename and chmod and no program can
 *   set it back (utimes sets it to now), so an edit that keeps the size and restores the mtime (an
 *   editor that preserves timestamps, `touch -d`, `cp -p`) still re-hashes. A new inode (an editor's
 *   save by rename) re-hashes too. Touching the mtime alone re-hashes, and then plans nothing since the
 *   hash is the same.
 * - A hash is remembered only when the file's last change is at least `SETTLED_NS` older than the
 *   moment of the read, and the stat was the same before and after the read (git's "racily clean"
 *   problem): a change in the same timestamp tick as the one read would leave the same stat behind
 *   (timestamps are as coarse as 1-2 s on some file systems). Such a file is simply hashed again next time.
 * - A file Quire itself wrote (sync down) is remembered without being read, right after the write: its
 *   mtime was set back by seconds before it was put in place, so any later write shows as a new mtime
 *   (atomic-write.ts `WrittenStamp`). The first pass after a mirror reads no file the mirror wrote.
 */

/** How old a file's last change must be before its stat can vouch for its content (FAT's mtime is 2 s). */
export const SETTLED_NS = 3_000_000_000n

/** Hashes remembered by stat, per relative path (kept by the cache across passes and processes). */
export interface StatMemo {
  /** The hash of the file at `relative` when it had stat `signature`; undefined when not known. */
  hashFor(relative: string, signature: string): string | undefined
  /** The file at `relative` hashed to `hash` while it had stat `signature`. */
  remember(relative: string, signature: string, hash: string): void
}

/** `dev:ino:size:mtimeNs:ctimeNs`, exact. */
export function statSignature(stat: BigIntStats): string {
  return `${stat.dev}:${stat.ino}:${stat.size}:${stat.mtimeNs}:${stat.ctimeNs}`
}

/** Whether the stat was taken long enough after the file's last change for a later change to show in it. */
export function isSettled(stat: BigIntStats, nowNs: bigint = BigInt(Date.now()) * 1_000_000n): boolean {
  const changed = stat.mtimeNs > stat.ctimeNs ? stat.mtimeNs : stat.ctimeNs
  return nowNs - changed >= SETTLED_NS
}

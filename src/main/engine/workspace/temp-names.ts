import { randomUUID } from 'node:crypto'
import path from 'node:path'

/** Temp files Quire leaves only if killed mid-write; the watcher ignores them and a pass removes them. */
export const TEMP_MARK = '.quire-tmp-'

/**
 * A file a replacement or removal moved aside for a moment (name-hold.ts): `<mark><inode>-<random>-<name>`,
 * the inode (base 36) being the one the step had checked. Unlike a temp file it may hold the only copy of
 * a page (a kill right after the move), so a pass puts it back rather than removing it (`settleLeftHold`).
 */
const HOLD_MARK = `${TEMP_MARK}held-`

/** Names longer than this (bytes) leave no room for the hold's prefix within a file name's 255. */
const MAX_HELD_NAME = 200

const shortId = (length: number) => randomUUID().replace(/-/g, '').slice(0, length)

/** A new temp file's path in `dir`, beside where `name` goes (`.quire-tmp-<12 hex>-<name, cut at 64>`). */
export function tempPath(dir: string, name: string): string {
  return path.join(dir, `${TEMP_MARK}${shortId(12)}-${name.slice(0, 64)}`)
}

/** Where `target` (whose inode is `ino`) is moved aside; undefined when its name is too long to carry in full. */
export function holdPath(target: string, ino: bigint): string | undefined {
  const name = path.basename(target)
  if (Buffer.byteLength(name) > MAX_HELD_NAME) return undefined
  return path.join(path.dirname(target), `${HOLD_MARK}${ino.toString(36)}-${shortId(8)}-${name}`)
}

/** What a hold's name says: the name it was moved from and the inode the step had checked. */
export function heldFrom(holdName: string): { name: string; ino: bigint } | undefined {
  const match = /^([0-9a-z]+)-[0-9a-f]{8}-(.+)$/.exec(holdName.startsWith(HOLD_MARK) ? holdName.slice(HOLD_MARK.length) : '')
  if (!match) return undefined
  let ino = 0n
  for (const digit of match[1]) ino = ino * 36n + BigInt(parseInt(digit, 36))
  return { name: match[2], ino }
}

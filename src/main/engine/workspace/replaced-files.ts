import type { BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import { placeBack, readAll, type ReplacedFile } from './atomic-write'

/** A save that reached a file after a step replaced or removed it, and where the writer's bytes went. */
export interface LateSave {
  /** The file's path relative to the space folder. */
  relative: string
  /**
   * 'in place': back at its name, which still held what the step left (the step is undone on disk), or
   * already there: a save renamed over the name after the step, made from the text the step replaced;
   * 'copy': beside it in a conflicted copy, since the name holds something newer.
   */
  went: 'in place' | 'copy'
  /** 'in place' by a save renamed over the name, while bytes written into the replaced file went to a conflicted copy. */
  copied?: true
}

interface Held extends ReplacedFile {
  relative: string
  /** Where the writer's bytes go when the name holds something newer. */
  copyPath: (target: string) => string
  /** When the step took it away (ms, monotonic). */
  since: number
  /** The hash of the bytes the step left at the name (undefined: it removed the file). */
  placedHash: string | undefined
  /** A later step of the same pass put something else at the name: what is there is no writer's save. */
  superseded: boolean
}

/** How long a replaced file is watched at least: a writer paused between its open and its write. */
const LATE_SAVE_MS = 100

/**
 * LATE_SAVE_MS, or `QUIRE_LATE_SAVE_MS` where set: tests that run hundreds of passes with no writer
 * saving during them set 0 (the replaced files are still looked at, without the wait that, pass after
 * pass, added minutes to the suite).
 */
function lateSaveMs(): number {
  const raw = process.env.QUIRE_LATE_SAVE_MS?.trim()
  const set = Number(raw)
  return raw && Number.isFinite(set) && set >= 0 ? set : LATE_SAVE_MS
}
/** At most this many are held open (file descriptors); past it, the oldest is looked at early. */
const MAX_HELD = 256

/**
 * The files a pass replaced or removed, held open until the writer has had time to finish a save it
 * began before the step (atomic-write.ts says why such a save reaches the old file). A save found there
 * goes back at its name, or into a conflicted copy beside it: it is never dropped with the old inode.
 */
export class ReplacedFiles {
  private held: Held[] = []
  /** Looks begun early (too many held), awaited by `settle`: each with its failure, if any. */
  private pending: Array<Promise<{ error: unknown } | undefined>> = []
  private found: LateSave[] = []

  constructor(private readonly watchMs = lateSaveMs()) {}

  /**
   * Takes a replaced file (GuardOptions.keep); the oldest is looked at now when too many are open.
   * `placedHash`: the hash of what the step left at the name (undefined for a removal).
   */
  keep(relative: string, replaced: ReplacedFile, copyPath: (target: string) => string, placedHash?: string): void {
    this.held.push({ ...replaced, relative, copyPath, since: performance.now(), placedHash, superseded: false })
    if (this.held.length > MAX_HELD) {
      const oldest = this.held.shift()!
      // Its outcome is reported by `settle`, a failure too (caught here: nothing awaits it until then).
      this.pending.push(this.lookAt(oldest).then(() => undefined, (error: unknown) => ({ error })))
    }
  }

  /** A step is about to put a file at `relative`: a file found there later is Quire's, not a late save. */
  supersede(relative: string): void {
    for (const file of this.held) if (file.relative === relative) file.superseded = true
  }

  /**
   * Waits until the youngest held file was replaced `watchMs` ago, looks at every one, closes them, and
   * returns the saves found since the last call. The first error (after all were looked at) is thrown.
   */
  async settle(): Promise<LateSave[]> {
    const held = this.held
    this.held = []
    const youngest = held.at(-1)?.since
    if (youngest !== undefined) {
      const wait = youngest + this.watchMs - performance.now()
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    }
    const early = await Promise.all(this.pending)
    this.pending = []
    const looks = await Promise.allSettled(held.map((h) => this.lookAt(h)))
    const found = this.found
    this.found = []
    const failed = early.find((e) => e !== undefined) ?? looks.find((l): l is PromiseRejectedResult => l.status === 'rejected')
    if (failed) throw 'error' in failed ? failed.error : failed.reason
    return found
  }

  /**
   * Whether a save reached `file` after the step, written into it (its bytes go back: placeBack) or
   * renamed over the name (`savedOver`: it stays where it is). Closes it.
   */
  private async lookAt(file: Held): Promise<void> {
    try {
      const now = await file.handle.stat({ bigint: true })
      const written = now.size !== file.after.size || now.mtimeNs !== file.after.mtimeNs
      const over = await this.savedOver(file, now)
      if (!written) {
        if (over) this.found.push({ relative: file.relative, went: 'in place' })
        return
      }
      const bytes = await readAll(file.handle)
      // A removal may have taken the folder too (emptied, so pruned): the bytes need it back.
      await fs.mkdir(path.dirname(file.target), { recursive: true })
      const went = await placeBack(file.target, bytes, file.placed, file.copyPath)
      // Both: the late bytes are in a copy, and the name holds the writer's save from the old text.
      this.found.push(over ? { relative: file.relative, went: 'in place', ...(went === 'copy' ? { copied: true as const } : {}) } : { relative: file.relative, went })
    } finally {
      await file.handle.close().catch(() => {})
    }
  }

  /**
   * Whether the name holds a writer's save renamed over it after the step: a file that is neither the
   * one the step left (`placed`) nor the one it replaced (`held`), whose bytes are not what the step
   * wrote. Such a save was made from the text the writer had, the replaced one: it is their edit of that.
   */
  private async savedOver(file: Held, held: BigIntStats): Promise<boolean> {
    if (file.superseded) return false
    const at = await fs.lstat(file.target, { bigint: true }).catch(() => undefined)
    if (!at?.isFile()) return false
    const isAt = (stat: BigIntStats) => stat.dev === at.dev && stat.ino === at.ino
    if ((file.placed && isAt(file.placed)) || isAt(held)) return false
    if (file.placedHash === undefined || at.size !== file.placed?.size) return true
    return gitBlobOid(await fs.readFile(file.target)) !== file.placedHash
  }
}

import fs from 'node:fs/promises'
import path from 'node:path'
import { placeBack, readAll, type ReplacedFile } from './atomic-write'

/** A save that reached a file after a step replaced or removed it, and where the writer's bytes went. */
export interface LateSave {
  /** The file's path relative to the space folder. */
  relative: string
  /**
   * 'in place': back at its name, which still held what the step left (the step is undone on disk);
   * 'copy': beside it in a conflicted copy, since the name holds something newer.
   */
  went: 'in place' | 'copy'
}

interface Held extends ReplacedFile {
  relative: string
  /** Where the writer's bytes go when the name holds something newer. */
  copyPath: (target: string) => string
  /** When the step took it away (ms, monotonic). */
  since: number
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

  /** Takes a replaced file (GuardOptions.keep); the oldest is looked at now when too many are open. */
  keep(relative: string, replaced: ReplacedFile, copyPath: (target: string) => string): void {
    this.held.push({ ...replaced, relative, copyPath, since: performance.now() })
    if (this.held.length > MAX_HELD) {
      const oldest = this.held.shift()!
      // Its outcome is reported by `settle`, a failure too (caught here: nothing awaits it until then).
      this.pending.push(this.lookAt(oldest).then(() => undefined, (error: unknown) => ({ error })))
    }
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

  /** Whether a write reached `file` after the step; if so its bytes go back (placeBack). Closes it. */
  private async lookAt(file: Held): Promise<void> {
    try {
      const now = await file.handle.stat({ bigint: true })
      if (now.size === file.after.size && now.mtimeNs === file.after.mtimeNs) return
      const bytes = await readAll(file.handle)
      // A removal may have taken the folder too (emptied, so pruned): the bytes need it back.
      await fs.mkdir(path.dirname(file.target), { recursive: true })
      const went = await placeBack(file.target, bytes, file.placed, file.copyPath)
      this.found.push({ relative: file.relative, went })
    } finally {
      await file.handle.close().catch(() => {})
    }
  }
}

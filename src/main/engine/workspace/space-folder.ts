import { lstatSync, realpathSync, statSync, type BigIntStats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid } from '../../content'
import type { ByteStream, LocalState, SpaceFiles } from './space-files'
import { conflictCopyPath } from './space-files'
import { isStamped, LocalFileChanged, removeIfUnchanged, renameIfUnchanged, replaceIfUnchanged, syncFolder, writeStampedTempFile, writeTempStream, type GuardOptions, type ReplacedFile, type WrittenStamp } from './atomic-write'
import { sweepLeftovers } from './name-hold'
import { ReplacedFiles, type LateSave } from './replaced-files'
import { confinedPath, PathEscapeError } from './safe-names'
import { isSettled, statSignature, type StatMemo } from './stat-first'

/** A write, move or deletion that would go through a symbolic link: refused, nothing touched. */
export class WorkspaceBoundaryError extends Error {}

type Operation = 'write' | 'move' | 'delete'

export interface SpaceFolderOptions {
  /**
   * Runs once a guarded step has done its slow work (a write's temp file is in place) and before the
   * target is checked again, so a test can save the file at exactly that moment.
   */
  beforeCommit?: (operation: Operation, relative: string) => void | Promise<void>
  /** Runs after the target was read and found unchanged, right before the final lstat and the step. */
  afterCheck?: (operation: Operation, relative: string) => void
  /** Runs after the final lstat, right before the step's own syscall: inside the window that remains. */
  inWindow?: (operation: Operation, relative: string) => void
  /** The clock for conflicted copies' names. */
  now?: () => Date
  /** Runs each time `scan` reads a file to hash it (tests and benchmarks count the reads). */
  onRead?: (relative: string) => void
  /** The clock, in nanoseconds, that says whether a file's last change is settled (stat-first.ts); tests move it on. */
  nowNs?: () => bigint
  /** How long a replaced or removed file is watched for a late save, at least (ms; ReplacedFiles). */
  lateSaveMs?: number
  /**
   * Told the stat and hash of each file `write` and `writeStream` put in place, when the file in place
   * is still the one written (atomic-write.ts `WrittenStamp` says why that vouches for its bytes): the
   * next scan need not read what this folder wrote.
   */
  written?: StatMemo
}

/** Stands for a folder where a file should be: it is never our content, so nothing overwrites it. */
const FOLDER_HASH = 'folder'

/**
 * One space folder on disk. Every relative path is checked to be exactly what `confinedPath` makes of
 * it (already safe, inside the folder) before any I/O, so no server-given name reaches the disk unchecked.
 * Paths are text; the disk may hold links: before every write, move and deletion the real folder is
 * resolved and must lie inside the space folder, and a link at the name itself is never written through
 * (see `realEntry`). Every change re-checks the file against what the plan saw, right before it happens.
 */
export class SpaceFolder implements SpaceFiles {
  readonly root: string
  /** `write` and `writeStream` onto nothing never replace a file that appeared (the link that puts them in place refuses it). */
  readonly refusesOccupied = true
  /** Folders that received files since the last `flush` (real paths). */
  private readonly unsynced = new Set<string>()
  /** Files `write` replaced and `remove` removed, watched for a save that began before the step. */
  private readonly replaced: ReplacedFiles
  private realRootPath: Promise<string> | undefined
  /** The space folder's real path and identity, once `realRoot` has looked them up. */
  private rootFolder: { real: string; dev: bigint; ino: bigint } | undefined

  constructor(
    root: string,
    private readonly options: SpaceFolderOptions = {},
  ) {
    this.root = path.resolve(root)
    this.replaced = new ReplacedFiles(options.lateSaveMs)
  }

  resolve(relative: string): string {
    // Resolved once per path: a pass asks for each file's several times (scan, checks, the write).
    const known = this.resolved.get(relative)
    if (known !== undefined) return known
    const full = confinedPath(this.root, relative)
    if (full !== path.resolve(this.root, ...relative.split('/'))) throw new PathEscapeError(relative)
    this.resolved.set(relative, full)
    return full
  }

  /** Relative paths `resolve` accepted, and what it made of them (a pure function of the root and the path). */
  private readonly resolved = new Map<string, string>()

  async hash(relative: string): Promise<string | undefined> {
    const full = this.resolve(relative)
    try {
      return gitBlobOid(await fs.readFile(full))
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
      if (code === 'EISDIR') return FOLDER_HASH
      throw error
    }
  }

  /**
   * Nothing at all at `relative` (no file, folder or link). A synchronous lstat: a few microseconds,
   * where a failed read costs a round trip through the thread pool and an exception.
   */
  async isAbsent(relative: string): Promise<boolean> {
    const full = this.resolve(relative)
    try {
      return lstatSync(full, { throwIfNoEntry: false }) === undefined
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === 'ENOTDIR'
    }
  }

  /**
   * Atomic, and only over the file the plan saw (`expect`: its hash; undefined: nothing there); durable
   * once `flush` has run (the folder sync is shared by every file written to it). `asRemote`: `data` is
   * exactly the remote oid's bytes, so a new file may be put in place off the event loop
   * (replaceIfUnchanged's `offThread`).
   */
  async write(relative: string, data: Uint8Array, expect: string | undefined, asRemote = false, hash?: string): Promise<void> {
    const full = await this.realEntry(relative, 'write', true, expect === undefined)
    const stamped = this.options.written !== undefined
    const { temp, stamp } = await writeStampedTempFile(path.dirname(full), path.basename(full), data, stamped)
    // A replacement is watched for a late save, which is told from these bytes by their hash; the stat
    // memo is told it too.
    const placedHash = hash ?? (expect === undefined && !stamped ? undefined : gitBlobOid(data))
    await this.commit(temp, full, relative, expect, asRemote, placedHash, undefined, stamp)
  }

  /**
   * `write` from bytes as they arrive (a download), never held whole; they must hash to `oid` (when
   * given) before anything is replaced. Returns their hash.
   */
  async writeStream(relative: string, body: ByteStream, expect: string | undefined, oid: string | undefined): Promise<string> {
    const full = await this.realEntry(relative, 'write', true, expect === undefined)
    const { temp, hash, stamp } = await writeTempStream(path.dirname(full), path.basename(full), body, this.options.written !== undefined)
    // Bytes proven to be the oid's are the remote version (see `write`'s `asRemote`).
    await this.commit(temp, full, relative, expect, oid !== undefined, hash, () => {
      if (oid !== undefined && hash !== oid) throw new Error(`the service sent content for ${relative} that does not match its oid`)
    }, stamp)
    return hash
  }

  /**
   * Puts a written temp file (its bytes hashing to `hash`) in place of `full` unless the file changed
   * from `expect`; the temp goes when a check refuses.
   */
  private async commit(temp: string, full: string, relative: string, expect: string | undefined, asRemote: boolean, hash: string | undefined, check?: () => void, stamp?: WrittenStamp): Promise<void> {
    try {
      check?.()
      await this.options.beforeCommit?.('write', relative)
    } catch (error) {
      await fs.rm(temp, { force: true })
      throw error
    }
    this.replaced.supersede(relative)
    try {
      await replaceIfUnchanged(temp, full, expect, relative, this.guard('write', relative, hash), asRemote)
    } catch (error) {
      // Onto nothing, the name is looked at only when the link refused it (realEntry skipped the lstat).
      if (expect === undefined && error instanceof LocalFileChanged && lstatSync(full, { throwIfNoEntry: false })?.isSymbolicLink()) throw this.linkAtName(relative, 'write')
      throw error
    } finally {
      // Also when the writer's bytes were put back: that rename is made durable the same way.
      this.unsynced.add(path.dirname(full))
    }
    // In the same turn as the step (or the link's return): what is at the name now, if it is what was written.
    if (stamp === undefined || hash === undefined) return
    const now = lstatSync(full, { bigint: true, throwIfNoEntry: false })
    if (isStamped(now, stamp)) this.options.written?.remember(relative, statSignature(now), hash)
  }

  /** Makes every write so far durable: one sync per folder written to. */
  async flush(): Promise<void> {
    const folders = [...this.unsynced]
    this.unsynced.clear()
    await Promise.all(
      folders.map((dir) =>
        syncFolder(dir).catch((error: NodeJS.ErrnoException) => {
          // Removed meanwhile (by the user): none of its files is there to keep.
          if (error.code !== 'ENOENT') throw error
        }),
      ),
    )
  }

  /**
   * Saves that reached a file after `write` replaced it or `remove` removed it (the writer opened it
   * before and wrote after): their bytes are back at the name, or in a conflicted copy beside it. Waits
   * until the last such step is `lateSaveMs` old; every replaced file is closed after.
   */
  async lateSaves(): Promise<LateSave[]> {
    const found = await this.replaced.settle()
    for (const save of found) this.unsynced.add(path.dirname(this.resolve(save.relative)))
    return found
  }

  /** Moves the file at `from` (still hashing to `expect`) to `to`, where nothing may be. */
  async rename(from: string, to: string, expect: string): Promise<void> {
    const source = await this.realEntry(from, 'move', false)
    const target = await this.realEntry(to, 'move', true)
    await this.options.beforeCommit?.('move', from)
    this.replaced.supersede(to)
    try {
      await renameIfUnchanged(source, target, expect, { from, to }, this.guard('move', from))
    } catch (error) {
      // Folders made for a move that did not happen go again (empty ones only).
      await this.prune(path.dirname(target))
      throw error
    }
    await this.prune(path.dirname(source))
  }

  /** Removes the file at `relative` if it still hashes to `expect`. */
  async remove(relative: string, expect: string): Promise<void> {
    const full = await this.realEntry(relative, 'delete', false)
    await this.options.beforeCommit?.('delete', relative)
    await removeIfUnchanged(full, expect, relative, this.guard('delete', relative))
    await this.prune(path.dirname(full))
  }

  /** `placedHash`: the hash of the bytes a write puts at `relative` (ReplacedFiles.keep). */
  private guard(operation: Operation, relative: string, placedHash?: string): GuardOptions {
    const { afterCheck, inWindow } = this.options
    const copyPath = this.copyPathFor(relative)
    return {
      copyPath,
      // A move replaces nothing (renameIfUnchanged never hands a file over).
      keep: (replaced: ReplacedFile) => this.replaced.keep(relative, replaced, copyPath, placedHash),
      ...(afterCheck ? { checked: () => afterCheck(operation, relative) } : {}),
      ...(inWindow ? { inWindow: () => inWindow(operation, relative) } : {}),
    }
  }

  /**
   * Where `relative` really is: its folder resolved through any links (realpath), proven to lie inside
   * the space folder's own real path, created folder by folder when `create` (mkdir never follows a
   * link at the name it makes); a link at the name itself is refused. Operations then use this path, so
   * temp files go to the real folder. A link swapped in after this check and before the step is the
   * remaining window; the steps open files with O_NOFOLLOW where the platform has it. `ontoNothing`
   * (a write where the plan saw no file): the name itself is not looked at, since the step that puts
   * the file in place (`link`) fails on anything there, a link included, and `commit` says which; one
   * lookup less per new file, in folders that may hold thousands while the pass's own writes lock them.
   */
  private async realEntry(relative: string, operation: Operation, create: boolean, ontoNothing = false): Promise<string> {
    const full = this.resolve(relative)
    this.realRoot()
    const folders = path.relative(this.root, path.dirname(full)).split(path.sep).filter(Boolean)
    let depth = folders.length
    let real = this.plainFolderPath(folders)
    if (real === undefined) {
      // The deepest folder on the way that exists (usually the parent itself). Resolved synchronously: a
      // few microseconds of readlink, where the thread pool's round trip costs more than the work and
      // waits behind the pass's own writes.
      for (; depth >= 0 && real === undefined; depth--) {
        real = realpathOrUndefined(path.join(this.root, ...folders.slice(0, depth)))
      }
      depth++
    }
    if (real === undefined) throw new Error(`the space folder ${this.root} is missing`)
    await this.refuseOutside(real, relative, operation)
    for (; depth < folders.length; depth++) {
      const next = path.join(real, folders[depth])
      if (!create) return path.join(next, ...folders.slice(depth + 1), path.basename(full))
      try {
        await fs.mkdir(next)
        real = next
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
        // Made meanwhile, or a link.
        const resolved = realpathOrUndefined(next)
        if (resolved === undefined) {
          const name = [...folders.slice(0, depth + 1)].join('/')
          throw new WorkspaceBoundaryError(`${relative}: ${name} is a symbolic link that leads nowhere; Quire does not ${operation} through it`)
        }
        real = resolved
        await this.refuseOutside(real, relative, operation)
      }
    }
    const entry = path.join(real, path.basename(full))
    if (!ontoNothing && lstatSync(entry, { throwIfNoEntry: false })?.isSymbolicLink()) throw this.linkAtName(relative, operation)
    return entry
  }

  /** Beside the file at `relative`, named like sync up's conflicted copies, which Quire never takes for a page. */
  private copyPathFor(relative: string): (target: string) => string {
    return (target) => path.join(path.dirname(target), path.basename(conflictCopyPath(relative, stampOf(this.options.now?.() ?? new Date()))))
  }

  private linkAtName(relative: string, operation: Operation): WorkspaceBoundaryError {
    return new WorkspaceBoundaryError(`${relative} is a symbolic link; Quire does not ${operation} through it (the file it points to is left alone)`)
  }

  /**
   * The real path of `root/...folders` when the root is still the folder whose real path was taken and
   * every folder below it is a plain folder (no link): then it is that real path joined with the names,
   * as realpath would answer, for one stat and one lstat per folder below the root, where libc's realpath
   * reads every component from `/` (about ten syscalls per file of a mirror). Undefined when any of it
   * differs (a link anywhere below the root, a missing folder, the root moved or not looked up yet): the
   * caller resolves the path in full. Nothing is cached between calls: a folder moved out and linked
   * back is a link at the next call.
   */
  private plainFolderPath(folders: readonly string[]): string | undefined {
    const root = this.rootFolder
    if (root === undefined) return undefined
    try {
      // Followed: the space folder itself may be reached through a link.
      const now = statSync(this.root, { bigint: true, throwIfNoEntry: false })
      if (now === undefined || now.ino !== root.ino || now.dev !== root.dev) return undefined
      let at = this.root
      for (const name of folders) {
        at = path.join(at, name)
        if (!lstatSync(at, { throwIfNoEntry: false })?.isDirectory()) return undefined
      }
    } catch {
      // A file where a folder should be (ENOTDIR), or the root unreadable: resolved in full, as before.
      return undefined
    }
    return path.join(root.real, ...folders)
  }

  /**
   * The space folder's real path, looked up once. Started early and awaited later: its failure is
   * handled here (no unhandled rejection while other work is awaited), and a failure is not kept.
   */
  private realRoot(): Promise<string> {
    const pending = (this.realRootPath ??= fs.realpath(this.root).then(async (real) => {
      const stat = await fs.stat(real, { bigint: true })
      this.rootFolder = { real, dev: stat.dev, ino: stat.ino }
      return real
    }))
    pending.catch(() => {
      if (this.realRootPath === pending) this.realRootPath = undefined
    })
    return pending
  }

  private async refuseOutside(real: string, relative: string, operation: Operation): Promise<void> {
    const root = await this.realRoot()
    if (real === root || real.startsWith(root + path.sep)) return
    throw new WorkspaceBoundaryError(`${relative}: ${await this.firstLink(relative)} is a symbolic link that leads outside the space folder (to ${real}); Quire does not ${operation} through it`)
  }

  /** The first folder on the way to `relative` that is a link (for the message). */
  private async firstLink(relative: string): Promise<string> {
    const segments = relative.split('/')
    for (let i = 1; i < segments.length; i++) {
      const stat = await fs.lstat(path.join(this.root, ...segments.slice(0, i))).catch(() => undefined)
      if (stat?.isSymbolicLink()) return segments.slice(0, i).join('/')
    }
    return path.posix.dirname(relative)
  }

  /**
   * Hashes of the files at `paths` (those that exist). With a `memo`, a regular file whose stat is the
   * one it had when last hashed is not read: its remembered hash stands (the rule is in stat-first.ts).
   */
  async scan(paths: Iterable<string>, options: { concurrency?: number; memo?: StatMemo } = {}): Promise<LocalState> {
    const list = [...new Set(paths)]
    const { memo, concurrency = 16 } = options
    const state = new Map<string, string>()
    let next = 0
    const worker = async () => {
      while (next < list.length) {
        const relative = list[next++]
        const before = lstatOrUndefined(this.resolve(relative))
        if (before === undefined) continue
        const signature = memo && before.isFile() ? statSignature(before) : undefined
        const known = signature === undefined ? undefined : memo?.hashFor(relative, signature)
        if (known !== undefined) {
          state.set(relative, known)
          continue
        }
        this.options.onRead?.(relative)
        const hash = await this.hash(relative)
        if (hash === undefined) continue
        state.set(relative, hash)
        if (signature === undefined) continue
        const after = lstatOrUndefined(this.resolve(relative))
        if (after && statSignature(after) === signature && isSettled(after, this.options.nowNs?.())) memo?.remember(relative, signature, hash)
      }
    }
    await Promise.all(Array.from({ length: concurrency }, worker))
    return state
  }

  /**
   * Removes temp files a killed write left behind (they never replaced anything); a file a killed step
   * had moved aside goes back to its name, or to a conflicted copy (sweepLeftovers).
   */
  removeStaleTempFiles(): Promise<number> {
    return sweepLeftovers(this.root, (target) => this.copyPathFor(path.relative(this.root, target).split(path.sep).join('/'))(target))
  }

  /** Removes folders a move or delete left empty, up to (not including) the space folder; `dir` is a real path. */
  private async prune(dir: string): Promise<void> {
    const root = await this.realRoot()
    let current = dir
    while (current.startsWith(root + path.sep)) {
      try {
        await fs.rmdir(current)
      } catch {
        return
      }
      current = path.dirname(current)
    }
  }
}

/** lstat with nanosecond times; undefined when nothing is there (or a file stands where a folder should). */
function lstatOrUndefined(full: string): BigIntStats | undefined {
  try {
    return lstatSync(full, { bigint: true, throwIfNoEntry: false })
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOTDIR') return undefined
    throw error
  }
}

function realpathOrUndefined(full: string): string | undefined {
  try {
    return realpathSync.native(full)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined
    throw error
  }
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Local time as sync up names conflicted copies: `2026-01-31 093612`. */
function stampOf(date: Date): string {
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())} ${pad(date.getHours())}${pad(date.getMinutes())}${pad(date.getSeconds())}`
}

/**
 * Fault injection at every access of the cache database and the workspace, in the spirit of Nextcloud's
 * FakeFolder tests: count the accesses one operation makes, then run it again failing at the i-th.
 *
 * The accesses are intercepted below the engine, so no engine code is changed or bypassed:
 * - the cache database: better-sqlite3's `prepare` (and the statements it returns: run, get, all,
 *   iterate), `exec`, `pragma` and `transaction` (an access when the transaction starts and one right
 *   before it commits), for databases whose file is inside the scope folder;
 * - the workspace: every `node:fs/promises` function, the handles `open` returns (read, write, sync,
 *   stat, close...) and the synchronous `node:fs` functions the engine uses, for paths inside the scope
 *   folder. Named imports (`import { lstatSync } from 'node:fs'`) follow through `syncBuiltinESMExports`.
 *
 * At the chosen access, `throw` fails that one access the way the system would (EIO, SQLITE_IOERR;
 * `existsSync`, which never throws, answers false) and `kill` ends the process with SIGKILL on the spot:
 * no finally block, no cleanup, no pending write runs.
 */
import fs from 'node:fs'
import fsp from 'node:fs/promises'
import { syncBuiltinESMExports } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'

export type FaultMode = 'count' | 'throw' | 'kill'

export interface FaultPlan {
  /** Only accesses of paths (and database files) inside this folder count. */
  root: string
  mode: FaultMode
  /** 1-based index of the access that fails (ignored when counting). */
  at?: number
}

export interface FaultReport {
  /** Accesses seen while armed. */
  count: number
  /** One line per access: `<n> <kind> <what>`, paths relative to the root. */
  log: string[]
  /** The access that failed, when one did, with the engine's frames that made it. */
  fired?: string
}

/** The error an injected failure throws; `code` is what the system would give. */
export class InjectedFault extends Error {
  constructor(
    readonly access: number,
    readonly what: string,
    readonly code: string,
  ) {
    super(`injected fault at access ${access} (${what}): ${code}`)
    this.name = 'InjectedFault'
  }
}

interface Armed extends FaultPlan {
  count: number
  log: string[]
  fired?: string
}

let armed: Armed | undefined
let restore: (() => void) | undefined

/** Starts counting (and failing) accesses under `plan.root`. Install first. */
export function arm(plan: FaultPlan) {
  if (!restore) throw new Error('fault injection is not installed')
  armed = { ...plan, root: path.resolve(plan.root), count: 0, log: [] }
}

/** Stops counting; what was seen since `arm`. */
export function disarm(): FaultReport {
  const report = armed ? { count: armed.count, log: armed.log, fired: armed.fired } : { count: 0, log: [] }
  armed = undefined
  return report
}

/** Adds a line to the log that is not an access (an HTTP answer, say), so kill points can be chosen around it. */
export function note(line: string) {
  armed?.log.push(`- ${line}`)
}

const writeLine = fs.writeSync

/** Counts one access; at the planned one, fails it (`cleanup` first releases what the access holds). */
function access(kind: 'db' | 'fs', what: string, failure: { code: string; cleanup?: () => void }) {
  const a = armed
  if (!a) return
  a.count++
  a.log.push(`${a.count} ${kind} ${what}`)
  if (a.mode === 'count' || a.count !== a.at) return
  a.fired = `${kind} ${what}${engineFrames()}`
  if (a.mode === 'kill') {
    writeLine(1, `killed ${a.count} ${kind} ${what}\n`)
    process.kill(process.pid, 'SIGKILL')
    // The signal is delivered before kill(2) returns; never let this turn go on, whatever happens.
    for (;;) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)
  }
  failure.cleanup?.()
  throw new InjectedFault(a.count, `${kind} ${what}`, failure.code)
}

/** Where in the engine (src/) an access comes from: ` at space-folder.ts:151 < executor.ts:119 < ...`. */
function engineFrames(): string {
  const frames = (new Error().stack ?? '').split('\n').flatMap((line) => {
    const match = /[/\\]src[/\\](?:.*[/\\])?([^/\\]+\.ts):(\d+)/.exec(line)
    return match ? [`${match[1]}:${match[2]}`] : []
  })
  return frames.length > 0 ? ` at ${frames.slice(0, 4).join(' < ')}` : ''
}

function scopedPath(arg: unknown): string | undefined {
  const a = armed
  if (!a) return undefined
  const p = typeof arg === 'string' ? arg : arg instanceof URL ? fileURLToPath(arg) : Buffer.isBuffer(arg) ? arg.toString() : undefined
  if (p === undefined) return undefined
  const full = path.resolve(p)
  if (full === a.root) return '.'
  return full.startsWith(a.root + path.sep) ? path.relative(a.root, full).split(path.sep).join('/') : undefined
}

/** The relative paths among a call's first two arguments that are in scope (rename, link, copy have two). */
function scoped(args: readonly unknown[]): string | undefined {
  const paths = args.slice(0, 2).map(scopedPath).filter((p) => p !== undefined)
  return paths.length > 0 ? paths.join(' -> ') : undefined
}

const PROMISE_FNS = [
  'access',
  'appendFile',
  'chmod',
  'copyFile',
  'cp',
  'link',
  'lstat',
  'mkdir',
  'open',
  'opendir',
  'readdir',
  'readFile',
  'readlink',
  'realpath',
  'rename',
  'rm',
  'rmdir',
  'stat',
  'symlink',
  'truncate',
  'unlink',
  'utimes',
  'writeFile',
] as const

const SYNC_FNS = [
  'accessSync',
  'copyFileSync',
  'existsSync',
  'linkSync',
  'lstatSync',
  'mkdirSync',
  'openSync',
  'readdirSync',
  'readFileSync',
  'realpathSync',
  'renameSync',
  'rmdirSync',
  'rmSync',
  'statSync',
  'unlinkSync',
  'writeFileSync',
] as const

const HANDLE_FNS = ['appendFile', 'chmod', 'datasync', 'read', 'readFile', 'readv', 'stat', 'sync', 'truncate', 'write', 'writeFile', 'writev', 'close'] as const

type AnyFn = (...args: unknown[]) => unknown

/** A file handle opened on a path in scope: each of its operations is an access. */
function wrapHandle(handle: fsp.FileHandle, where: string): fsp.FileHandle {
  const h = handle as unknown as Record<string, AnyFn>
  for (const name of HANDLE_FNS) {
    const original = h[name]
    if (typeof original !== 'function') continue
    h[name] = function (this: unknown, ...args: unknown[]) {
      try {
        // A close that fails still releases the descriptor (as close(2) does), so none leaks.
        access('fs', `handle.${name} ${where}`, { code: 'EIO', cleanup: name === 'close' ? () => void original.apply(handle, []) : undefined })
      } catch (error) {
        return Promise.reject(error)
      }
      return original.apply(handle, args)
    }
  }
  return handle
}

type StatementLike = Record<string, AnyFn>

function dbScope(db: Database.Database): string | undefined {
  return db.memory ? undefined : scopedPath(db.name)
}

function sqlLabel(sql: string): string {
  return sql.replace(/\s+/g, ' ').trim().slice(0, 90)
}

/** Installs the interceptors (idempotent); they do nothing until `arm`. Returns the uninstaller. */
export function installFaultInjection(): () => void {
  if (restore) return restore
  const undo: Array<() => void> = []
  const patch = (target: Record<string, unknown>, name: string, make: (original: AnyFn) => AnyFn) => {
    const original = target[name] as AnyFn | undefined
    if (typeof original !== 'function') return
    target[name] = make(original)
    undo.push(() => (target[name] = original))
  }

  const promises = fsp as unknown as Record<string, unknown>
  for (const name of PROMISE_FNS) {
    patch(promises, name, (original) =>
      function (this: unknown, ...args: unknown[]) {
        const where = scoped(args)
        if (where !== undefined) {
          try {
            access('fs', `${name} ${where}`, { code: 'EIO' })
          } catch (error) {
            return Promise.reject(error)
          }
        }
        const result = original.apply(this, args) as Promise<unknown>
        return name === 'open' && where !== undefined ? result.then((h) => wrapHandle(h as fsp.FileHandle, where)) : result
      },
    )
  }
  const sync = fs as unknown as Record<string, unknown>
  const syncAccess = (name: string) => (original: AnyFn) =>
    function (this: unknown, ...args: unknown[]) {
      const where = scoped(args)
      if (where !== undefined) {
        try {
          access('fs', `${name} ${where}`, { code: 'EIO' })
        } catch (error) {
          // existsSync answers false for any failure: it never throws.
          if (name === 'existsSync' && error instanceof InjectedFault) return false
          throw error
        }
      }
      return original.apply(this, args)
    }
  // libc's realpath (the engine resolves folders with it) hangs off the realpathSync replaced below.
  const nativeRealpath = { native: fs.realpathSync.native } as Record<string, unknown>
  for (const name of SYNC_FNS) patch(sync, name, syncAccess(name))
  patch(nativeRealpath, 'native', syncAccess('realpathSync.native'))
  ;(sync.realpathSync as unknown as Record<string, unknown>).native = nativeRealpath.native
  syncBuiltinESMExports()

  const proto = Database.prototype as unknown as Record<string, unknown>
  const statementFns = ['run', 'get', 'all', 'iterate']
  // Statements and transactions are wrapped whatever the database (repositories prepare theirs once, before
  // anything is armed); each access asks at its own time whether its database file is in scope.
  const dbAccess = (db: Database.Database, what: string) => {
    if (dbScope(db) !== undefined) access('db', what, { code: 'SQLITE_IOERR' })
  }
  const counted = (db: Database.Database, statement: StatementLike, label: string) => {
    for (const name of statementFns) {
      const method = statement[name]
      statement[name] = function (this: unknown, ...params: unknown[]) {
        dbAccess(db, `${name} ${label}`)
        return method.apply(this, params)
      }
    }
    return statement
  }
  // Inside the transaction: a failure at either access rolls it back, as a failed BEGIN or COMMIT would leave it.
  const bracketed = (db: Database.Database, body: AnyFn): AnyFn =>
    function (this: unknown, ...args: unknown[]) {
      dbAccess(db, 'transaction begin')
      const result = body.apply(this, args)
      dbAccess(db, 'transaction commit')
      return result
    }
  patch(proto, 'prepare', (original) =>
    function (this: Database.Database, ...args: unknown[]) {
      const label = sqlLabel(String(args[0]))
      dbAccess(this, `prepare ${label}`)
      return counted(this, original.apply(this, args) as StatementLike, label)
    },
  )
  for (const name of ['exec', 'pragma']) {
    patch(proto, name, (original) =>
      function (this: Database.Database, ...args: unknown[]) {
        dbAccess(this, `${name} ${sqlLabel(String(args[0]))}`)
        return original.apply(this, args)
      },
    )
  }
  patch(proto, 'transaction', (original) =>
    function (this: Database.Database, fn: unknown) {
      return original.call(this, typeof fn === 'function' ? bracketed(this, fn as AnyFn) : fn)
    },
  )

  restore = () => {
    for (const u of undo.reverse()) u()
    syncBuiltinESMExports()
    armed = undefined
    restore = undefined
  }
  return restore
}

/**
 * The `git` binary, for the Git Sync import and export operations. Every call is `execFile`/`spawn` with
 * an argument array (no shell), in a scratch bare repository of our own, with the user's and system's git
 * configuration ignored and no prompt for credentials.
 *
 * This service runs on the user's machine and reaches nothing on the network on their behalf: a
 * repository URL is `file://` or `http(s)://` on a loopback address, and git is told to use only those
 * protocols and follow no redirect, so a repository cannot send it elsewhere.
 */
import { execFile, spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

const run = promisify(execFile)

/** What a caller did wrong (a URL, a ref, a repository that is not there): answered as a 4xx. */
export class GitInputError extends Error {}

/** A repository's file tree is read whole; past these limits the import is refused rather than exhausting memory. */
export interface TreeLimits {
  /** The sum of the tree's file sizes (as git stores them, uncompressed). */
  maxBytes: number
  maxFiles: number
}
export const DEFAULT_TREE_LIMITS: TreeLimits = { maxBytes: 1024 * 1024 * 1024, maxFiles: 100_000 }
const GIT_TIMEOUT_MS = 5 * 60_000
const OUTPUT_LIMIT = 64 * 1024 * 1024
/** Reading a tree's sizes takes a moment; past this something is wrong, and the fetch is left to say what. */
const SIZE_TIMEOUT_MS = 60_000

export interface GitSource {
  url: string
  ref: string
}

function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase()
  return host === 'localhost' || host === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
}

/** The URL without its credentials, for messages and for what the service keeps. */
export function displayUrl(url: string): string {
  try {
    const parsed = new URL(url)
    parsed.username = ''
    parsed.password = ''
    return parsed.toString()
  } catch {
    return '(not a URL)'
  }
}

/** Refuses URLs this service will not reach and refs git could read as options. */
export function checkSource(source: GitSource): GitSource {
  let parsed: URL
  try {
    parsed = new URL(source.url)
  } catch {
    throw new GitInputError(`url: '${displayUrl(source.url)}' is not a URL (file:///path/to/repo or http://127.0.0.1:PORT/repo.git)`)
  }
  if (parsed.protocol === 'file:') {
    if (parsed.host !== '' && parsed.host !== 'localhost') throw new GitInputError(`url: ${displayUrl(source.url)} names another host; a file:// URL must name a local path`)
  } else if (parsed.protocol === 'http:' || parsed.protocol === 'https:') {
    if (!isLoopback(parsed.hostname)) {
      throw new GitInputError(`url: cannot reach ${displayUrl(source.url)}: this local service only reads file:// and loopback http(s) repositories`)
    }
  } else {
    throw new GitInputError(`url: ${parsed.protocol} repositories are not supported; use file:// or a loopback http(s) URL`)
  }
  const ref = source.ref.trim()
  if (ref === '' || ref.startsWith('-') || /[\s\0~^:?*[\\]|\.\.|@\{/.test(ref)) throw new GitInputError(`ref: '${source.ref}' is not a git ref (e.g. refs/heads/main)`)
  return { url: source.url, ref }
}

const gitEnv = (home: string) => ({
  PATH: process.env.PATH ?? '/usr/bin:/bin',
  HOME: home,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: os.devNull,
  GIT_TERMINAL_PROMPT: '0',
  GIT_ASKPASS: 'true',
  GIT_PROTOCOL_FROM_USER: '0',
  // A repository read in place (sizeInPlace) may hold replace refs: its objects are read as they are.
  GIT_NO_REPLACE_OBJECTS: '1',
  LC_ALL: 'C',
})
const SAFETY = ['-c', 'protocol.allow=never', '-c', 'protocol.file.allow=always', '-c', 'protocol.http.allow=always', '-c', 'protocol.https.allow=always', '-c', 'http.followRedirects=false', '-c', 'core.hooksPath=/dev/null']

/** git in `repo`, isolated from the user's configuration; stdout as a Buffer. */
async function git(repo: string, args: string[], input?: Buffer): Promise<Buffer> {
  const env = gitEnv(repo)
  const safety = SAFETY
  if (input === undefined) {
    const { stdout } = await run('git', [...safety, '-C', repo, ...args], { env, encoding: 'buffer', maxBuffer: OUTPUT_LIMIT, timeout: GIT_TIMEOUT_MS })
    return stdout
  }
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...safety, '-C', repo, ...args], { env, timeout: GIT_TIMEOUT_MS })
    const out: Buffer[] = []
    const err: Buffer[] = []
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk))
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk))
    child.on('error', reject)
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out)) : reject(new Error(`git ${args[0]} failed: ${Buffer.concat(err).toString().trim()}`))))
    child.stdin.on('error', () => undefined)
    child.stdin.end(input)
  })
}

/** The first line git wrote to stderr, credentials removed: enough to say why. */
function gitReason(error: unknown): string {
  const stderr = (error as { stderr?: Buffer | string }).stderr?.toString() ?? (error instanceof Error ? error.message : String(error))
  const line = stderr.split('\n').find((l) => /fatal|error/i.test(l)) ?? stderr.split('\n')[0] ?? ''
  return line.replace(/\/\/[^/@\s]*@/g, '//').replace(/^fatal: /, '').trim()
}

export interface TreeSize {
  files: number
  bytes: number
}

function sizeText(bytes: number): string {
  if (bytes >= 1024 ** 3) return `${(bytes / 1024 ** 3).toFixed(2)} GiB`
  if (bytes >= 1024 ** 2) return `${(bytes / 1024 ** 2).toFixed(1)} MiB`
  return `${(bytes / 1024).toFixed(1)} KiB`
}

/** Refuses a tree over `limits`, saying how big it is and what the limit is (the client shows it as it is). */
export function refuseOverLimits(size: TreeSize, limits: TreeLimits): void {
  if (size.files > limits.maxFiles) throw new GitInputError(`the tree has ${size.files} files, over the ${limits.maxFiles} files this service's Git import reads`)
  if (size.bytes > limits.maxBytes) {
    throw new GitInputError(`the tree holds ${size.bytes} bytes (${sizeText(size.bytes)}) in ${size.files} files, over the ${limits.maxBytes}-byte (${sizeText(limits.maxBytes)}) limit of this service's Git import`)
  }
}

/** The file count and size of a `git ls-tree -r -l -z` listing, read as it streams; the files of `folder` only. */
function countListing(child: ReturnType<typeof spawn>, folder: string, limits: TreeLimits): Promise<TreeSize | undefined> {
  return new Promise((resolve) => {
    const size: TreeSize = { files: 0, bytes: 0 }
    let rest = ''
    const count = (record: string) => {
      const match = /^(\d+) (\w+) [0-9a-f]+ +(\d+|-)\t(.*)$/s.exec(record)
      // Symbolic links and submodules are not files of the tree (readTree skips them too).
      if (!match || match[2] !== 'blob' || match[1] === '120000') return
      if (folder && !match[4].startsWith(`${folder}/`)) return
      size.files++
      size.bytes += Number(match[3])
    }
    child.stdout!.setEncoding('utf8')
    child.stdout!.on('data', (chunk: string) => {
      const records = (rest + chunk).split('\0')
      rest = records.pop() ?? ''
      records.forEach(count)
      // Counting on would only make the number larger: the tree is refused either way.
      if (size.files > limits.maxFiles) child.kill()
    })
    child.on('error', () => resolve(undefined))
    child.on('close', (code) => resolve(size.files > limits.maxFiles ? size : code === 0 ? size : undefined))
  })
}

/**
 * The size of `folder` of `source.ref`, read where a file:// repository lies, from git's object headers
 * (`ls-tree -l` reads the tree objects and each blob's size, never a blob's bytes). A tree over the
 * limits is refused in a moment rather than after fetching all of it: a 2.5 GB repository was copied
 * whole, past the client's request timeout, before its size was looked at (issue 26). Undefined when
 * the repository cannot be read there (not file://, nothing at the path, no such ref, a repository git
 * will not open): the fetch then says why, and the tree is measured after it as before.
 */
export async function sizeInPlace(source: GitSource, folder: string, limits: TreeLimits): Promise<TreeSize | undefined> {
  if (!source.url.startsWith('file:')) return undefined
  let top: string
  try {
    top = fileURLToPath(source.url)
  } catch {
    return undefined
  }
  // As git's upload-pack opens a file:// repository: a working tree's .git, or the folder itself (bare); never a folder above.
  const gitDir = await fs.stat(path.join(top, '.git')).then(
    () => path.join(top, '.git'),
    () => top,
  )
  const base = [...SAFETY, '--git-dir', gitDir]
  const env = gitEnv(gitDir)
  let commit: string
  try {
    commit = (await run('git', [...base, 'rev-parse', '--verify', '--quiet', '--end-of-options', `${source.ref}^{commit}`], { env, encoding: 'utf8', timeout: SIZE_TIMEOUT_MS })).stdout.trim()
  } catch {
    return undefined
  }
  const child = spawn('git', [...base, 'ls-tree', '-r', '-l', '-z', '--full-tree', commit, ...(folder ? ['--', folder] : [])], { env, timeout: SIZE_TIMEOUT_MS, stdio: ['ignore', 'pipe', 'ignore'] })
  const size = await countListing(child, folder, limits)
  if (size) refuseOverLimits(size, limits)
  return size
}

/** A scratch bare repository, removed by `dispose`. */
export class ScratchRepository {
  private constructor(readonly dir: string) {}

  static async create(): Promise<ScratchRepository> {
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'quire-git-'))
    await git(dir, ['init', '--bare', '--quiet'])
    return new ScratchRepository(dir)
  }

  async dispose(): Promise<void> {
    await fs.rm(this.dir, { recursive: true, force: true })
  }

  /** Fetches `ref` (its tip only) and returns the commit id; a missing repository or ref is the caller's error. */
  async fetch(source: GitSource): Promise<string> {
    try {
      await git(this.dir, ['fetch', '--quiet', '--no-tags', '--depth=1', '--end-of-options', source.url, `+${source.ref}:refs/quire/fetched`])
    } catch (error) {
      throw new GitInputError(`cannot fetch ${source.ref} from ${displayUrl(source.url)}: ${gitReason(error)}`)
    }
    return (await git(this.dir, ['rev-parse', '--verify', 'refs/quire/fetched^{commit}'])).toString().trim()
  }

  /** Like `fetch`, undefined when the repository has no such ref yet (an export may create it). */
  async fetchIfPresent(source: GitSource): Promise<string | undefined> {
    let listed: Buffer
    try {
      listed = await git(this.dir, ['ls-remote', '--end-of-options', source.url, source.ref])
    } catch (error) {
      throw new GitInputError(`cannot read ${displayUrl(source.url)}: ${gitReason(error)}`)
    }
    if (!listed.toString().split('\n').some((line) => line.split('\t')[1] === source.ref)) return undefined
    return this.fetch(source)
  }

  /**
   * Every file of `commit` under `folder` ('' for all), by path relative to it. Symbolic links and
   * submodules are not files of the tree and are skipped.
   */
  async readTree(commit: string, folder: string, limits: TreeLimits = DEFAULT_TREE_LIMITS): Promise<Map<string, Buffer>> {
    const listing = await git(this.dir, ['ls-tree', '-r', '-z', '--full-tree', commit, ...(folder ? ['--', folder] : [])])
    const entries: Array<{ oid: string; path: string }> = []
    for (const record of listing.toString('utf8').split('\0')) {
      const match = /^(\d+) (\w+) ([0-9a-f]+)\t(.*)$/s.exec(record)
      if (!match || match[2] !== 'blob' || match[1] === '120000') continue
      const rel = folder ? match[4].slice(folder.length + 1) : match[4]
      if (folder && !match[4].startsWith(`${folder}/`)) continue
      entries.push({ oid: match[3], path: rel })
    }
    refuseOverLimits({ files: entries.length, bytes: 0 }, limits)
    const files = new Map<string, Buffer>()
    if (entries.length === 0) return files
    const sizes = await git(this.dir, ['cat-file', '--batch-check=%(objectsize)'], Buffer.from(entries.map((e) => `${e.oid}\n`).join('')))
    const total = sizes.toString().split('\n').filter(Boolean).reduce((sum, n) => sum + Number(n), 0)
    refuseOverLimits({ files: entries.length, bytes: total }, limits)
    const batch = await this.catBlobs(entries.map((e) => e.oid))
    entries.forEach((entry, i) => files.set(entry.path, batch[i]))
    return files
  }

  /**
   * `git cat-file --batch`: each object's header line, then its bytes and a newline. Read as it streams,
   * each blob copied once into a buffer of its own, so the tree is held once rather than twice.
   */
  private catBlobs(oids: string[]): Promise<Buffer[]> {
    return new Promise<Buffer[]>((resolve, reject) => {
      const child = spawn('git', ['-C', this.dir, 'cat-file', '--batch'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', GIT_CONFIG_NOSYSTEM: '1', GIT_CONFIG_GLOBAL: os.devNull }, timeout: GIT_TIMEOUT_MS })
      const blobs: Buffer[] = []
      let pending = Buffer.alloc(0)
      let current: { bytes: Buffer; filled: number } | undefined
      let failure: Error | undefined
      child.stdout.on('data', (chunk: Buffer) => {
        let data = pending.length > 0 ? Buffer.concat([pending, chunk]) : chunk
        pending = Buffer.alloc(0)
        while (data.length > 0 && !failure) {
          if (current) {
            const take = Math.min(current.bytes.length - current.filled, data.length)
            data.copy(current.bytes, current.filled, 0, take)
            current.filled += take
            data = data.subarray(take)
            if (current.filled < current.bytes.length) break
            if (data.length === 0) {
              pending = Buffer.alloc(0)
              break
            }
            // The newline after the object's bytes.
            data = data.subarray(1)
            blobs.push(current.bytes)
            current = undefined
            continue
          }
          const eol = data.indexOf(10)
          if (eol < 0) {
            pending = Buffer.from(data)
            break
          }
          const [oid, type, size] = data.subarray(0, eol).toString().split(' ')
          if (type !== 'blob') failure = new Error(`git cat-file: ${oid} is not a blob`)
          current = { bytes: Buffer.allocUnsafe(Number(size)), filled: 0 }
          data = data.subarray(eol + 1)
        }
        if (failure) child.kill()
      })
      child.on('error', reject)
      child.on('close', (code) => {
        if (current && current.filled === current.bytes.length) blobs.push(current.bytes)
        if (failure) reject(failure)
        else if (code !== 0 || blobs.length !== oids.length) reject(new Error(`git cat-file ended (${code}) after ${blobs.length} of ${oids.length} objects`))
        else resolve(blobs)
      })
      child.stdin.end(oids.map((oid) => `${oid}\n`).join(''))
    })
  }

  /**
   * Commits `files` (relative to `folder`) on top of `parent` (none: a first commit): the docs files the
   * parent had under `folder` (pages, SUMMARY.md, assets) are replaced, everything else is kept. Returns
   * the new commit id.
   */
  async commitTree(parent: string | undefined, folder: string, files: Map<string, Uint8Array>, removed: string[], message: string, when: Date): Promise<string> {
    const prefix = folder ? `${folder}/` : ''
    const chunks: Buffer[] = []
    const seconds = Math.floor(when.getTime() / 1000)
    const identity = `Quire <quire@localhost> ${seconds} +0000`
    const messageBytes = Buffer.from(message)
    chunks.push(Buffer.from(`commit refs/quire/export\nauthor ${identity}\ncommitter ${identity}\ndata ${messageBytes.length}\n`), messageBytes, Buffer.from('\n'))
    if (parent) chunks.push(Buffer.from(`from ${parent}\n`))
    for (const rel of removed) chunks.push(Buffer.from(`D ${quotePath(prefix + rel)}\n`))
    for (const [rel, bytes] of files) {
      chunks.push(Buffer.from(`M 100644 inline ${quotePath(prefix + rel)}\ndata ${bytes.byteLength}\n`), Buffer.from(bytes), Buffer.from('\n'))
    }
    chunks.push(Buffer.from('done\n'))
    await git(this.dir, ['fast-import', '--quiet', '--done', '--force'], Buffer.concat(chunks))
    return (await git(this.dir, ['rev-parse', '--verify', 'refs/quire/export^{commit}'])).toString().trim()
  }

  /** Pushes `commit` to `ref`; refused (not forced) when the ref moved since it was fetched, unless `force`. */
  async push(source: GitSource, commit: string, force: boolean): Promise<void> {
    try {
      await git(this.dir, ['push', '--quiet', '--end-of-options', source.url, `${force ? '+' : ''}${commit}:${source.ref}`])
    } catch (error) {
      throw new GitInputError(`cannot push to ${source.ref} of ${displayUrl(source.url)}: ${gitReason(error)}`)
    }
  }
}

/** fast-import's quoting of a path: C-style quotes when it holds a quote, a backslash, a newline or starts with one. */
function quotePath(p: string): string {
  if (!/["\\\n]/.test(p) && !p.startsWith('"')) return p
  return `"${p.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')}"`
}

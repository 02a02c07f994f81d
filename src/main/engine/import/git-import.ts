/**
 * Importing a local git repository through the service's own Git import (spec `importGitRepository`),
 * which keeps what the content API cannot create: groups, link entries, separators, link titles. The
 * service reads the repository at a ref by URL, so this works where the service can reach the folder
 * (the local service, on this machine); a service without the operation answers 404 or 501, and the
 * caller falls back to the content API, as it does when the service refuses the tree (GitImportRefusedError).
 *
 * Git import reads commits: files changed but not committed are not imported. They are returned in
 * `uncommitted` so the caller can refuse or say so (a local edit must never be silently left behind).
 */
import { execFile } from 'node:child_process'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { GitBookAPIError, type GitSyncState } from '@gitbook/api'
import { ServiceUnreachableError, type ApiGateway } from '../gateway/api-gateway'

const run = promisify(execFile)

export interface GitImportOptions {
  spaceId: string
  /** A folder inside a git repository: the repository's project directory when it is a subfolder. */
  folder: string
  /** Defaults to the branch checked out (`refs/heads/...`). */
  ref?: string
  /** Make a revision without changing the space's content. */
  standalone?: boolean
  /** How long to wait for the import to end; 10 minutes by default. */
  timeoutMs?: number
  pollMs?: number
  sleep?: (ms: number) => Promise<void>
}

export interface GitImported {
  status: 'imported'
  /** The revision the import made (the space's content unless standalone). */
  revisionId: string
  commit?: string
  /** What the service could not represent, each with its reason. */
  notes: string[]
  /** Paths with changes not committed, which the import did not see. */
  uncommitted: string[]
}

export type GitImportResult = GitImported | 'unsupported'

/**
 * The service refused the Git import (a 4xx with its reason: a tree over its limits, a URL it will not
 * read) or the import ended failed: nothing of it reached the space, so the tree may go another way.
 * The message carries the service's reason as it gave it.
 */
export class GitImportRefusedError extends Error {}

/** Statuses of a refusal of the request itself, not of the token (401) nor of a running operation (409). */
const REFUSALS = new Set([400, 403, 413, 422])

/** What the local service adds to the spec's `GitSyncState.operation`: its id and the revision it made. */
type Operation = NonNullable<GitSyncState['operation']> & { id?: string; revision?: string; commit?: string; notes?: string[]; stage?: string }

const defaultSleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms))

async function git(cwd: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' } })
  return stdout
}

/** The repository holding `folder`, the folder's path inside it, the ref checked out and what is not committed. */
export async function localRepository(folder: string, ref?: string): Promise<{ url: string; projectDirectory: string; ref: string; uncommitted: string[] }> {
  let top: string
  try {
    top = (await git(folder, ['rev-parse', '--show-toplevel'])).trim()
  } catch {
    throw new Error(`${folder} is not inside a git repository`)
  }
  const projectDirectory = path.relative(top, path.resolve(folder)).split(path.sep).join('/')
  let branch = ref
  if (!branch) {
    try {
      branch = (await git(folder, ['symbolic-ref', '--quiet', 'HEAD'])).trim()
    } catch {
      throw new Error(`${top} has no branch checked out (detached HEAD): name the ref to import`)
    }
  }
  const status = await git(folder, ['status', '--porcelain=v1', '-z', '--untracked-files=all', '--', '.'])
  const uncommitted = status.split('\0').filter(Boolean).map((entry) => entry.slice(3)).filter((p) => p !== '')
  return { url: pathToFileURL(top).href, projectDirectory, ref: branch, uncommitted }
}

async function readOperation(gateway: ApiGateway, spaceId: string): Promise<Operation | undefined> {
  try {
    return (await gateway.client.spaces.getSpaceGitInfo(spaceId)).data.operation as Operation | undefined
  } catch (error) {
    if (error instanceof GitBookAPIError && error.code === 404) return undefined
    throw error
  }
}

const sameOperation = (a: Operation | undefined, b: Operation | undefined) =>
  a !== undefined && b !== undefined && (a.id !== undefined || b.id !== undefined ? a.id === b.id : a.startedAt === b.startedAt)

/**
 * Asks the service to import the repository holding `folder` into the space and waits until it ended.
 * 'unsupported' when the service has no Git import; an Error with the service's reason when it refused
 * the import or the import failed.
 */
export async function importGitTree(gateway: ApiGateway, options: GitImportOptions): Promise<GitImportResult> {
  const repo = await localRepository(options.folder, options.ref)
  const sleep = options.sleep ?? defaultSleep
  const before = await readOperation(gateway, options.spaceId).catch(() => undefined)
  try {
    await gateway.client.spaces.importGitRepository(options.spaceId, {
      url: repo.url,
      ref: repo.ref,
      ...(repo.projectDirectory ? { repoProjectDirectory: repo.projectDirectory } : {}),
      ...(options.standalone ? { standalone: true } : {}),
    })
  } catch (error) {
    if (error instanceof GitBookAPIError && (error.code === 501 || error.code === 405)) return 'unsupported'
    if (error instanceof GitBookAPIError && error.code === 404) {
      // The operation is missing, or the space is: only the first means "fall back".
      await gateway.client.spaces.getSpaceById(options.spaceId)
      return 'unsupported'
    }
    if (error instanceof GitBookAPIError && REFUSALS.has(error.code)) throw new GitImportRefusedError(`the service refused the Git import (HTTP ${error.code}): ${error.errorMessage}`)
    if (error instanceof GitBookAPIError) throw new Error(`the service refused the Git import (HTTP ${error.code}): ${error.errorMessage}`)
    // No answer (the service reads the repository before it answers, which can outlast the request's
    // timeout): whether it started is for its Git Sync state to say; if it did, it is waited for.
    if (!(error instanceof ServiceUnreachableError) || error.notSent || !(await startedSince(gateway, options.spaceId, before))) throw error
  }
  const deadline = Date.now() + (options.timeoutMs ?? 10 * 60_000)
  for (let wait = options.pollMs ?? 50; ; wait = Math.min(wait * 2, 1000)) {
    const operation = await readOperation(gateway, options.spaceId)
    if (operation && !sameOperation(operation, before) && operation.direction === 'import' && operation.state !== 'running') {
      if (operation.state !== 'success') throw new GitImportRefusedError(`the Git import ${operation.state === 'timeout' ? 'timed out' : 'failed'}: ${operation.error ?? 'no reason given'}`)
      const revisionId = operation.revision ?? (options.standalone ? undefined : (await gateway.client.spaces.getSpaceById(options.spaceId)).data.revision)
      if (!revisionId) throw new Error('the Git import ended but the service did not say which revision it made')
      return { status: 'imported', revisionId, ...(operation.commit ? { commit: operation.commit } : {}), notes: operation.notes ?? [], uncommitted: repo.uncommitted }
    }
    if (Date.now() > deadline) throw new Error(`the Git import did not end within ${Math.round((options.timeoutMs ?? 600_000) / 1000)} s`)
    await sleep(wait)
  }
}

/** Whether an import began in the space after `before` (the request that asked for it got no answer). */
async function startedSince(gateway: ApiGateway, spaceId: string, before: Operation | undefined): Promise<boolean> {
  const operation = await readOperation(gateway, spaceId).catch(() => undefined)
  return operation !== undefined && !sameOperation(operation, before) && operation.direction === 'import'
}

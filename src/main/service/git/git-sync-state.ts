/**
 * A space's Git Sync state: the repository it last imported from or exported to, and that operation's
 * progress. Kept in the space's JSON data (`SpaceData.gitSync`), so it survives restarts with no schema
 * change; `git/info` answers it as the spec's `GitSyncState`.
 */
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository } from '../store/spaces'

export type GitOperationState = 'running' | 'failure' | 'success'
export type GitOperationStage = 'repo_fetch' | 'config_check' | 'content_process' | 'finalize'

export interface GitSyncOperationRecord {
  /** Unique per operation, so a client can tell its own from an earlier one. */
  id: string
  direction: 'import' | 'export'
  state: GitOperationState
  stage: GitOperationStage
  startedAt: string
  updatedAt: string
  endedAt?: string
  error?: string
  /** The revision an import made. */
  revision?: string
  /** The commit an import read or an export wrote. */
  commit?: string
  /** What the revision could not carry (import), each with its reason. */
  notes?: string[]
}

export interface GitSyncRecord {
  /** The repository URL without credentials. */
  url: string
  ref: string
  projectDirectory?: string
  updatedAt: string
  operation: GitSyncOperationRecord
}

export function readGitSync(store: ServiceStore, spaceId: string): GitSyncRecord | undefined {
  return store.repo(SpacesRepository).get(spaceId)?.data.gitSync
}

export function writeGitSync(store: ServiceStore, spaceId: string, record: GitSyncRecord): void {
  store.repo(SpacesRepository).update(spaceId, { data: { gitSync: record } })
}

/** Applies `patch` to the space's current operation, if it is still `operationId` (a later one wins). */
export function updateOperation(store: ServiceStore, spaceId: string, operationId: string, patch: Partial<GitSyncOperationRecord>): void {
  const record = readGitSync(store, spaceId)
  if (!record || record.operation.id !== operationId) return
  const now = store.now()
  const ended = patch.state !== undefined && patch.state !== 'running' ? { endedAt: now } : {}
  writeGitSync(store, spaceId, { ...record, updatedAt: now, operation: { ...record.operation, ...patch, ...ended, updatedAt: now } })
}

/** The repository's name as GitHub would show it: the last segment of the URL's path, without `.git`. */
function repoName(url: string): string {
  const segments = new URL(url).pathname.split('/').filter(Boolean)
  return (segments[segments.length - 1] ?? '').replace(/\.git$/, '') || url
}

/**
 * The spec's `GitSyncState`. The local service has no Git provider app: it reads and writes the
 * repository itself, so `installationProvider` (an enum of hosted providers) says `github`, the shape
 * GitBook's Git Sync gives, and `installationId` is the space's own. The operation also carries `id`,
 * `revision`, `commit` and `notes`, which the spec's object does not name (it allows them): a client
 * waits for its own import by `id` and reads the revision it made.
 */
export function gitSyncStateJson(spaceId: string, record: GitSyncRecord) {
  const op = record.operation
  return {
    installationId: `local-${spaceId}`,
    installationProvider: 'github' as const,
    installationStatus: 'active' as const,
    repoName: repoName(record.url),
    url: record.url,
    operation: {
      state: op.state,
      direction: op.direction,
      startedAt: op.startedAt,
      ...(op.endedAt ? { endedAt: op.endedAt } : {}),
      ...(op.error ? { error: op.error } : {}),
      id: op.id,
      stage: op.stage,
      ...(op.revision ? { revision: op.revision } : {}),
      ...(op.commit ? { commit: op.commit } : {}),
      ...(op.notes && op.notes.length > 0 ? { notes: op.notes } : {}),
    },
    updatedAt: record.updatedAt,
  }
}

/**
 * The sync engine's public entry point: what the front ends (src/main/app, cli, headless, shell) may use.
 * eslint.config.js keeps them to this file (and engine/import/index.ts for the Git Sync import); a module
 * deeper in the engine is its own business. A front end opens a workspace here (`openWorkspace`, or a
 * `WorkspaceStore` and its sessions), runs a `WorkspaceSession`, and reads what it records.
 */

// Opening a workspace: the store (cache, outbox, comments, lease), the account, the session.
export { openWorkspace, WorkspaceStore, WORKSPACE_SETTING, type OpenWorkspace, type OpenWorkspaceOptions, type SessionSettings, type SignedInAccount, type StorePaths } from './session/open-workspace'
export { selectSpaces, type SelectionPicks } from './session/select-spaces'
export { WorkspaceSession, type SessionEvent, type WorkspaceSessionOptions } from './session/workspace-session'
export { ReviewSession, InvalidReviewInputError, type ReviewerVerdict, type WaitingReview } from './session/review-session'
export { ActionRefusedError, isUpdateConflict, type ActionOutcome } from './session/session-outcomes'
export { mergeCheck, type MergeCheck } from './session/merge-check'
export { authErrorKey, storedSpaceFacts } from './session/space-facts'

// Paths, accounts and tokens, the cache file and its health, secrets, the outbox: the light entry point's.
export * from './basics'

// The cache's pages and the workspace lease.
export type { RemotePageRow } from './cache/page-tables'
export type { ChangeRequestDiffsRepository, StoredDiff } from './cache/change-request-diffs'
export { changeRequestChanges, MAX_PAGES_SHOWN } from './session/change-request-changes'
export { describeHolder, LeaseHeldError, type LeaseHolder, type LeaseKind, type WorkspaceLease } from './cache/workspace-lease'

// The one gateway for every HTTP call, and what keeps tokens out of text.
export { ApiGateway, paginate, ServiceUnreachableError, type GatewayOptions } from './gateway/api-gateway'

// Sync down, its status, and pulling a space after a merge.
export { SyncEngine, spaceFolderPath, type PassReport, type SyncProgressEvent } from './sync/sync-engine'
export { readSpaceStatuses, type SpaceStatus } from './sync/space-status'
export { pullSpace } from './watch/pull'
export { DEFAULT_DEBOUNCE_MS, DEFAULT_RENAME_WINDOW_MS } from './watch/watcher'

// Sync up: the outbox, what it holds and sends, and what it says about each space.
export type { NewOutboxOp, OutboxOp, PayloadOf } from './outbox/outbox-types'
export { enqueueAction } from './outbox/action-keys'
export { OutboxSender } from './outbox/outbox-sender'
export { SpacePusher } from './push/space-pusher'
export { updateFromMainOrConflicts, type OwnUpdate } from './push/update-own-from-main'
export { describeSyncUp, filesOf, readSyncUpStatuses } from './push/sync-up-status'

// Comments and links, as mirrored in the cache.
export type { CommentsRepository, Thread } from './comments/comments-repository'
export { bodyMarkdown, refreshPageThreads, threadOf } from './comments/threads'
export { linkFindings, linkReportsStale, refreshLinkReport, refreshStaleLinkReports } from './links/link-reports'
export { localLinkFindings } from './links/local-preflight'
export { previewSpacePage, PreviewRefused, spaceFolderOf } from './preview/page-preview'
export { previewHtml, renderPreview, type PreviewContext } from './preview/render-preview'
export type { PreflightFinding } from './links/preflight'

// Offline full-text search of the space folders, with the service's search beside it.
export { SearchKeeper, searchedSpaces, UnknownSpaceError } from './search/search-keeper'
export { EmptyQueryError } from './search/query-syntax'
export type { SearchAnswer, SearchedSpace, SearchOptions, SearchResult, SnippetPart } from './search/workspace-search'

// Files written whole or not at all.
export { writeFileAtomic } from './workspace/atomic-write'

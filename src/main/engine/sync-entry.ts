/**
 * The engine's entry point for `quire sync` (and what opens a workspace for any command): a workspace,
 * its session and the selection, without the modules only other commands use. engine/index.ts
 * re-exports each of its modules, so importing it runs every one's top-level code (the bundle keeps
 * them): KaTeX, parse5 and the rest of the preview, the search index, review sessions. Loading those
 * was a third of a `quire sync --once` start's CPU (bench:network's next pass); this does not.
 */
export * from './basics'
export { openWorkspace, type OpenWorkspace, type OpenWorkspaceOptions } from './session/open-workspace'
export { selectSpaces, type SelectionPicks } from './session/select-spaces'
export { type WorkspaceSession } from './session/workspace-session'
export { authErrorKey, storedSpaceFacts } from './session/space-facts'
export { LeaseHeldError } from './cache/workspace-lease'
export type { PassReport, SyncProgressEvent } from './sync/sync-engine'

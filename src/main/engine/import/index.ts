/**
 * The Git Sync import's public entry point (`quire import`): apart from engine/index.ts so that only the
 * import command loads it. eslint.config.js keeps the front ends to these two files.
 */
export { gitImport } from './git-import-strategy'
export { contentApiImport, unsentLocalWork, type ImportContext, type ImportOutcome, type ImportStrategy } from './import-runner'
export type { ImportNote } from './import-notes'
export { ImportInputError, readSourceTree, type SourceTree } from './source-tree'
export { deleteIfUnused } from './unused-space'

/**
 * Quire's content model, shared by the local service and the sync engine.
 * Pure: no I/O, no clocks, no randomness (ids and time come from the caller).
 *
 * - types      revision trees, pages, files, content changes
 * - markdown/  Git Sync page files, blob ids, links, JSON documents
 * - gitsync/   slugs, file paths, SUMMARY.md
 * - revision/  applying change batches, diffing and merging trees
 * - merge/     three-way merge of page text, block by block
 */
export * from './types'
export { ContentError } from './errors'

export { gitBlobOid } from './markdown/blob-oid'
export { dumpFrontMatter, loadFrontMatter, normalizeMetadata } from './markdown/front-matter'
export { bodyOutline, gitbookAnchor, uniqueAnchor, type BodyOutline } from './markdown/heading-anchors'
export { splitGitBookBlocks, type Segment, type TagSegment } from './markdown/document/gitbook-blocks'
export { classifyTarget, extractLinks, rewriteLinks, type LinkKind, type LinkSyntax, type MarkdownLink } from './markdown/links'
export { normalizeBody, normalizeTitle, parsePageMarkdown, serializePageMarkdown, splitPageMarkdown, type PageFile, type PageFileParts } from './markdown/page-file'
export { documentToMarkdown } from './markdown/document/from-document'
export { markdownToDocument } from './markdown/document/to-document'
export type { ContentRef, DocumentConversionOptions } from './markdown/document/refs'

export { slugify, uniqueSlug, MAX_SLUG_LENGTH } from './gitsync/slug'
export { ASSETS_FOLDER, README_FILE, SUMMARY_FILE, assetPaths, computeGitPaths, findHomePage } from './gitsync/paths'
export { parseSummary, renderSummary, type SummaryEntry } from './gitsync/summary'
export { relativePath, resolveRelativePath } from './gitsync/relative-path'
export { DEFAULT_GITSYNC_CONFIG, GITBOOK_CONFIG_FILE, parseGitSyncConfig, type GitSyncConfig } from './gitsync/config'
export { keepIdentities, revisionFromGitSync, type GitSyncImport, type GitSyncImportEnv } from './gitsync/import-tree'

export { applyContentChanges, MAX_CHANGES_PER_BATCH } from './revision/apply'
export { MAX_FILE_BYTES, MAX_FILES_PER_CHANGE } from './revision/file-changes'
export { contentTypeFromName, imageDimensions } from './revision/file-bytes'
export { diffTrees, type PageChangeKind, type PageDiff, type TreeDiff } from './revision/diff'
export { mergeTrees, type MergeOptions, type MergeResult } from './revision/merge'
export type { BodyReader } from './revision/merge-page-versions'
export { cloneTree, containsPage, findPage, flattenPages, indexPages, locatePage, walkPages, type PageForest, type PageLocation } from './revision/tree'
export { mergePageBodies, mergePageFiles, type MergeSide, type PageMergeConflict, type PageMergeOptions, type PageMergeResult } from './merge/merge-page'

export { judgeMergeRules, rulesInForce, type MergeFacts, type MergeRule, type MergeRuleCheck, type MergeRulesInForce, type MergeRulesVerdict } from './review/merge-rules'

/**
 * Git Sync's operations (spec tag `space-git`): import a repository's Git Sync tree into a space,
 * export a space's content to a repository, and the space's sync state.
 *
 * Import and export answer 204 and finish in the background, as the spec says; `git/info` shows the
 * operation until it ends. What a caller got wrong (a URL this service will not reach, a ref git refuses,
 * a repository or ref that is not there, a tree with no SUMMARY.md or a bad `.gitbook.yaml`) is found
 * before the 204 and answered 400 with the reason; only storing the revision (import) and committing and
 * pushing (export) happen after it. A tree over the service's limits (1 GiB, 100,000 files by default)
 * is refused with a 400 that gives its size and the limit: from git's object sizes before anything is
 * fetched when the repository is a file:// one, within a moment whatever its size.
 */
import {
  ContentError,
  computeGitPaths,
  GITBOOK_CONFIG_FILE,
  keepIdentities,
  parseGitSyncConfig,
  parseSummary,
  renderSummary,
  resolveRelativePath,
  revisionFromGitSync,
  SUMMARY_FILE,
  type RevisionTree,
  type SummaryEntry,
  type TreePage,
} from '../../content'
import { treePath } from '../../content/gitsync/config'
import { includePath, includeSlug } from '../../content/gitsync/include-file'
import { renderTagsYaml, TAGS_FILE } from '../../content/gitsync/tags-yaml'
import { checkSource, DEFAULT_TREE_LIMITS, displayUrl, GitInputError, ScratchRepository, sizeInPlace, type GitSource, type TreeLimits } from '../git/git-repository'
import { gitSyncStateJson, readGitSync, updateOperation, writeGitSync, type GitSyncOperationRecord } from '../git/git-sync-state'
import { noContent, ok, type RequestContext, type Route } from '../http/context'
import { atLeast } from '../access/roles'
import { badRequest, conflict, forbidden, notFound } from '../http/errors'
import { newId } from '../store/ids'
import { createSpaceRevision, RevisionsRepository } from '../store/revisions'
import type { ServiceStore } from '../store/service-store'
import { SpacesRepository, type Space } from '../store/spaces'
import { currentRevision, requireSpace } from './content-access'
import { RevisionView } from './serializers/revision'

interface GitOperationBody {
  url: string
  ref: string
  repoProjectDirectory?: string
  force?: boolean
  standalone?: boolean
  commitMessage?: string
}

/** Spaces with an operation running in this process: one at a time per space. */
const running = new WeakMap<ServiceStore, Set<string>>()

function runningIn(store: ServiceStore): Set<string> {
  let spaces = running.get(store)
  if (!spaces) running.set(store, (spaces = new Set()))
  return spaces
}

/** The tree limits of each service (LocalServiceOptions.gitImportLimits); the defaults where none were set. */
const treeLimits = new WeakMap<ServiceStore, TreeLimits>()

export function setGitTreeLimits(store: ServiceStore, limits: Partial<TreeLimits>): void {
  treeLimits.set(store, { ...DEFAULT_TREE_LIMITS, ...limits })
}

const limitsOf = (store: ServiceStore): TreeLimits => treeLimits.get(store) ?? DEFAULT_TREE_LIMITS

/** Checks the body, records the operation as running and returns what the handler needs. */
function beginOperation(ctx: RequestContext, direction: 'import' | 'export') {
  const { space, role } = requireSpace(ctx, 'edit')
  const body = ctx.body as GitOperationBody
  let source: GitSource
  let folder = ''
  try {
    source = checkSource({ url: body.url, ref: body.ref })
    if (body.repoProjectDirectory !== undefined) folder = treePath(body.repoProjectDirectory, 'repoProjectDirectory', true)
  } catch (error) {
    if (error instanceof GitInputError || error instanceof ContentError) throw badRequest(error.message)
    throw error
  }
  // A file:// repository is read (or written) with the rights of the service's own user, on its disk.
  if (source.url.startsWith('file:') && !atLeast(role, 'admin')) throw forbidden('file:// repositories are on the service\'s own disk: importing from or exporting to one needs the admin role on the space')
  const spaces = runningIn(ctx.store)
  if (spaces.has(space.id)) throw conflict(`Space ${space.id} has a Git Sync operation running; wait for it to end (git/info)`)
  spaces.add(space.id)
  const now = ctx.store.now()
  const operation: GitSyncOperationRecord = { id: newId(), direction, state: 'running', stage: 'repo_fetch', startedAt: now, updatedAt: now }
  writeGitSync(ctx.store, space.id, { url: displayUrl(source.url), ref: source.ref, ...(folder ? { projectDirectory: folder } : {}), updatedAt: now, operation })
  return { space, body, source, folder, operation, release: () => spaces.delete(space.id) }
}

/** Ends the operation as failed; a caller's mistake becomes a 400 with the reason. */
function failed(ctx: RequestContext, spaceId: string, operationId: string, error: unknown): unknown {
  const message = error instanceof Error ? error.message : String(error)
  updateOperation(ctx.store, spaceId, operationId, { state: 'failure', error: message })
  if (error instanceof GitInputError || error instanceof ContentError) return badRequest(message)
  return error
}

async function importGitRepository(ctx: RequestContext) {
  const { space, body, source, folder, operation, release } = beginOperation(ctx, 'import')
  const limits = limitsOf(ctx.store)
  // A tree over the limits is refused from its object sizes before any of it is fetched (a file://
  // repository); one read another way is measured once fetched, before its files are read.
  try {
    await sizeInPlace(source, folder, limits)
  } catch (error) {
    release()
    throw failed(ctx, space.id, operation.id, error)
  }
  const scratch = await ScratchRepository.create().catch((error: unknown) => {
    release()
    throw failed(ctx, space.id, operation.id, error)
  })
  let prepared: { tree: RevisionTree; blobs: Map<string, Uint8Array>; notes: string[]; commit: string }
  try {
    const commit = await scratch.fetch(source)
    updateOperation(ctx.store, space.id, operation.id, { stage: 'config_check', commit })
    const files = await scratch.readTree(commit, folder, limits)
    const config = parseGitSyncConfig(files.get(GITBOOK_CONFIG_FILE)?.toString('utf8'))
    const docs = config.root === '' ? files : new Map([...files].filter(([p]) => p.startsWith(`${config.root}/`)).map(([p, b]) => [p.slice(config.root.length + 1), b]))
    updateOperation(ctx.store, space.id, operation.id, { stage: 'content_process' })
    const imported = revisionFromGitSync(docs, config, { newId: () => newId(), now: ctx.store.now() })
    for (const key of config.otherKeys ?? []) imported.notes.push(`${GITBOOK_CONFIG_FILE}: ${key} not imported: the service keeps no ${key} of a space`)
    prepared = { ...imported, commit }
  } catch (error) {
    release()
    throw failed(ctx, space.id, operation.id, error)
  } finally {
    await scratch.dispose()
  }
  ctx.defer(async () => {
    try {
      updateOperation(ctx.store, space.id, operation.id, { stage: 'finalize' })
      const revision = storeImport(ctx, space, prepared, body.standalone === true)
      updateOperation(ctx.store, space.id, operation.id, { state: 'success', revision: revision.id, ...(prepared.notes.length > 0 ? { notes: prepared.notes } : {}) })
    } catch (error) {
      failed(ctx, space.id, operation.id, error)
    } finally {
      release()
    }
  })
  return noContent()
}

/** `standalone`: a revision of the space that is not its content; otherwise the space's new content. */
function storeImport(ctx: RequestContext, space: Space, prepared: { tree: RevisionTree; blobs: Map<string, Uint8Array>; commit: string }, standalone: boolean) {
  const message = `Git import of ${prepared.commit.slice(0, 12)}`
  // The space may have moved on while the tree was read: the revision follows whatever is current now.
  const latest = ctx.store.repo(SpacesRepository).get(space.id)?.revisionId
  const parents = latest ? [latest] : []
  const previous = latest ? ctx.store.repo(RevisionsRepository).get(latest) : undefined
  if (previous) keepIdentities(prepared.tree, previous.tree)
  if (standalone) return ctx.store.repo(RevisionsRepository).create({ spaceId: space.id, parents, tree: prepared.tree, blobs: prepared.blobs, message, createdBy: ctx.user.id })
  return createSpaceRevision(ctx.store, space.id, prepared.tree, prepared.blobs, parents, { message, createdBy: ctx.user.id })
}

/** The space's content as Git Sync files: each page file, SUMMARY.md at `summary`, every asset. */
function gitSyncFiles(ctx: RequestContext, space: Space, summary: string): Map<string, Uint8Array> {
  const revision = currentRevision(ctx, space)
  const view = new RevisionView(ctx.store, revision, { origin: ctx.origin, metadata: false })
  const paths = computeGitPaths(revision.tree)
  const files = new Map<string, Uint8Array>()
  const encoder = new TextEncoder()
  const walk = (pages: readonly TreePage[]) => {
    for (const page of pages) {
      const path = paths.get(page.id)
      if (page.type === 'document' && path) files.set(path, encoder.encode(view.markdown(page)))
      walk(page.pages)
    }
  }
  walk(revision.tree.pages)
  files.set(summary, encoder.encode(renderSummary(revision.tree, paths)))
  const tags = renderTagsYaml(revision.tree.tags)
  if (tags !== undefined) files.set(TAGS_FILE, encoder.encode(tags))
  const blobs = ctx.store.repo(RevisionsRepository)
  for (const file of revision.tree.files) {
    const bytes = blobs.blob(file.blobOid)
    const path = paths.get(file.id)
    if (bytes && path) files.set(path, bytes)
  }
  // Reusable contents are kept as their whole file: written back as they came in.
  for (const content of revision.tree.reusableContents ?? []) {
    const bytes = blobs.blob(content.blobOid)
    if (bytes) files.set(includePath(content.slug), bytes)
  }
  return files
}

/** The files a SUMMARY.md lists as pages, by path (relative to the docs root). */
function summaryPaths(summaryPath: string, text: string | undefined): Set<string> {
  const paths = new Set<string>()
  const visit = (entries: SummaryEntry[]) => {
    for (const entry of entries) {
      const path = entry.kind === 'page' && entry.path ? resolveRelativePath(summaryPath, entry.path.split('#')[0]) : undefined
      if (path) paths.add(path)
      visit(entry.children)
    }
  }
  if (text !== undefined) visit(parseSummary(text))
  return paths
}

async function exportToGitRepository(ctx: RequestContext) {
  const { space, body, source, folder, operation, release } = beginOperation(ctx, 'export')
  const scratch = await ScratchRepository.create().catch((error: unknown) => {
    release()
    throw failed(ctx, space.id, operation.id, error)
  })
  let deferred = false
  try {
    if (!space.revisionId) throw notFound(`Space ${space.id} has no content to export`)
    const parent = await scratch.fetchIfPresent(source)
    updateOperation(ctx.store, space.id, operation.id, { stage: 'config_check' })
    const existing = parent ? await scratch.readTree(parent, folder, limitsOf(ctx.store)) : new Map<string, Buffer>()
    const config = parseGitSyncConfig(existing.get(GITBOOK_CONFIG_FILE)?.toString('utf8'))
    const docsFolder = [folder, config.root].filter(Boolean).join('/')
    const inDocs = (p: string) => (config.root === '' ? p : p.startsWith(`${config.root}/`) ? p.slice(config.root.length + 1) : undefined)
    // The docs the parent had (the pages its SUMMARY.md lists, SUMMARY.md, assets, tags.yaml, includes) give way to the space's;
    // every other file stays, unlisted markdown (LICENSE.md, CONTRIBUTING.md) included.
    const docs = new Map([...existing].flatMap(([p, b]) => (inDocs(p) === undefined ? [] : [[inDocs(p) as string, b] as const])))
    const listed = summaryPaths(config.summary, docs.get(config.summary)?.toString('utf8'))
    const removed = [...docs.keys()].filter((p) => p === config.summary || p === TAGS_FILE || p.startsWith('.gitbook/assets/') || includeSlug(p) !== undefined || listed.has(p))
    updateOperation(ctx.store, space.id, operation.id, { stage: 'content_process' })
    const files = gitSyncFiles(ctx, space, config.summary || SUMMARY_FILE)
    deferred = true
    ctx.defer(async () => {
      try {
        updateOperation(ctx.store, space.id, operation.id, { stage: 'finalize' })
        const commit = await scratch.commitTree(parent, docsFolder, files, removed, body.commitMessage ?? 'Export from Quire', new Date(ctx.store.now()))
        await scratch.push(source, commit, body.force === true)
        updateOperation(ctx.store, space.id, operation.id, { state: 'success', commit })
      } catch (error) {
        failed(ctx, space.id, operation.id, error)
      } finally {
        release()
        await scratch.dispose()
      }
    })
  } catch (error) {
    release()
    throw failed(ctx, space.id, operation.id, error)
  } finally {
    if (!deferred) await scratch.dispose()
  }
  return noContent()
}

function getSpaceGitInfo(ctx: RequestContext) {
  const { space } = requireSpace(ctx, 'view')
  let record = readGitSync(ctx.store, space.id)
  if (!record) throw notFound(`Space ${space.id} has no Git repository set up: import from or export to one first`)
  if (record.operation.state === 'running' && !runningIn(ctx.store).has(space.id)) {
    // Left running by a service that stopped mid-operation: it will not end by itself.
    updateOperation(ctx.store, space.id, record.operation.id, { state: 'failure', error: 'interrupted: the service stopped during the operation' })
    record = readGitSync(ctx.store, space.id) ?? record
  }
  return ok(gitSyncStateJson(space.id, record))
}

export const gitSyncRoutes: Route[] = [
  { operationId: 'importGitRepository', handler: importGitRepository },
  { operationId: 'exportToGitRepository', handler: exportToGitRepository },
  { operationId: 'getSpaceGitInfo', handler: getSpaceGitInfo },
]

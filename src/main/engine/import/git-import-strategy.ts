import { GitBookAPIError } from '@gitbook/api'
import { gitBlobOid, serializePageMarkdown } from '../../content'
import { GitImportRefusedError, importGitTree, localRepository, type GitImportResult } from './git-import'
import type { ImportNote } from './import-notes'
import { contentApiImport, type ImportContext, type ImportOutcome, type ImportStrategy } from './import-runner'

/**
 * The service's Git import (spec `importGitRepository`) for a tree that is a git repository: it keeps
 * what the content API cannot create (groups, link entries, separators, link titles), so the space
 * comes back as the tree is. It makes the space's content directly, with no change request to review,
 * so it is used only for a space that holds nothing yet (a new space: at most one empty page, no
 * files); a space with content gets the content API's change request. Git import reads commits: a
 * repository with changes not committed goes through the content API too (which copies the files as
 * they are), and so does a service without the operation, and a tree the service refuses or fails to
 * import (over its size limits, say): nothing of the Git import reached the space then. Each fallback
 * says why in the report, the service's reason as it gave it.
 */
export const gitImport: ImportStrategy = {
  name: 'Git import',
  async applies(ctx) {
    if (!holdsNothing(ctx)) return false
    try {
      await localRepository(ctx.tree.folder)
      return true
    } catch {
      return false // not a git repository (or git missing): the content API takes it
    }
  },
  async run(ctx) {
    const repo = await localRepository(ctx.tree.folder)
    if (repo.uncommitted.length > 0) {
      const shown = repo.uncommitted.slice(0, 5).join(', ') + (repo.uncommitted.length > 5 ? ` and ${repo.uncommitted.length - 5} more` : '')
      return fallBack(ctx, `the repository has changes not committed (${shown}); the service's Git import reads commits, so the files were sent as they are through the content API`)
    }
    ctx.progress.phase('asking the service to import the repository (Git import)')
    let imported: GitImportResult
    try {
      imported = await importGitTree(ctx.gateway, { spaceId: ctx.space.id, folder: ctx.tree.folder })
    } catch (error) {
      if (!(error instanceof GitImportRefusedError)) throw error
      ctx.progress.phase(`${error.message}: importing through the content API instead`)
      return fallBack(ctx, `${error.message}; the tree went through the content API instead`, error.message)
    }
    if (imported === 'unsupported') return fallBack(ctx, 'the service has no Git import; the tree went through the content API')
    ctx.progress.phase('syncing the imported space into its folder')
    await ctx.session.pass()
    const notes: ImportNote[] = imported.notes.map((reason) => ({ kind: 'differs', path: '', reason }))
    return { strategy: this.name, complete: true, revision: imported.revisionId, copied: 0, alreadyThere: 0, notes }
  },
}

/** The space has nothing a Git import would replace: at most one page, empty as a new space's is, and no files. */
function holdsNothing(ctx: ImportContext): boolean {
  const { pages, files } = ctx.cache.remoteTree(ctx.space.id)
  const documents = pages.filter((p) => p.gitPath !== undefined)
  if (files.length > 0 || documents.length > 1) return false
  const [only] = documents
  return only === undefined || only.gitOid === gitBlobOid(serializePageMarkdown({ title: only.title, metadata: {}, body: '' }))
}

/** The content API's import, `reason` noted first; `why` is what made the Git import give way, said if the content API fails too. */
async function fallBack(ctx: ImportContext, reason: string, why = reason): Promise<ImportOutcome> {
  let outcome: ImportOutcome
  try {
    outcome = await contentApiImport.run(ctx)
  } catch (error) {
    // Why neither way took the tree, both reasons said; a refused token stays itself (quire says sign in again).
    if (error instanceof GitBookAPIError && error.code === 401) throw error
    throw new Error(`${why}; the content API could not take the tree either: ${error instanceof Error ? error.message : String(error)}`)
  }
  return { ...outcome, notes: [{ kind: 'push', path: '', reason }, ...outcome.notes] }
}

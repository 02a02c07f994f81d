/**
 * Links written in a batch's markdown that only make sense at apply time,
 * rewritten to the relative file paths Git Sync uses:
 *
 * - `./<ref>.md` -> the page inserted with that `ref`,
 * - `./<ref>`    -> the file uploaded with that `ref`,
 * - `/pages/<id | slug/path | git/path.md>` and `/files/<id>` (the API's
 *   absolute forms) -> the page or file they name.
 *
 * Resolution runs once, after the whole batch, against the final tree, so a
 * page may reference a file or page that a later change creates. Anchors
 * (`#section`) are kept. Links that match nothing are left as written.
 */
import { relativePath } from '../gitsync/relative-path'
import { rewriteLinks } from '../markdown/links'
import type { RevisionTree } from '../types'
import { walkPages } from './tree'

export interface BatchLinkTargets {
  /** Page and file id -> git path (from `computeGitPaths` of the final tree). */
  paths: Map<string, string>
  pageRefs: Map<string, string>
  fileRefs: Map<string, string>
  /** `parent-slug/slug` -> page id. */
  slugPaths: Map<string, string>
  /** git path -> page id. */
  gitPaths: Map<string, string>
}

export function batchLinkTargets(tree: RevisionTree, paths: Map<string, string>, pageRefs: Map<string, string>, fileRefs: Map<string, string>): BatchLinkTargets {
  const slugPaths = new Map<string, string>()
  const prefixes = new Map<string, string>()
  walkPages(tree, ({ page, parent }) => {
    const slugPath = parent ? `${prefixes.get(parent.id)}/${page.slug}` : page.slug
    prefixes.set(page.id, slugPath)
    if (!slugPaths.has(slugPath)) slugPaths.set(slugPath, page.id)
  })
  const gitPaths = new Map<string, string>()
  for (const [id, path] of paths) gitPaths.set(path, id)
  return { paths, pageRefs, fileRefs, slugPaths, gitPaths }
}

/** `body` of the page at `pagePath` with its batch-time links made relative. */
export function resolveBatchLinks(body: string, pagePath: string, targets: BatchLinkTargets): string {
  return rewriteLinks(body, (link) => {
    const hash = link.target.indexOf('#')
    const [target, anchor] = hash === -1 ? [link.target, ''] : [link.target.slice(0, hash), link.target.slice(hash)]
    const id = targetId(target, targets)
    const path = id === undefined ? undefined : targets.paths.get(id)
    return path === undefined ? undefined : relativePath(pagePath, path) + anchor
  })
}

function targetId(target: string, targets: BatchLinkTargets): string | undefined {
  if (target.startsWith('./')) {
    const name = target.slice(2)
    if (targets.fileRefs.has(name)) return targets.fileRefs.get(name)
    if (name.endsWith('.md')) return targets.pageRefs.get(name.slice(0, -3))
    return undefined
  }
  if (target.startsWith('/files/')) return target.slice('/files/'.length)
  if (target.startsWith('/pages/')) {
    const rest = target.slice('/pages/'.length).replace(/\/$/, '')
    if (targets.paths.has(rest)) return rest
    return rest.endsWith('.md') ? targets.gitPaths.get(rest) : targets.slugPaths.get(rest)
  }
  return undefined
}

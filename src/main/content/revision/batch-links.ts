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
import { rewriteLinks, type ParsedRuns } from '../markdown/links'
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
  hint: (text: string) => boolean
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
  const hint = batchLinkHint([...pageRefs.keys(), ...fileRefs.keys()])
  return { paths, pageRefs, fileRefs, slugPaths, gitPaths, hint }
}

/**
 * Whether a run of markdown may hold a batch-time link: `/pages/`, `/files/`,
 * or `./` followed by one of the batch's refs. Runs without one are not parsed
 * at all, so a large page whose links are all ordinary costs no parse. A `\`
 * or `&` soon after `./` counts as a match, since an escape or character
 * reference may spell a ref differently.
 */
export function batchLinkHint(refs: Iterable<string>): (text: string) => boolean {
  const names = [...new Set(refs)].sort()
  // The same refs give the same function: the links `parseLinksAhead` listed with the service's hint are
  // those the apply's `rewriteLinks` asks for with its own (links.ts keys them by the function).
  const key = JSON.stringify(names)
  let hint = hints.get(key)
  if (!hint) {
    hints.set(key, (hint = hintFor(names)))
    for (const old of hints.keys()) {
      if (hints.size <= HINTS_KEPT) break
      hints.delete(old)
    }
  }
  return hint
}

/** Hints by their refs, the most recently made last. */
const hints = new Map<string, (text: string) => boolean>()
const HINTS_KEPT = 32

function hintFor(names: string[]): (text: string) => boolean {
  return (text) => {
    if (text.includes('/pages/') || text.includes('/files/')) return true
    if (names.length === 0) return false
    // The next `\` and `&` at or after a position, each found once and reused while it lies ahead: one
    // scan of the text whatever the number of `./` in it.
    const next = { '\\': -1, '&': -1 }
    const within = (char: '\\' | '&', from: number) => {
      if (next[char] !== NONE && next[char] < from) {
        const found = text.indexOf(char, from)
        next[char] = found === -1 ? NONE : found
      }
      return next[char] >= from && next[char] < from + HINT_WINDOW
    }
    for (let at = text.indexOf('./'); at !== -1; at = text.indexOf('./', at + 2)) {
      if (text.charCodeAt(at - 1) === DOT) continue
      if (within('\\', at + 2) || within('&', at + 2) || names.some((name) => text.startsWith(name, at + 2))) return true
    }
    return false
  }
}

const DOT = 46
/** No more of that character in the text. */
const NONE = -2
/** Characters after `./` in which an escape or character reference makes a link a possible ref. */
const HINT_WINDOW = 256

/**
 * `body` of the page at `pagePath` with its batch-time links made relative (`parsed`: see `ApplyOptions`).
 * `pagePath` may be a function, called only when a link resolves (the page's path is not free in a large
 * space); a page with no path (no file of its own) keeps its links as written.
 */
export function resolveBatchLinks(body: string, pagePath: string | (() => string | undefined), targets: BatchLinkTargets, parsed?: ParsedRuns): string {
  // A large page links to the same few targets thousands of times.
  const relative = new Map<string, string>()
  let fromPath: string | undefined
  return rewriteLinks(body, (link) => {
    const hash = link.target.indexOf('#')
    const [target, anchor] = hash === -1 ? [link.target, ''] : [link.target.slice(0, hash), link.target.slice(hash)]
    const id = targetId(target, targets)
    const path = id === undefined ? undefined : targets.paths.get(id)
    if (path === undefined) return undefined
    fromPath ??= typeof pagePath === 'string' ? pagePath : pagePath()
    if (fromPath === undefined) return undefined
    let from = relative.get(path)
    if (from === undefined) relative.set(path, (from = relativePath(fromPath, path)))
    return from + anchor
  }, targets.hint, parsed)
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

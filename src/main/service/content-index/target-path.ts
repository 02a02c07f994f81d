/**
 * Link targets as Git Sync writes them are relative file paths (`../guide/README.md#install`,
 * `<.gitbook/assets/image (8).png>`). These helpers take such a target apart and resolve it against
 * the git path of the page that contains it.
 */
import { resolveRelativePath } from '../../content/gitsync/relative-path'

export interface SplitTarget {
  /** Path part, percent-decoded; '' for a bare `#anchor` or `?query`. */
  path: string
  /** Anchor without the `#`, percent-decoded; undefined when absent or empty. */
  anchor?: string
}

export function splitTarget(target: string): SplitTarget {
  const hash = target.indexOf('#')
  const beforeHash = hash === -1 ? target : target.slice(0, hash)
  const anchor = hash === -1 ? '' : decode(target.slice(hash + 1))
  const question = beforeHash.indexOf('?')
  const path = decode(question === -1 ? beforeHash : beforeHash.slice(0, question))
  return anchor === '' ? { path } : { path, anchor }
}

/** Percent-decoding that leaves malformed sequences as written (a writer's `100%.md` is a name, not an error). */
function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

/**
 * Repository path a link written in the file at `fromGitPath` points to (`''` = the root when the
 * link has no file of its own); a leading `/` starts from the root. Undefined when the link climbs
 * above the root. Folder links (`./guide/`, `..`) keep a trailing `/`.
 */
export function resolveTargetPath(fromGitPath: string, path: string): string | undefined {
  const resolved = resolveRelativePath(path.startsWith('/') ? '' : fromGitPath, path)
  if (resolved === undefined) return undefined
  const folder = resolved === '' || /(^|\/)\.{0,2}$/.test(path)
  return folder && resolved !== '' ? `${resolved}/` : resolved
}

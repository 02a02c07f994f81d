/**
 * Link targets as Git Sync writes them are relative file paths (`../guide/README.md#install`,
 * `<.gitbook/assets/image (8).png>`). These helpers take such a target apart and resolve it against
 * the git path of the page that contains it.
 */

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

/** The folder of a git path: `guide/install.md` -> `guide/`, `README.md` -> ``. */
export function folderOf(gitPath: string): string {
  const slash = gitPath.lastIndexOf('/')
  return slash === -1 ? '' : gitPath.slice(0, slash + 1)
}

/**
 * Resolves `path` (relative, or absolute from the repository root when it starts with `/`) against
 * `folder`, normalising `.` and `..`. Undefined when it climbs above the root: such a link can point
 * at nothing in the space. A trailing `/` is kept so folder links can be told from file links.
 */
export function resolvePath(folder: string, path: string): string | undefined {
  const joined = path.startsWith('/') ? path.slice(1) : folder + path
  const out: string[] = []
  const segments = joined.split('/')
  for (const [index, segment] of segments.entries()) {
    const last = index === segments.length - 1
    if (segment === '..') {
      if (out.length === 0) return undefined
      out.pop()
      if (last) out.push('')
    } else if (segment === '.' || (segment === '' && !last)) {
      if (last) out.push('')
    } else {
      out.push(segment)
    }
  }
  return out.join('/')
}

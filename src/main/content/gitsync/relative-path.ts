/**
 * Relative links between files of the Git Sync layout, as Git Sync writes them
 * (`../.gitbook/assets/x.png`, `child.md`, `../README.md`).
 */

/** Path of `to` relative to the folder holding `from` (both repository-relative, `/`-separated). */
export function relativePath(from: string, to: string): string {
  const fromFolder = from.split('/').slice(0, -1)
  const target = to.split('/')
  let common = 0
  while (common < fromFolder.length && common < target.length - 1 && fromFolder[common] === target[common]) common++
  const up = fromFolder.slice(common).map(() => '..')
  return [...up, ...target.slice(common)].join('/')
}

/** Repository-relative path that the relative link `target` in the file at `from` points to; undefined if it escapes the root. */
export function resolveRelativePath(from: string, target: string): string | undefined {
  const segments = from.split('/').slice(0, -1)
  for (const segment of target.split('/')) {
    if (segment === '' || segment === '.') continue
    if (segment === '..') {
      if (segments.length === 0) return undefined
      segments.pop()
    } else {
      segments.push(segment)
    }
  }
  return segments.join('/')
}

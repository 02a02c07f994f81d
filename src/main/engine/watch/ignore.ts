import { isIgnoredName } from '../workspace/content-names'

// The rule itself lives with the rest of what is workspace content (sync down and sync up share it).
export { isIgnoredName }

/** True when any segment of the `/`-separated relative path is ignored. */
export function isIgnoredPath(relative: string): boolean {
  return relative.split('/').some((segment) => segment !== '' && isIgnoredName(segment))
}

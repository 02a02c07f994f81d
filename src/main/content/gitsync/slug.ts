/**
 * Page slugs: the path segment of a page in its parent, and the base of its
 * Git Sync file name.
 */

/** The spec's `RevisionPageSlug` limit. */
export const MAX_SLUG_LENGTH = 100

const FALLBACK_SLUG = 'untitled'

/**
 * Lowercase, letters (any script, with their combining marks) and digits kept,
 * every other run of characters turned into one `-`, no leading or trailing
 * `-`, at most 100 characters, never empty.
 */
export function slugify(title: string): string {
  const slug = title
    .normalize('NFC')
    .toLowerCase()
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '')
  return truncate(slug, MAX_SLUG_LENGTH) || FALLBACK_SLUG
}

/**
 * `slug` itself when no sibling uses it, else `slug-2`, `slug-3`, ...
 * Compared case-insensitively: siblings become files in one folder, and macOS
 * and Windows folders do not tell `Guide.md` from `guide.md`.
 */
export function uniqueSlug(slug: string, siblings: Iterable<string>): string {
  const taken = new Set(Array.from(siblings, (s) => s.toLowerCase()))
  if (!taken.has(slug.toLowerCase())) return slug
  for (let n = 2; ; n++) {
    const suffix = `-${n}`
    const candidate = truncate(slug, MAX_SLUG_LENGTH - suffix.length) + suffix
    if (!taken.has(candidate.toLowerCase())) return candidate
  }
}

/** First `length` code points, without a dangling `-`. */
function truncate(slug: string, length: number): string {
  const points = Array.from(slug)
  return points.length <= length ? slug : points.slice(0, length).join('').replace(/-+$/, '')
}

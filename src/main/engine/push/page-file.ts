import { createHash } from 'node:crypto'
import { gitBlobOid, parsePageMarkdown, SUMMARY_FILE } from '../../content'
import { findMarkers, stripMarkers } from '../comments/markers'
import { CONFLICT_COPY, type LocalFile } from './push-types'

/**
 * What the push planner reads off a page file's path and text: the folder it is placed in, the slug
 * it asks for, its title, its content without comment markers. Pure.
 */

export const ASSETS_PREFIX = '.gitbook/assets/'
export const README = 'README.md'

export function isPageFile(path: string): boolean {
  const name = baseName(path)
  return /\.md$/i.test(path) && path !== SUMMARY_FILE && !path.startsWith('.gitbook/') && !name.startsWith('.') && !CONFLICT_COPY.test(path)
}

export const baseName = (path: string) => path.slice(path.lastIndexOf('/') + 1)
export const dirName = (path: string) => (path.includes('/') ? path.slice(0, path.lastIndexOf('/')) : '')
export const stemOf = (path: string) => baseName(path).replace(/\.md$/i, '')
export const shortHash = (text: string) => createHash('sha256').update(text).digest('hex').slice(0, 12)
/** Folder whose page this file is placed in: `a/b.md` -> `a`, `a/b/README.md` -> `a`. */
export const placeFolder = (path: string) => (baseName(path) === README ? dirName(dirName(path)) : dirName(path))
/** Slug this file asks for: `a/b.md` -> `b`, `a/b/README.md` -> `b`. */
export const slugOfPath = (path: string) => (baseName(path) === README ? baseName(dirName(path)) : stemOf(path))
/** Whether a page's file went to another folder (so it leaves its place among its old siblings). */
export const movesAway = (k: { path: string; now?: string }) => k.now !== undefined && k.now !== k.path && placeFolder(k.now) !== placeFolder(k.path)
/** Valid as an explicit slug as the service checks it (one segment, no spaces, no `?#`). */
export const isValidSlug = (slug: string) => slug !== '' && slug !== '.' && slug !== '..' && Array.from(slug).length <= 100 && !/[\s/\\?#]/.test(slug)

/** Content of a file with its markers cut out, and that content's hash. */
export function strippedContent(file: LocalFile): { text?: string; hash: string } {
  if (file.text === undefined) return { hash: file.hash }
  const markers = findMarkers(file.text)
  if (markers.length === 0) return { text: file.text, hash: file.hash }
  const text = stripMarkers(file.text, markers)
  return { text, hash: gitBlobOid(text) }
}

/** The title a page's text gives it (for the change request's subject), else `fallback`. */
export function titleOf(text: string | undefined, fallback: string): string {
  // Most pages open with a plain `# Title` line: no need to parse them to name them in a subject.
  const plain = text === undefined ? undefined : /^# ([^\n\\*_`[\]<&#]+?)[ \t]*(?:\n|$)/.exec(text)?.[1]
  if (plain) return plain.trim()
  if (text !== undefined) {
    try {
      const title = parsePageMarkdown(text).title
      if (title) return title
    } catch {
      // an unreadable front matter still gets a subject
    }
  }
  return fallback
}

import { TEMP_MARK } from './temp-names'
import { FolderNameRegistry, safeSegment } from './safe-names'

/**
 * The one rule for which paths of a space folder are workspace content, shared by sync down (which
 * places server paths with it, so it never creates a name sync up would not read) and sync up (which
 * reads exactly these paths). A path that is not content is never written by a pass and never taken
 * for a writer's deletion either: it is simply not Quire's.
 *
 * Content, relative to the space folder, `/`-separated:
 *   - page files: `*.md` outside `.gitbook/` (SUMMARY.md and README.md included),
 *   - `.gitbook/assets/**` and `.gitbook/includes/**`,
 * where no segment is hidden (starts with `.`, `.gitbook` at the top excepted) or an editor's or a
 * tool's own file (swap, backup, lock, probe, version control, Quire's temporary files).
 */

export const ASSETS_PREFIX = '.gitbook/assets/'
export const INCLUDES_PREFIX = '.gitbook/includes/'

/** Why a name is not content: editors' and tools' files, or hidden names. */
export type NotContentReason = 'ignored' | 'hidden'

/**
 * Files that are never a writer's content: version control, editors' swap, backup and lock files, the
 * probe file vim writes to test a folder (`4913`), and Quire's own temporary files.
 */
export function isIgnoredName(name: string): boolean {
  return (
    name === '.git' ||
    name === '4913' ||
    name === '.DS_Store' ||
    name === 'Thumbs.db' ||
    name.startsWith(TEMP_MARK) ||
    name.startsWith('.quire-') ||
    name.startsWith('.#') || // emacs lock
    (name.startsWith('#') && name.endsWith('#')) || // emacs auto-save
    name.endsWith('~') || // emacs, vim, gedit backups
    /\.sw[a-p]$/i.test(name) || // vim swap
    /\.(tmp|temp|bak|orig|crswap)$/i.test(name) ||
    /^\.~lock\..*#$/.test(name) || // LibreOffice
    /\.sb-[A-Za-z0-9]+-[A-Za-z0-9]+$/.test(name) // Sublime's atomic save
  )
}

/** Why one name (of a file or folder) is not content wherever it stands, or undefined when it may be. */
export function nameReason(name: string): NotContentReason | undefined {
  if (isIgnoredName(name)) return 'ignored'
  if (name.startsWith('.')) return 'hidden'
  return undefined
}

export type ContentKind = 'page' | 'asset' | 'include'

/** What a file at `relative` is as content, or undefined when it is not content. */
export function contentKind(relative: string): ContentKind | undefined {
  const segments = relative.split('/')
  if (segments.some((s) => s === '')) return undefined
  if (segments[0] === '.gitbook') {
    if (segments.length < 3 || segments.slice(2).some((s) => nameReason(s) !== undefined)) return undefined
    return segments[1] === 'assets' ? 'asset' : segments[1] === 'includes' ? 'include' : undefined
  }
  if (segments.some((s) => nameReason(s) !== undefined)) return undefined
  return /\.md$/i.test(relative) ? 'page' : undefined
}

/**
 * Whether a folder at `relative` can hold content, and if not why: sync up does not look inside the
 * others, so a page there is not the writer's to have removed.
 */
export function folderReason(relative: string): NotContentReason | 'outside' | undefined {
  const segments = relative.split('/')
  if (segments[0] === '.gitbook') {
    if (segments.length === 1) return undefined
    if (segments[1] !== 'assets' && segments[1] !== 'includes') return 'outside'
    for (const s of segments.slice(2)) {
      const reason = nameReason(s)
      if (reason) return reason
    }
    return undefined
  }
  for (const s of segments) {
    const reason = nameReason(s)
    if (reason) return reason
  }
  return undefined
}

/**
 * A server-given name made into a content name: safe on every OS (`safeSegment`), and visible and no
 * editor's file, so sync up reads what sync down writes. Deterministic: `.notes` -> `_.notes`,
 * `4913` -> `_4913`, `drafts~` -> `drafts~_`, `x.swp` -> `x.swp_`, `work.tmp` -> `work.tmp_`.
 */
export function contentSegment(raw: string): string {
  const name = safeSegment(raw)
  if (nameReason(name) === undefined) return name
  // Names ignored for how they begin (hidden, `4913`, `#x#`) take a leading `_`, those ignored for how
  // they end (`~`, `.swp`, `.tmp`...) a trailing one, a few both.
  for (const candidate of [`_${name}`, `${name}_`, `_${name}_`]) {
    const safe = safeSegment(candidate)
    if (nameReason(safe) === undefined) return safe
  }
  return '_'
}

/**
 * Hands out content names within one folder: `contentSegment` of what the server asked for, unique
 * in the folder by `FolderNameRegistry`'s rule (Unicode folding, and case where the disk folds it), never a name that is not
 * content (a ` (2)` suffix is checked too).
 */
export class ContentNameRegistry {
  private readonly names: FolderNameRegistry

  /** `foldCase`: names differing only by case are one file on this disk (see `foldsCase`). */
  constructor(foldCase = true) {
    this.names = new FolderNameRegistry(foldCase)
  }

  claim(wanted: string, owner: string): string {
    return this.names.claim(contentSegment(wanted), owner, (candidate) => nameReason(candidate) === undefined)
  }

  /** Takes a name as it is (SUMMARY.md, a reserved name), so no server path is given it. */
  reserve(name: string, owner: string): void {
    this.names.claim(name, owner)
  }
}

/** The key of `map` that `relative` is or is under (`.` stands for the whole folder), if any. */
export function enclosingIn(map: ReadonlyMap<string, unknown>, relative: string): string | undefined {
  if (map.size === 0) return undefined
  if (map.has('.')) return '.'
  for (let at = relative; ; at = at.slice(0, at.lastIndexOf('/'))) {
    if (map.has(at)) return at
    if (!at.includes('/')) return undefined
  }
}

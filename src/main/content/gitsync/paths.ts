/**
 * Where Git Sync puts each page and file of a revision.
 *
 *   README.md                     the space's first page
 *   guide/README.md               a page with subpages...
 *   guide/install.md              ...and its subpages
 *   faq.md                        a leaf page
 *   group-slug/page.md            pages of a group (the group itself has no file)
 *   .gitbook/assets/image (1).png files, clashes suffixed before the extension
 *
 * Page names are claimed per folder, case-insensitively, so two pages can never be
 * given the same file even on macOS/Windows and even when slugs collide
 * (`-2`, `-3` suffixes, like `uniqueSlug`).
 */
import type { RevisionTree, TreeFile, TreePage } from '../types'

export const ASSETS_FOLDER = '.gitbook/assets'
export const SUMMARY_FILE = 'SUMMARY.md'
export const README_FILE = 'README.md'

/** Page id -> page file path (documents only) and file id -> asset path. */
export function computeGitPaths(tree: RevisionTree): Map<string, string> {
  const paths = new Map<string, string>()
  const home = findHomePage(tree.pages)
  const root = new FolderNames(true)
  root.claimFile(SUMMARY_FILE)
  root.claimFolder('.gitbook')

  const place = (pages: TreePage[], folder: string, names: FolderNames): void => {
    for (const page of pages) {
      const segment = pathSegment(page.slug)
      if (page === home) {
        paths.set(page.id, README_FILE)
        if (page.pages.length > 0) placeInFolder(page.pages, segment, folder, names)
      } else if (page.type === 'document' && page.pages.length === 0) {
        paths.set(page.id, folder + names.claimFile(`${segment}.md`))
      } else if (page.type === 'document') {
        const own = placeInFolder(page.pages, segment, folder, names, true)
        paths.set(page.id, `${own}${README_FILE}`)
      } else {
        // Groups (and link pages, which should have no subpages) have no file of their own.
        placeInFolder(page.pages, segment, folder, names)
      }
    }
  }

  /** Claims a subfolder for `pages` and places them in it; returns the folder path. */
  const placeInFolder = (pages: TreePage[], segment: string, folder: string, names: FolderNames, hasReadme = false): string => {
    const own = `${folder}${names.claimFolder(segment)}/`
    place(pages, own, new FolderNames(hasReadme))
    return own
  }

  place(tree.pages, '', root)
  for (const [id, path] of assetPaths(tree.files)) paths.set(id, path)
  return paths
}

/**
 * The space's first page, written as the root README.md: the first document at
 * the root, looking inside a leading group (spaces whose content starts with a
 * group still have a home page).
 */
export function findHomePage(pages: TreePage[]): TreePage | undefined {
  for (const page of pages) {
    if (page.type === 'document') return page
    if (page.type === 'group') {
      const first = page.pages.find((child) => child.type === 'document')
      if (first) return first
    }
  }
  return undefined
}

/**
 * File id -> `.gitbook/assets/<name>`, a later file with a taken name getting ` (1)`, ` (2)`... Names are
 * compared as they are, case included, as Git Sync does (a git tree holds `Image.png` beside
 * `image.png`): a page's link names its file exactly. A client on a disk that folds case gives one of
 * them another local name (engine/sync/remote-snapshot.ts).
 */
export function assetPaths(files: TreeFile[]): Map<string, string> {
  const taken = new Set<string>()
  const paths = new Map<string, string>()
  for (const file of files) {
    const path = assetPath(file.name, (candidate) => taken.has(candidate))
    taken.add(path)
    paths.set(file.id, path)
  }
  return paths
}

/** The asset path of a file named `name` placed after files whose paths `taken` tells (see `assetPaths`). */
export function assetPath(name: string, taken: (path: string) => boolean): string {
  const safe = assetFileName(name)
  const dot = safe.lastIndexOf('.')
  const [stem, extension] = dot > 0 ? [safe.slice(0, dot), safe.slice(dot)] : [safe, '']
  let candidate = `${ASSETS_FOLDER}/${safe}`
  for (let n = 1; taken(candidate); n++) candidate = `${ASSETS_FOLDER}/${stem} (${n})${extension}`
  return candidate
}

/** A file name safe as one path segment. */
function assetFileName(name: string): string {
  return safeSegment(name.trim(), 'file')
}

/** A slug safe as one path segment (explicit slugs are not guaranteed to be). */
export function pathSegment(slug: string): string {
  return safeSegment(slug, 'untitled')
}

/** Path separators and control characters (below U+0020). */
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const UNSAFE_IN_SEGMENT = /[/\\\u0000-\u001f]/g

/** Separators and control characters become `-`; empty, `.` and `..` become `fallback`. */
function safeSegment(name: string, fallback: string): string {
  // No surrogate is below 32, so code units replace as code points would; a regular expression, as this
  // runs for every page and file whenever a revision's paths are worked out.
  const safe = name.replace(UNSAFE_IN_SEGMENT, '-')
  return safe === '' || safe === '.' || safe === '..' ? fallback : safe
}

/** Names used in one folder, compared case-insensitively. */
export class FolderNames {
  private readonly files = new Set<string>()
  private readonly folders = new Set<string>()

  /** `hasReadme`: the folder's README.md belongs to its page, no subpage may take it. */
  constructor(hasReadme: boolean) {
    if (hasReadme) this.files.add(README_FILE.toLowerCase())
  }

  claimFile(name: string): string {
    return this.claim(this.files, name, '.md')
  }

  claimFolder(name: string): string {
    return this.claim(this.folders, name, '')
  }

  private claim(names: Set<string>, name: string, extension: string): string {
    const stem = extension !== '' && name.endsWith(extension) ? name.slice(0, -extension.length) : name
    let candidate = name
    for (let n = 2; names.has(candidate.toLowerCase()); n++) candidate = `${stem}-${n}${extension}`
    names.add(candidate.toLowerCase())
    return candidate
  }
}

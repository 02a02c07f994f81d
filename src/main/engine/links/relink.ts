/**
 * Links of a page whose pages were placed elsewhere than the tree they were written in had them: an
 * import through the content API cannot create a tree's `## Group`s, so the service places their pages
 * at the top level (and a clash of names gives one a `-2`), and every relative link to or from such a
 * page points at a file that is not there. Pure: the caller says where each page of the tree went.
 *
 * Links are matched one by one between the text written in the tree (`source`, whose links resolve
 * from the page's place in the tree) and the text to fix (`text`, the page as the service holds it:
 * the same links, some of them already re-pointed by the service, as links to uploaded files are).
 * Working from the source makes a second run give the same text: a link already re-pointed is not
 * re-pointed again from a place it no longer resolves from.
 */
import { extractLinks, relativePath, resolveRelativePath, rewriteLinks, type MarkdownLink } from '../../content'

export interface Placements {
  /** Tree path of each page -> the path the page came back at. */
  pages: ReadonlyMap<string, string>
  /**
   * Tree path of each uploaded file -> the path it came back at. The service writes every link to an
   * uploaded file as the relative path from the page's place (its `./<ref>` link resolved), so such a
   * link is predicted that way; the import never rewrites these itself.
   */
  files?: ReadonlyMap<string, string>
}

/**
 * `text` with each link whose source counterpart points (from `from`, the page's tree path) at a page
 * or file that came back elsewhere pointing at it from `to` (where the page came back); a page link
 * still right from `to` as written is kept as written, its anchor always. Undefined when the links of
 * `text` and `source` do not line up (the service changed more than links): nothing is guessed then.
 */
export function relinkedText(text: string, source: string, from: string, to: string, placements: Placements): string | undefined {
  const written = safeLinks(source)
  const found = text === source ? written : safeLinks(text)
  if (written === undefined || found === undefined || written.length !== found.length) return undefined
  const wanted = new Map<number, string>()
  for (const [i, link] of written.entries()) {
    if (found[i].kind !== link.kind) return undefined
    const target = placedTarget(link, from, to, placements)
    if (target !== undefined && target !== found[i].target) wanted.set(found[i].start, target)
  }
  if (wanted.size === 0) return text
  return rewriteLinks(text, (link) => wanted.get(link.start))
}

/** The target `link` (written in the page at `from`) should have in the page at `to`; undefined: as it is. */
function placedTarget(link: MarkdownLink, from: string, to: string, placements: Placements): string | undefined {
  if (link.kind !== 'page' && link.kind !== 'file') return undefined
  const hash = link.target.indexOf('#')
  const written = hash === -1 ? link.target : link.target.slice(0, hash)
  const anchor = hash === -1 ? '' : link.target.slice(hash)
  const path = decoded(written.replace(/\?.*$/, ''))
  if (path === '' || path.startsWith('/')) return undefined
  if (link.kind === 'file') {
    const resolved = resolveRelativePath(from, path)
    const placed = resolved === undefined ? undefined : placements.files?.get(resolved)
    return placed === undefined ? undefined : relativePath(to, placed) + anchor
  }
  const target = pageAt(resolveRelativePath(from, path), path, placements.pages)
  if (target === undefined) return undefined
  const placed = placements.pages.get(target)!
  // Right from the new place as written (the page and its target moved together): kept as written.
  const fromHere = pageAt(resolveRelativePath(to, path), path, placedPaths(placements.pages))
  if (fromHere === placed) return undefined
  const folderStyle = !/\.md$/i.test(path) && /(^|\/)README\.md$/.test(placed)
  if (!folderStyle) return relativePath(to, placed) + anchor
  const folder = relativePath(to, placed).slice(0, -'README.md'.length)
  return (folder === '' ? './' : folder) + anchor
}

/**
 * The page a link's resolved path names among `pages`: `x.md` itself, a folder (`x/`, `x`) its
 * README.md, an extension-less `x` the page `x.md` (as the service's link report reads them).
 */
function pageAt(resolved: string | undefined, written: string, pages: ReadonlyMap<string, unknown> | ReadonlySet<string>): string | undefined {
  if (resolved === undefined) return undefined
  const folder = resolved === '' || /(^|\/)\.{0,2}$/.test(written) || written.endsWith('/')
  const base = resolved === '' ? '' : `${resolved}/`
  const candidates = folder ? [`${base}README.md`] : /\.md$/i.test(resolved) ? [resolved] : [`${resolved}.md`, `${base}README.md`]
  return candidates.find((candidate) => pages.has(candidate))
}

const placedSets = new WeakMap<ReadonlyMap<string, string>, Set<string>>()

/** The paths pages came back at, as a set (made once per map). */
function placedPaths(pages: ReadonlyMap<string, string>): Set<string> {
  let set = placedSets.get(pages)
  if (!set) placedSets.set(pages, (set = new Set(pages.values())))
  return set
}

function safeLinks(text: string): MarkdownLink[] | undefined {
  try {
    return extractLinks(text)
  } catch {
    return undefined
  }
}

function decoded(target: string): string {
  try {
    return decodeURIComponent(target)
  } catch {
    return target
  }
}

/**
 * Decides what a link written in a page points at, within one revision, and whether it is broken.
 *
 * - Page links (`other.md`, `../guide/README.md#x`, folder-style `./guide`) resolve against the git
 *   path of the page holding them, `/pages/<id | slug path | git path>` against the whole space;
 *   `ok` when a page of the revision is there. Anchors are kept in the target but not checked
 *   against the target's headings: an anchor link to an existing page is `ok`.
 * - File links (`../.gitbook/assets/x.png`, `/files/<id>`, other relative paths with an extension)
 *   resolve by git path first, then, for `.gitbook/assets/<name>`, by asset name alone: a wrong
 *   number of `../` is a common slip, and the asset it means is unambiguous.
 * - Absolute URLs under the service's own app (`<origin>/app/...`) are `in-app`; every other URL is
 *   `ok` because nothing here goes on the network to check it.
 *
 * A space's pages repeat the same few targets (navigation, shared images, the same sibling pages), and
 * resolving one (classifying, splitting, decoding, resolving `..`, three or four map lookups) was about a
 * third of a link report's CPU; so a resolver keeps its answers, keyed by what an answer depends on.
 */
import { classifyTarget, type LinkKind } from '../../content/markdown/links'
import type { RevisionMap } from './revision-map'
import { resolveTargetPath, splitTarget } from './target-path'

export type LinkStatus = 'ok' | 'broken' | 'in-app'

/**
 * What a link points at. A broken page or file link has no id to name, so `page` / `file` then
 * carry the path the link resolves to (or the id a `/pages/<id>` link names), which is what the
 * writer has to fix.
 */
export type LinkTarget =
  | { kind: 'page'; page: string }
  | { kind: 'anchor'; page: string; anchor: string }
  | { kind: 'file'; file: string }
  | { kind: 'url'; url: string }

export interface ResolvedLink {
  status: LinkStatus
  target: LinkTarget
}

const ASSETS_MARKER = '.gitbook/assets/'

/**
 * Answers kept per resolver before the memo starts afresh: a bound on its memory (a few hundred bytes
 * an answer, for the one report a resolver serves) well above the distinct targets of a large space
 * written from a few folders each (7,700 answers for 34,000 links over 1,050 pages in 50 folders).
 */
export const MEMO_ANSWERS = 50_000

/**
 * What a target's answer depends on besides the revision: nothing (URLs, `/pages/...`, `/files/...`,
 * root-absolute paths), the page it is written in (`#anchor`), or the folder of that page's file
 * (relative paths).
 */
type Context = 'none' | 'page' | 'folder'

interface TargetMemo {
  kind: LinkKind
  context: Context
  /** Answers by context key: '' when none, else the page id or the folder. */
  answers: Map<string, ResolvedLink>
}

/** The folder part of a git path (`a/b/` of `a/b/c.md`, `''` at the root): all relative resolving reads of it. */
const folderOf = (gitPath: string) => gitPath.slice(0, gitPath.lastIndexOf('/') + 1)

function contextOf(target: string, kind: LinkKind): Context {
  if (kind === 'url') return 'none'
  if (kind === 'anchor') return 'page'
  // Resolved from the root whatever the page, as resolvePage / resolveFile read the decoded path.
  return splitTarget(target).path.startsWith('/') ? 'none' : 'folder'
}

/** Answers are shared by every link written alike, so none of them may be changed by a caller. */
function frozen(link: ResolvedLink): ResolvedLink {
  Object.freeze(link.target)
  return Object.freeze(link)
}

export class LinkResolver {
  private readonly appPrefix: string
  private readonly memo = new Map<string, TargetMemo>()
  private answers = 0

  /** `origin`: the service's origin (`http://127.0.0.1:PORT`); its `/app/` URLs are in-app. `memoAnswers`: the memo's bound. */
  constructor(
    private readonly map: RevisionMap,
    origin: string,
    private readonly memoAnswers = MEMO_ANSWERS,
  ) {
    this.appPrefix = `${origin.replace(/\/+$/, '')}/app/`.toLowerCase()
  }

  /**
   * `fromGitPath`: git path of the file holding the link, relative links resolve against its folder;
   * undefined for links with no file of their own (link pages), which resolve from the root. The answer
   * is frozen: the same object answers every link to the same target from the same context.
   */
  resolve(target: string, fromPageId: string, fromGitPath: string | undefined): ResolvedLink {
    let memo = this.memo.get(target)
    if (!memo) {
      const kind = classifyTarget(target)
      memo = { kind, context: contextOf(target, kind), answers: new Map() }
      this.memo.set(target, memo)
    }
    const key = memo.context === 'none' ? '' : memo.context === 'page' ? fromPageId : folderOf(fromGitPath ?? '')
    const known = memo.answers.get(key)
    if (known) return known
    const answer = frozen(this.resolveAs(memo.kind, target, fromPageId, fromGitPath))
    if (this.answers >= this.memoAnswers) {
      // Starting afresh costs a few misses; keeping the most used would cost every hit a reordering.
      this.memo.clear()
      memo.answers.clear()
      this.memo.set(target, memo)
      this.answers = 0
    }
    memo.answers.set(key, answer)
    this.answers++
    return answer
  }

  /** `resolve` without the memo: what the memo must answer for every target and context. */
  resolveAfresh(target: string, fromPageId: string, fromGitPath: string | undefined): ResolvedLink {
    return this.resolveAs(classifyTarget(target), target, fromPageId, fromGitPath)
  }

  private resolveAs(kind: LinkKind, target: string, fromPageId: string, fromGitPath: string | undefined): ResolvedLink {
    switch (kind) {
      case 'url':
        return this.resolveUrl(target)
      case 'anchor': {
        const { anchor } = splitTarget(target)
        return { status: 'ok', target: { kind: 'anchor', page: fromPageId, anchor: anchor ?? '' } }
      }
      case 'page':
        return this.resolvePage(target, fromGitPath ?? '')
      case 'file':
        return this.resolveFile(target, fromGitPath ?? '')
    }
  }

  private resolveUrl(url: string): ResolvedLink {
    const inApp = url.toLowerCase().startsWith(this.appPrefix)
    return { status: inApp ? 'in-app' : 'ok', target: { kind: 'url', url } }
  }

  private resolvePage(target: string, fromGitPath: string): ResolvedLink {
    const { path, anchor } = splitTarget(target)
    const named = /^\/pages\/(.+?)\/?$/.exec(path)?.[1]
    let pageId: string | undefined
    let shownPath: string
    if (named !== undefined) {
      // The API's absolute form names a page by id, slug path or git path.
      shownPath = named
      pageId = (this.map.page(named) ?? this.map.pageByPath(named) ?? this.map.pageAt(named))?.page.id
    } else {
      const resolved = resolveTargetPath(fromGitPath, path)
      shownPath = resolved ?? path
      if (resolved !== undefined) pageId = this.pageIdAt(resolved)
    }
    const page = pageId ?? shownPath
    const pageTarget: LinkTarget = anchor === undefined ? { kind: 'page', page } : { kind: 'anchor', page, anchor }
    return { status: pageId === undefined ? 'broken' : 'ok', target: pageTarget }
  }

  /** `x.md` is a file; `x/` and extension-less `x` are folder-style links to `x/README.md` (or `x.md`). */
  private pageIdAt(path: string): string | undefined {
    const candidates = path === '' || path.endsWith('/') ? [`${path}README.md`] : /\.md$/i.test(path) ? [path] : [`${path}.md`, `${path}/README.md`]
    for (const candidate of candidates) {
      const entry = this.map.pageAt(candidate)
      if (entry) return entry.page.id
    }
    return undefined
  }

  private resolveFile(target: string, fromGitPath: string): ResolvedLink {
    const { path } = splitTarget(target)
    const byId = /^\/files\/([^/]+)\/?$/.exec(path)
    if (byId) {
      const file = this.map.file(byId[1])
      return { status: file ? 'ok' : 'broken', target: { kind: 'file', file: file?.id ?? byId[1] } }
    }
    const resolved = resolveTargetPath(fromGitPath, path)
    const atPath = resolved === undefined ? undefined : this.map.fileAt(resolved)
    const marker = path.lastIndexOf(ASSETS_MARKER)
    const assetName = marker === -1 ? undefined : path.slice(marker + ASSETS_MARKER.length)
    const file = atPath ?? (assetName === undefined ? undefined : (this.map.fileAt(ASSETS_MARKER + assetName) ?? this.map.fileNamed(assetName)))
    return { status: file ? 'ok' : 'broken', target: { kind: 'file', file: file?.id ?? resolved ?? path } }
  }
}

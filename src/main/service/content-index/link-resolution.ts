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

export class LinkResolver {
  private readonly appPrefix: string

  /** `origin`: the service's origin (`http://127.0.0.1:PORT`); its `/app/` URLs are in-app. */
  constructor(
    private readonly map: RevisionMap,
    origin: string,
  ) {
    this.appPrefix = `${origin.replace(/\/+$/, '')}/app/`.toLowerCase()
  }

  /**
   * `fromGitPath`: git path of the file holding the link, relative links resolve against its folder;
   * undefined for links with no file of their own (link pages), which resolve from the root.
   */
  resolve(target: string, fromPageId: string, fromGitPath: string | undefined): ResolvedLink {
    const kind: LinkKind = classifyTarget(target)
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

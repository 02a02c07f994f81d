/**
 * Link pre-flight: the writer's files checked the way the service's link report checks a revision
 * (service/content-index/link-resolution.ts), before they are sent, with no network. Pure: the caller
 * reads the space folder.
 *
 * Checked: relative page links (`other.md`, folder-style `./guide`, `../README.md`), their anchors
 * against the target's headings (GitBook's heading slugs and `<a id>` anchors, `bodyOutline`), bare
 * `#anchor`s against the page's own, file links by path and, as the service does, by asset name alone
 * under `.gitbook/assets/`, `{% content-ref url %}` (a link like the others), `{% include "..." %}`
 * targets, and links into pages the same push renames or deletes. Not checked: URLs (nothing is
 * fetched) and `/pages/<id>` / `/files/<id>` links (ids only the service knows).
 */
import { bodyOutline, classifyTarget, extractLinks, resolveRelativePath, splitPageMarkdown, type BodyOutline } from '../../content'

export interface PreflightInput {
  /** Markdown files of the space folder (`/`-separated path -> text): its pages, includes and the like. */
  markdown: ReadonlyMap<string, string>
  /** Every other file's path (assets above all). */
  files: Iterable<string>
  /** What the push about to be sent does to pages, when the check is for a push. */
  push?: { renamed?: ReadonlyMap<string, string>; deleted?: ReadonlySet<string> }
  /** The pages whose links are checked (all of them unless given); the others are read only when linked to. */
  only?: ReadonlySet<string>
}

export type PreflightKind = 'page' | 'anchor' | 'file' | 'include'

export interface PreflightFinding {
  /** The page file holding the link, and where its target is written (1-based). */
  file: string
  line: number
  column: number
  kind: PreflightKind
  /** The target as written. */
  target: string
  /** Why it is broken, in words (`no page at guide/setup.md`). */
  reason: string
  /** Set when the link points into a page the push renames or deletes: that page's path. */
  moved?: string
  /**
   * For page and file links, the path the link resolves to, as the service's report names a broken
   * target (`guide/setup.md`, `missing/`): the same broken link in both reports has the same one.
   */
  resolved?: string
}

interface Problem {
  kind: PreflightKind
  reason: { text: string; moved?: string }
  resolved?: string
}

const ASSETS_MARKER = '.gitbook/assets/'
const INCLUDE_TAG = /\{%\s*include\s+(["'])(.*?)\1\s*%\}/g

/** Page files: markdown outside `.gitbook/` (includes, assets), SUMMARY.md aside. */
export function isPageFile(path: string): boolean {
  return /\.md$/i.test(path) && !path.startsWith('.gitbook/') && !/^summary\.md$/i.test(path)
}

/** Broken links of the page files in `input`, in file order then source order. */
export function preflightLinks(input: PreflightInput): PreflightFinding[] {
  const all = new Set<string>([...input.markdown.keys(), ...input.files])
  const assetNames = new Set([...all].filter((p) => p.startsWith(ASSETS_MARKER)).map((p) => p.slice(ASSETS_MARKER.length)))
  const bodies = new Map<string, { body: string; outline?: BodyOutline }>()
  const bodyOf = (path: string) => {
    let entry = bodies.get(path)
    if (!entry) bodies.set(path, (entry = { body: blankedHead(input.markdown.get(path) ?? '') }))
    return entry
  }
  const outlineOf = (path: string) => {
    const entry = bodyOf(path)
    return (entry.outline ??= bodyOutline(entry.body))
  }
  const gone = (path: string): Problem['reason'] | undefined => {
    const renamed = input.push?.renamed?.get(path)
    if (renamed !== undefined) return { text: `${path} is renamed to ${renamed} by this push`, moved: path }
    if (input.push?.deleted?.has(path)) return { text: `${path} is deleted by this push`, moved: path }
    return undefined
  }

  const findings: PreflightFinding[] = []
  const pages = [...(input.only ?? input.markdown.keys())].filter((p) => isPageFile(p) && input.markdown.has(p)).sort()
  for (const from of pages) {
    const { body } = bodyOf(from)
    const report = (at: { line: number; column: number }, kind: PreflightKind, target: string, reason: Problem['reason'], resolved?: string) =>
      findings.push({ file: from, line: at.line, column: at.column, kind, target, reason: reason.text, ...(reason.moved === undefined ? {} : { moved: reason.moved }), ...(resolved === undefined ? {} : { resolved }) })
    const found: Array<{ start: number; finding: () => void }> = []
    for (const link of extractLinks(body)) {
      const problem = checkLink(link.target, from)
      if (problem) found.push({ start: link.start, finding: () => report(link, problem.kind, link.target, problem.reason, problem.resolved) })
    }
    if (body.includes('{%')) {
      const code = outlineOf(from).code
      for (const match of body.matchAll(INCLUDE_TAG)) {
        const start = match.index + match[0].indexOf(match[1]) + 1
        if (code.some(([s, e]) => start >= s && start < e)) continue
        const path = decoded(match[2])
        const resolved = resolveRelativePath(path.startsWith('/') ? '' : from, path)
        if (resolved !== undefined && all.has(resolved)) continue
        const at = locate(body, start)
        found.push({ start, finding: () => report(at, 'include', match[2], resolved === undefined ? { text: `${path} climbs above the space folder` } : (gone(resolved) ?? { text: `no file at ${resolved}` })) })
      }
    }
    for (const f of found.sort((a, b) => a.start - b.start)) f.finding()
  }
  return findings

  function checkLink(target: string, from: string): Problem | undefined {
    const kind = classifyTarget(target)
    if (kind === 'url') return undefined
    const { path, anchor } = splitTarget(target)
    if (kind === 'anchor') {
      if (anchor === undefined || outlineOf(from).anchors.has(anchor)) return undefined
      return { kind: 'anchor', reason: { text: `no heading #${anchor} in this page` } }
    }
    if (/^\/(?:pages|files)\//.test(path)) return undefined
    const resolved = resolveRelativePath(path.startsWith('/') ? '' : from, path)
    if (kind === 'file') {
      if (resolved !== undefined && all.has(resolved)) return undefined
      // As the service reads it: a wrong number of `../` before an asset still names the asset.
      const marker = path.lastIndexOf(ASSETS_MARKER)
      if (marker !== -1 && assetNames.has(path.slice(marker + ASSETS_MARKER.length))) return undefined
    }
    if (resolved === undefined) return { kind, reason: { text: `${path} climbs above the space folder` } }
    if (kind === 'file') return { kind: 'file', reason: gone(resolved) ?? { text: `no file at ${resolved}` }, resolved }
    const folder = resolved === '' || path.endsWith('/') || /(^|\/)\.{0,2}$/.test(path)
    const base = resolved === '' ? '' : `${resolved}/`
    const candidates = folder ? [`${base}README.md`] : /\.md$/i.test(resolved) ? [resolved] : [`${resolved}.md`, `${base}README.md`]
    const page = candidates.find((c) => input.markdown.has(c) && isPageFile(c))
    if (page === undefined) {
      const reason = candidates.map(gone).find((r) => r !== undefined) ?? { text: `no page at ${candidates[0]}` }
      return { kind: 'page', reason, resolved: folder && resolved !== '' ? `${resolved}/` : resolved }
    }
    if (anchor === undefined || outlineOf(page).anchors.has(anchor)) return undefined
    return { kind: 'anchor', reason: { text: `no heading #${anchor} in ${page}` } }
  }
}

/** The file with its front matter and H1 (the title, not a heading of the body) blanked, lines and offsets kept. */
function blankedHead(text: string): string {
  const head = splitPageMarkdown(text).shape?.head ?? ''
  return head.replace(/[^\r\n]/g, ' ') + text.slice(head.length)
}

function splitTarget(target: string): { path: string; anchor?: string } {
  const hash = target.indexOf('#')
  const before = hash === -1 ? target : target.slice(0, hash)
  const anchor = hash === -1 ? '' : decoded(target.slice(hash + 1))
  const path = decoded(before.replace(/\?.*$/, ''))
  return anchor === '' ? { path } : { path, anchor }
}

function locate(text: string, offset: number): { line: number; column: number } {
  let line = 1
  let lineStart = 0
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++
    lineStart = i + 1
  }
  return { line, column: offset - lineStart + 1 }
}

/** Percent-decoding that leaves malformed sequences as written. */
function decoded(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

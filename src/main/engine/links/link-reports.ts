import fs from 'node:fs/promises'
import { extractLinks, resolveRelativePath } from '../../content'
import type { CacheRepository } from '../cache/cache-repository'
import { paginate, type ApiGateway } from '../gateway/api-gateway'
import { SpaceFolder } from '../workspace/space-folder'

/**
 * A row of the service's link report (`GET /spaces/{spaceId}/links`). The published spec has no such
 * operation (the interface document does), so its shape is written here, as the document gives it.
 */
export interface LinkReportItem {
  status: 'ok' | 'broken' | 'in-app'
  relation?: string
  targetReference: { kind: string; page?: string; file?: string; url?: string; anchor?: string }
  locationReferences: Array<{ kind: string; page?: string }>
}

interface LinkReportPage {
  items: LinkReportItem[]
  next?: { page: string }
}

/** Fetches the whole report (every page of it) and keeps it with the revision it describes. */
export async function refreshLinkReport(cache: CacheRepository, gateway: ApiGateway, spaceId: string, revisionId: string): Promise<void> {
  const items: LinkReportItem[] = []
  const pages = paginate((page) =>
    gateway.client
      .request<LinkReportPage>({ method: 'GET', path: `/spaces/${encodeURIComponent(spaceId)}/links`, query: { limit: 1000, ...(page ? { page } : {}) }, secure: true, format: 'json' })
      .then((r) => r.data),
  )
  for await (const item of pages) items.push(item)
  cache.saveLinkReport(spaceId, revisionId, items)
}

/**
 * Issue 29: a pass no longer reads the link report (megabytes, in several requests, for a one-page
 * change); whoever shows it reads it first, once per revision. The selected spaces whose kept report is
 * not of the revision their folder holds (or have none), read again; how many were. A space whose read
 * fails keeps its older report (shown as such) and is handed to `onError`.
 */
export async function refreshStaleLinkReports(cache: CacheRepository, gateway: ApiGateway, onError?: (error: unknown, spaceId: string) => void): Promise<number> {
  let refreshed = 0
  for (const row of cache.selectedSpaces()) {
    if (!row.syncedRevision || cache.linkReport(row.id)?.revisionId === row.syncedRevision) continue
    try {
      await refreshLinkReport(cache, gateway, row.id, row.syncedRevision)
      refreshed++
    } catch (error) {
      onError?.(error, row.id)
    }
  }
  return refreshed
}

/** Whether some selected space's kept report is not of its synced revision (see refreshStaleLinkReports). */
export function linkReportsStale(cache: CacheRepository): boolean {
  return cache.selectedSpaces().some((row) => !!row.syncedRevision && cache.linkReport(row.id)?.revisionId !== row.syncedRevision)
}

export interface LinkFinding {
  spaceId: string
  status: LinkReportItem['status']
  /** What the link points at, as the service names it (a path, an id or a URL). */
  target: string
  /** The page holding the link, and where it is on disk (absent when the page is not synced). */
  pageId?: string
  pageTitle?: string
  localFile?: string
  line?: number
}

/**
 * The report of one space from the cache, each link located in the local file of the page that holds
 * it (file and line, found with `extractLinks` on the file as it is now). Works offline.
 */
export async function linkFindings(cache: CacheRepository, spaceId: string, folder: string | undefined, options: { brokenOnly?: boolean } = {}): Promise<LinkFinding[]> {
  const report = cache.linkReport(spaceId)
  if (!report) return []
  const items = (report.items as LinkReportItem[]).filter((item) => !options.brokenOnly || item.status === 'broken')
  const files = folder ? new SpaceFolder(folder) : undefined
  const texts = new Map<string, string | undefined>()
  const read = async (relative: string) => {
    if (!texts.has(relative)) texts.set(relative, files ? await fs.readFile(files.resolve(relative), 'utf8').catch(() => undefined) : undefined)
    return texts.get(relative)
  }
  const findings: LinkFinding[] = []
  for (const item of items) {
    const target = describeTarget(item.targetReference)
    const pages = item.locationReferences.filter((l) => l.kind === 'page' && l.page)
    if (pages.length === 0) findings.push({ spaceId, status: item.status, target })
    for (const location of pages) {
      const page = cache.pageLocation(spaceId, location.page!)
      const finding: LinkFinding = { spaceId, status: item.status, target, pageId: location.page, pageTitle: page?.title }
      if (page?.localPath) {
        finding.localFile = page.localPath
        const text = await read(page.localPath)
        const lines = text === undefined ? [] : linesPointingAt(text, page.gitPath ?? page.localPath, item.targetReference)
        if (lines.length === 0) findings.push(finding)
        for (const line of lines) findings.push({ ...finding, line })
      } else {
        findings.push(finding)
      }
    }
  }
  return findings
}

function describeTarget(ref: LinkReportItem['targetReference']): string {
  if (ref.kind === 'url') return ref.url ?? ''
  if (ref.kind === 'file') return ref.file ?? ''
  if (ref.kind === 'anchor') return `${ref.page ?? ''}#${ref.anchor ?? ''}`
  return ref.page ?? ''
}

/** Lines of `text` (a page file at `gitPath`) whose link resolves to the reported target. */
function linesPointingAt(text: string, gitPath: string, ref: LinkReportItem['targetReference']): number[] {
  const wanted = describeTarget(ref)
  const lines: number[] = []
  for (const link of extractLinks(text)) {
    const raw = link.target
    if (raw === wanted) {
      lines.push(link.line)
      continue
    }
    if (link.kind === 'url') continue
    const [pathPart, anchor] = splitAnchor(raw)
    const byId = /^\/(?:pages|files)\/([^/#?]+)/.exec(pathPart)?.[1]
    const resolved = byId ?? resolveRelativePath(pathPart.startsWith('/') ? '' : gitPath, decode(pathPart))
    const candidate = ref.kind === 'anchor' && anchor !== undefined ? `${resolved}#${anchor}` : resolved
    if (candidate === wanted || (ref.kind !== 'anchor' && resolved === wanted)) lines.push(link.line)
  }
  return [...new Set(lines)]
}

function splitAnchor(target: string): [string, string | undefined] {
  const hash = target.indexOf('#')
  return hash === -1 ? [target, undefined] : [target.slice(0, hash), target.slice(hash + 1)]
}

function decode(text: string): string {
  try {
    return decodeURIComponent(text)
  } catch {
    return text
  }
}

import fs from 'node:fs'
import path from 'node:path'
import type { BrokenLink, OpenedFile, PageSummary } from '../../shared/contract'
import { type ApiGateway, type CacheRepository, linkFindings, type PreflightFinding, refreshStaleLinkReports, ServiceUnreachableError, spaceFolderPath } from '../engine'
import { cachedPageTree } from './cached-page-tree'
import type { DesktopActions } from './desktop-actions'
import { AppError, fromApiError } from './errors'

/** A row of the service's link report as the cache keeps it (engine/links/link-reports.ts). */
interface LinkItem {
  status?: string
  targetReference?: { page?: string; file?: string }
  locationReferences?: Array<{ page?: string }>
}

/** Pages and broken links mapped to the workspace's files, and opening those files (only those) for the user. */
export class LocalFiles {
  constructor(
    private readonly cache: CacheRepository,
    private readonly workspace: () => string,
    private readonly desktop: DesktopActions,
    /** The engine session's link pre-flight of a space folder (none without a live session). */
    private readonly preflight: (spaceId: string) => PreflightFinding[] = () => [],
  ) {}

  async listPages(gateway: ApiGateway, spaceId: string): Promise<PageSummary[]> {
    let pages
    try {
      pages = (await gateway.client.spaces.listPages(spaceId)).data.pages
    } catch (error) {
      // Offline the page picker still works: the pages as the last pass stored them.
      if (error instanceof ServiceUnreachableError) return this.cachedPages(spaceId)
      throw fromApiError(error, 'Listing pages')
    }
    const out: PageSummary[] = []
    // Tree order with each page's depth: the comment screen's page picker shows the space's tree.
    const visit = (list: typeof pages, depth: number) => {
      for (const page of list) {
        if (page.type === 'document') {
          const local = this.cache.pageLocation(spaceId, page.id)?.localPath
          const gitPath = 'git' in page ? page.git?.path : undefined
          out.push({ id: page.id, title: page.title, ...(local || gitPath ? { path: local ?? gitPath } : {}), depth })
        }
        if ('pages' in page && Array.isArray(page.pages)) visit(page.pages, page.type === 'document' ? depth + 1 : depth)
      }
    }
    visit(pages, 0)
    return out
  }

  private cachedPages(spaceId: string): PageSummary[] {
    return cachedPageTree(this.cache.remoteTree(spaceId).pages, (page) => this.cache.pageLocation(spaceId, page.id)?.localPath ?? page.gitPath)
  }

  async brokenLinks(gateway: ApiGateway, warn: (message: string, spaceId: string) => void): Promise<BrokenLink[]> {
    const out: BrokenLink[] = []
    // A report is read when someone looks (issue 29: a pass reads none), once per revision.
    await refreshStaleLinkReports(this.cache, gateway, (error, spaceId) => {
      if (!(error instanceof ServiceUnreachableError)) warn(fromApiError(error, `Reading the link report of ${this.cache.space(spaceId)?.title ?? spaceId}`).message, spaceId)
    })
    for (const row of this.cache.selectedSpaces()) {
      const candidate = spaceFolderPath(this.cache, this.workspace(), row)
      const folder = candidate && fs.existsSync(candidate) ? candidate : undefined
      for (const finding of await linkFindings(this.cache, row.id, folder, { brokenOnly: true })) {
        out.push({
          spaceId: row.id,
          spaceTitle: row.title,
          ...(finding.pageId ? { pageId: finding.pageId } : {}),
          pageTitle: finding.pageTitle || 'Untitled page',
          target: finding.target,
          ...(folder && finding.localFile ? { file: path.join(folder, ...finding.localFile.split('/')), path: finding.localFile } : {}),
          ...(finding.line ? { line: finding.line } : {}),
          source: 'service',
        })
      }
      if (!folder) continue
      // The pre-flight of the files as they are now: what the service's report cannot show yet.
      const pages = this.pagesByPath(row.id)
      for (const finding of this.localFindings(row.id, pages)) {
        const page = pages.get(finding.file)
        out.push({
          spaceId: row.id,
          spaceTitle: row.title,
          ...(page ? { pageId: page.id } : {}),
          pageTitle: page?.title || finding.file,
          target: finding.target,
          file: path.join(folder, ...finding.file.split('/')),
          path: finding.file,
          line: finding.line,
          source: 'local',
          reason: finding.reason,
        })
      }
    }
    return out
  }

  /**
   * The pre-flight's findings of a space that the service's report does not already list: a broken link
   * both see (same page, same resolved target) is the service's, shown and counted once.
   */
  private localFindings(spaceId: string, pages: ReadonlyMap<string, { id: string }>): PreflightFinding[] {
    const known = new Set<string>()
    for (const item of (this.cache.linkReport(spaceId)?.items ?? []) as LinkItem[]) {
      if (item.status !== 'broken') continue
      const target = item.targetReference?.page ?? item.targetReference?.file
      for (const location of item.locationReferences ?? []) if (location.page && target) known.add(`${location.page}\n${target}`)
    }
    return this.preflight(spaceId).filter((f) => f.resolved === undefined || !known.has(`${pages.get(f.file)?.id}\n${f.resolved}`))
  }

  /** The synced pages of a space by their file in its folder, with their titles. */
  private pagesByPath(spaceId: string): Map<string, { id: string; title?: string }> {
    const pages = new Map<string, { id: string; title?: string }>()
    for (const entry of this.cache.journal(spaceId)) {
      if (entry.kind !== 'page') continue
      pages.set(entry.path, { id: entry.id, title: this.cache.pageLocation(spaceId, entry.id)?.title })
    }
    return pages
  }

  /** The header's count: the service's broken links, and the pre-flight's it does not list yet. */
  brokenLinkCount(): number {
    let count = 0
    for (const row of this.cache.selectedSpaces()) {
      const items = (this.cache.linkReport(row.id)?.items ?? []) as LinkItem[]
      for (const item of items) if (item.status === 'broken') count += Math.max(1, item.locationReferences?.length ?? 0)
      count += this.localFindings(row.id, this.pagesByPath(row.id)).length
    }
    return count
  }

  /** Opens a file of the workspace (and only of the workspace) in the user's editor. */
  /** Opens a workspace file at its line; answers how (the editor's name, or the system's default application). */
  async openLocalFile(file: string, line?: number): Promise<OpenedFile> {
    let real: string
    let root: string
    try {
      real = fs.realpathSync(file)
      root = fs.realpathSync(this.workspace())
    } catch {
      throw new AppError('not-found', `${file} does not exist.`)
    }
    const relative = path.relative(root, real)
    if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) throw new AppError('forbidden', 'Only files inside the workspace folder can be opened.')
    if (!fs.statSync(real).isFile()) throw new AppError('invalid', `${file} is not a file.`)
    const editor = await this.desktop.openFile(real, line)
    return editor ? { editor } : { defaultApp: true }
  }

  async openExternal(url: string): Promise<void> {
    const parsed = new URL(url)
    if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new AppError('invalid', 'Only http(s) links open in the browser.')
    await this.desktop.openUrl(parsed.href)
  }

  async openWorkspaceFolder(): Promise<void> {
    const workspace = this.workspace()
    fs.mkdirSync(workspace, { recursive: true })
    await this.desktop.openFolder(workspace)
  }
}

/**
 * Every link of a revision, resolved, and the link report built from them.
 *
 * A revision is immutable, so a `RevisionLinks` is computed once and may be cached by revision id.
 * Links come from page bodies (markdown links, images, GitBook tags, HTML attributes: whatever
 * `extractLinks` finds), from link pages' `href` and from front-matter covers (a page using an
 * asset as its cover references it as much as an inline image does).
 */
import { SLICE_MS, extractLinks, extractLinksInSlices, type ParsedRuns } from '../../content/markdown/links'
import { TurnClock } from '../../content/markdown/turn-clock'
import type { RevisionTree } from '../../content/types'
import { LinkResolver, type LinkStatus, type LinkTarget } from './link-resolution'
import { RevisionMap } from './revision-map'

/** The content of one revision: its tree and a way to read page bodies by blob id. */
export interface RevisionSource {
  tree: RevisionTree
  /** UTF-8 text of a blob; undefined when the blob is not stored. */
  readBlob(oid: string): string | undefined
  /** Runs of the bodies parsed ahead (off the event loop: see api/links.ts). */
  parsedLinks?: ParsedRuns
}

export interface LinkOccurrence {
  /** Page the link is written in. */
  pageId: string
  /** The target as written. */
  written: string
  /** 1-based position in the page body; absent for link pages' `href` and covers. */
  line?: number
  column?: number
  status: LinkStatus
  target: LinkTarget
}

/** One row of a link report: a distinct target and the pages that reference it. */
export interface LinkReportEntry {
  status: LinkStatus
  target: LinkTarget
  /** Pages referencing the target, in document order, each once. */
  pageIds: string[]
}

export interface LinkStats {
  total: number
  broken: number
}

/** Identity of a target across revisions: the same key in two revisions means the same link target. */
export function targetKey(target: LinkTarget): string {
  switch (target.kind) {
    case 'page':
      return `page:${target.page}`
    case 'anchor':
      return `anchor:${target.page}#${target.anchor}`
    case 'file':
      return `file:${target.file}`
    case 'url':
      return `url:${target.url}`
  }
}

/** Links resolved, or occurrences grouped, between two looks at the clock of the sliced builders below. */
const LINKS_PER_LOOK = 64

export class RevisionLinks {
  readonly map: RevisionMap
  /** In document order: pages in tree order, links in source order within a page. */
  readonly occurrences: LinkOccurrence[] = []
  /** `entriesInSlices` by page (undefined: the whole revision); a revision is immutable. */
  private readonly sliced = new Map<string | undefined, Promise<LinkReportEntry[]>>()

  /** `collectNow` false leaves `occurrences` empty, for `build` to fill. */
  constructor(source: RevisionSource, origin: string, collectNow = true) {
    this.map = new RevisionMap(source.tree)
    if (collectNow) {
      const resolver = new LinkResolver(this.map, origin)
      for (const { page, gitPath } of this.map.pages) {
        const body = this.ownLinks(resolver, page, gitPath, source)
        if (body) for (const link of extractLinks(body, undefined, source.parsedLinks)) this.add(resolver, page.id, gitPath, link.target, link)
      }
    }
  }

  /**
   * The same, built with `pause` awaited every few milliseconds of work: a large page has tens of
   * thousands of links, and listing and resolving them in one turn held a server's other requests for
   * a tenth of a second or more (issue 16).
   */
  static async build(source: RevisionSource, origin: string, pause: () => Promise<void>): Promise<RevisionLinks> {
    const links = new RevisionLinks(source, origin, false)
    const resolver = new LinkResolver(links.map, origin)
    const clock = new TurnClock(SLICE_MS, LINKS_PER_LOOK)
    for (const { page, gitPath } of links.map.pages) {
      const body = links.ownLinks(resolver, page, gitPath, source)
      if (!body) continue
      for (const link of await extractLinksInSlices(body, undefined, source.parsedLinks, pause)) {
        links.add(resolver, page.id, gitPath, link.target, link)
        if (clock.tick()) await pause()
      }
    }
    return links
  }

  /** Adds a page's link-page `href` and cover; returns its body, whose links the caller adds. */
  private ownLinks(resolver: LinkResolver, page: RevisionMap['pages'][number]['page'], gitPath: string | undefined, source: RevisionSource): string | undefined {
    if (page.type === 'link' && page.href) this.add(resolver, page.id, gitPath, page.href)
    if (page.metadata.cover) this.add(resolver, page.id, gitPath, page.metadata.cover)
    return page.bodyOid === undefined ? undefined : source.readBlob(page.bodyOid)
  }

  private add(resolver: LinkResolver, pageId: string, gitPath: string | undefined, written: string, at?: { line: number; column: number }): void {
    const resolved = resolver.resolve(written, pageId, gitPath)
    this.occurrences.push({ pageId, written, ...(at ? { line: at.line, column: at.column } : {}), ...resolved })
  }

  /** `entries`, grouped with `pause` awaited every few thousand occurrences, and kept: a revision is immutable. */
  entriesInSlices(pageId: string | undefined, pause: () => Promise<void>): Promise<LinkReportEntry[]> {
    let entries = this.sliced.get(pageId)
    if (!entries) {
      const steps = this.grouped(pageId)
      entries = (async () => {
        for (let step = steps.next(); ; step = steps.next()) {
          if (step.done) return step.value
          await pause()
        }
      })()
      this.sliced.set(pageId, entries)
    }
    return entries
  }

  /** The report's rows, for the whole revision or for one page. */
  entries(pageId?: string): LinkReportEntry[] {
    const steps = this.grouped(pageId)
    for (let step = steps.next(); ; step = steps.next()) if (step.done) return step.value
  }

  /** `entries`, yielding every few milliseconds. */
  private *grouped(pageId: string | undefined): Generator<void, LinkReportEntry[]> {
    const byKey = new Map<string, LinkReportEntry>()
    const clock = new TurnClock(SLICE_MS, LINKS_PER_LOOK)
    for (const occurrence of this.occurrences) {
      if (clock.tick()) yield
      if (pageId !== undefined && occurrence.pageId !== pageId) continue
      const key = targetKey(occurrence.target)
      const entry = byKey.get(key)
      if (!entry) byKey.set(key, { status: occurrence.status, target: occurrence.target, pageIds: [occurrence.pageId] })
      else if (!entry.pageIds.includes(occurrence.pageId)) entry.pageIds.push(occurrence.pageId)
    }
    return [...byKey.values()]
  }

  /** Pages referencing the file, in document order. */
  fileBacklinks(fileId: string): string[] {
    const pages = new Set<string>()
    for (const { target, status, pageId } of this.occurrences) {
      if (status === 'ok' && target.kind === 'file' && target.file === fileId) pages.add(pageId)
    }
    return [...pages]
  }
}

export function linkStats(entries: LinkReportEntry[]): LinkStats {
  return { total: entries.length, broken: entries.filter((entry) => entry.status === 'broken').length }
}

/** Broken entries of `entries` whose target is not broken in `baseline` too: what a change introduces. */
export function newlyBroken(entries: LinkReportEntry[], baseline: LinkReportEntry[]): number {
  const alreadyBroken = new Set(baseline.filter((entry) => entry.status === 'broken').map((entry) => targetKey(entry.target)))
  return entries.filter((entry) => entry.status === 'broken' && !alreadyBroken.has(targetKey(entry.target))).length
}

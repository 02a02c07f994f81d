import type { ContentChange } from '../../content'
import type { RemotePageRow } from '../cache/cache-repository'
import type { JournalEntry } from '../sync/plan-types'
import { enclosingIn } from '../workspace/content-names'
import { shortHash } from './page-file'
import type { EntryUpdate, PlannedChange, PlannedConflict, PlannedMarker, PlannedRewrite, PushedEntry, PushInput, PushPlan, PushReport } from './push-types'
import { summaryPlaces, type SummaryPlace } from './summary-order'

/** A page as this push sees it: an id on the service, or the ref of an insert still on its way. */
export interface Known {
  handle: string
  isRef: boolean
  journal?: JournalEntry
  pushed?: PushedEntry
  /** Where its file was last known to be. */
  path: string
  /** Where its file is now (after renames); undefined when it is gone. */
  now?: string
  /** Deleted by the writer's change request and its file is back: the deletion is taken back (`revert_page`). */
  revive?: boolean
  /** The revision `revert_page` restores a revived page from, when not the change request's base (revivals.ts: a merged deletion). */
  reviveFrom?: string
  /** Deleted before, brought back with a revived parent while its own file is still gone: deleted again, at once. */
  redelete?: boolean
}

/** The page new or moved pages go under: an id, or the ref of an insert of this plan. */
export interface Owner {
  handle: string
  isRef: boolean
}

/**
 * What one push plan knows and has decided so far, shared by its steps (identify pages, place them,
 * plan known pages, uploads): main as last seen, the pages by handle and path, and the plan's output.
 */
export class PlanState {
  readonly main: Map<string, RemotePageRow>
  /** Main's pages by parent ('' for the top level), in order. */
  readonly mainChildren = new Map<string, RemotePageRow[]>()
  readonly known = new Map<string, Known>()
  readonly byPath = new Map<string, Known>()
  /** Page files no page is known by: inserts, unless a rename claims them. */
  readonly newFiles: string[] = []
  readonly summary: ReadonlyMap<string, SummaryPlace>
  readonly reports: PushReport[] = []
  readonly changes: PlannedChange[] = []
  readonly markers: PlannedMarker[] = []
  readonly conflicts: PlannedConflict[] = []
  readonly rewrites: PlannedRewrite[] = []
  readonly orphans: PushPlan['orphans'] = []
  readonly relocations: PushPlan['relocations'] = []
  /** New pages inserted by this plan: path -> ref. */
  readonly inserted = new Map<string, string>()
  /** Pages this plan deletes. */
  readonly deleted = new Set<string>()
  /** Pages whose files are there but were not read (symlink, hidden or ignored folder, too large...): left as they are. */
  readonly held = new Set<string>()
  /** Pages held because their content is in a file the scan skips (`faq.md~`, `.guide/`): handle -> that skipped path. */
  readonly heldIn = new Map<string, string>()
  /** Pages the writer's change request deleted, with a journal entry: brought back when their file is (page-identity.ts). */
  readonly tombstones: Known[] = []
  /** Removals waiting for the quiet interval: path -> when its file was first seen missing. */
  readonly waiting = new Map<string, number>()
  readonly bookkeeping: EntryUpdate[] = []

  constructor(readonly input: PushInput) {
    this.main = new Map(input.main.pages.map((p) => [p.id, p]))
    for (const page of input.main.pages) {
      const key = page.parentId ?? ''
      const list = this.mainChildren.get(key) ?? []
      list.push(page)
      this.mainChildren.set(key, list)
    }
    for (const list of this.mainChildren.values()) list.sort((a, b) => a.position - b.position)
    this.summary = summaryPlaces(input.summary)
  }

  addKnown(known: Known) {
    this.known.set(known.handle, known)
    this.byPath.set(known.path, known)
  }

  /** Handle of the parent a page is under in main, if any. */
  mainParent(handle: string): string | undefined {
    return this.main.get(handle)?.parentId
  }

  /** The skipped path that holds `path` (itself or a folder above it), if the scan did not read it. */
  notRead(path: string): string | undefined {
    return this.input.skipped ? enclosingIn(this.input.skipped, path) : undefined
  }

  isRefHandle(handle: string): boolean {
    return handle.startsWith('quire-')
  }

  /** A change of the plan, unless the service refused the very same change before. */
  add(change: ContentChange, entries: EntryUpdate[], extra: { title?: string; defines?: string; uses?: string[] } = {}) {
    const key = shortHash(JSON.stringify(change)) + shortHash(JSON.stringify(entries))
    if (this.input.refused.has(key)) {
      const path = entries.find((e) => e.path)?.path ?? ''
      this.report('refused', path, 'the service refused this change before; it is sent again once the file changes')
      return
    }
    this.changes.push({ key, change, entries, title: extra.title, defines: extra.defines, uses: extra.uses ?? [] })
  }

  report(kind: PushReport['kind'], path: string, message: string) {
    this.reports.push({ kind, path, message })
  }
}

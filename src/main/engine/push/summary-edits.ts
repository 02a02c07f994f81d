import { parsePageMarkdown, SUMMARY_FILE, type ContentChange } from '../../content'
import { README } from './page-file'
import type { PlanState } from './plan-state'
import type { PushPlan } from './push-types'
import { addTo, cloneOutline, emptyOutline, outlineOf, removeFrom, scanLines, unmatched, type Outline } from './summary-outline'

/**
 * SUMMARY.md is a writer's edit: where the writer's SUMMARY.md differs from the one sync down last wrote
 * (its merge base), the order, nesting and entry titles it gives the pages main has become moves
 * (`update_page` with `into`/`at`) and title updates in the change request. Three-way, page by page and
 * list by list: what the writer changed since the base wins, what main changed since (and the writer did
 * not) stays; a list both reordered takes the writer's order for the pages it lists (reported).
 *
 * Rules:
 * - A page moved to another parent in SUMMARY.md goes there; a list the writer reordered or moved pages
 *   into or out of takes the writer's order, main's other pages after their main predecessor.
 * - An entry whose link text changed renames its page (`title`), unless this push sends the page's file
 *   with an H1 of its own that says otherwise: the H1 is the page's title as its file says it (Git Sync
 *   reads it so), it wins and the entry is reported. A file whose H1 was not edited gets the new title
 *   back with the merge.
 * - What the content API cannot represent is reported with its line and not sent: a new `## Group`, a
 *   separator that changes nothing, an entry linking a URL or a section of a page, an entry naming no
 *   file, an entry removed while its file stays, the home page (README.md) listed after another page. The file then stays an edit (`summaryEdit.unsent`):
 *   sync down does not replace it and the space's status says it waits.
 * - The change request may already carry an earlier version of the writer's SUMMARY.md
 *   (`input.summaryCarried`): moves are planned from the place that version gave the pages.
 * Pages this plan inserts, deletes or moves by their file are placed by those changes, not here.
 */
export function planSummaryEdits(s: PlanState): PushPlan['summaryEdit'] {
  const text = s.input.summary
  const file = s.input.local.get(SUMMARY_FILE)
  const base = s.input.journal.find((j) => j.kind === 'summary')
  if (text === undefined || !file || !base) return undefined
  // Back to the base: nothing of the writer's, unless the change request carries an earlier edit to undo.
  if (file.hash === base.baseHash && (!s.input.summaryCarried || s.input.summaryCarried.hash === file.hash)) return undefined
  const plan = new SummaryEditPlan(s)
  const unsent = plan.run(text)
  return { hash: file.hash, text, unsent }
}

class SummaryEditPlan {
  /** Main's tree as an outline (all its pages, groups and links). */
  private readonly main = emptyOutline()
  private readonly handleNow = new Map<string, string>()
  private readonly handleThen = new Map<string, string>()
  private unsent = 0

  constructor(private readonly s: PlanState) {
    const visit = (parent: string) => {
      for (const row of s.mainChildren.get(parent) ?? []) {
        addTo(this.main, row.id, parent)
        this.main.title.set(row.id, row.title)
        visit(row.id)
      }
    }
    visit('')
    for (const k of s.known.values()) if (k.now !== undefined) this.handleNow.set(k.now, k.handle)
    // A page held as it is (its file not read: too large, a symlink...) keeps its place in the outline:
    // its entry's order and nesting are the writer's to change all the same.
    for (const k of s.known.values()) if (k.now === undefined && s.held.has(k.handle) && s.input.local.has(k.path) === false && !this.handleNow.has(k.path)) this.handleNow.set(k.path, k.handle)
    for (const [path, ref] of s.inserted) this.handleNow.set(path, ref)
    for (const j of s.input.journal) if (j.kind === 'page') this.handleThen.set(j.path, j.id)
  }

  private groupOf = (title: string) => (this.s.mainChildren.get('') ?? []).find((row) => row.kind === 'group' && row.title === title)?.id

  run(text: string): number {
    const s = this.s
    const local = outlineOf(text, (p) => this.handleNow.get(p), this.groupOf)
    if (!local) {
      this.report(undefined, 'SUMMARY.md does not parse: its order, nesting and titles are not sent')
      return this.unsent
    }
    // No base text kept (a cache from before it was kept): main stands for the base, the writer's file wins.
    const baseText = s.input.summaryBase
    const base = (baseText !== undefined ? outlineOf(baseText, (p) => this.handleThen.get(p), this.groupOf) : undefined) ?? this.main
    const target = this.target(base, local)
    this.reportUnrepresentable(text, baseText, base, local, target)
    const carried = s.input.summaryCarried
    if (carried && carried.hash === s.input.local.get(SUMMARY_FILE)?.hash) return this.unsent // the change request carries this version
    const carriedOutline = carried ? outlineOf(carried.text, (p) => this.handleNow.get(p), this.groupOf) : undefined
    const start = carriedOutline ? this.target(base, carriedOutline, false) : cloneOutline(this.main)
    this.replayPlan(start)
    this.emit(start, target, local)
    return this.unsent
  }

  /** Pages the outline may move: main's, not inserted, deleted or moved by their file in this plan. */
  private movable(handle: string): boolean {
    const s = this.s
    if (!s.main.has(handle) || s.deleted.has(handle)) return false
    const k = s.known.get(handle)
    return !(k && k.now !== undefined && k.now !== k.path)
  }

  /** Main with the writer's edits (base -> local) applied. */
  private target(base: Outline, local: Outline, reporting = true): Outline {
    const { main } = this
    const t = emptyOutline()
    const parentOf = new Map<string, string>()
    const writerMoved = new Set<string>()
    for (const id of main.parent.keys()) {
      const from = base.parent.get(id)
      const to = local.parent.get(id)
      const mainParent = main.parent.get(id)!
      if (this.movable(id) && from !== undefined && to !== undefined && from !== to && (to === '' || this.validParent(to))) {
        parentOf.set(id, to)
        writerMoved.add(id)
      } else parentOf.set(id, mainParent)
    }
    // A writer's move and main's together may close a loop: the writer's nesting wins.
    for (const id of parentOf.keys()) {
      const seen = new Set<string>()
      for (let p = parentOf.get(id); p !== undefined && p !== ''; p = parentOf.get(p)) {
        if (seen.has(p)) break
        seen.add(p)
        if (p === id) {
          for (const member of seen) parentOf.set(member, local.parent.get(member) ?? '')
          break
        }
      }
    }
    const touched = new Set<string>()
    for (const id of writerMoved) {
      touched.add(base.parent.get(id)!)
      touched.add(local.parent.get(id)!)
    }
    for (const [parent, list] of local.children) {
      const before = (base.children.get(parent) ?? []).filter((id) => list.includes(id) && main.parent.has(id))
      const after = list.filter((id) => before.includes(id))
      if (before.join('\n') !== after.join('\n')) touched.add(parent)
    }
    const lists = new Map<string, string[]>()
    for (const [id, parent] of parentOf) lists.set(parent, [...(lists.get(parent) ?? []), id])
    const ordered = (parent: string): string[] => {
      const members = new Set(lists.get(parent) ?? [])
      const mainOrder = (main.children.get(parent) ?? []).filter((id) => members.has(id))
      if (!touched.has(parent)) return [...mainOrder, ...[...members].filter((id) => !mainOrder.includes(id))]
      const out = (local.children.get(parent) ?? []).filter((id) => members.has(id))
      const baseOrder = (base.children.get(parent) ?? []).filter((id) => out.includes(id) && mainOrder.includes(id))
      const mainCommon = mainOrder.filter((id) => baseOrder.includes(id))
      if (reporting && mainCommon.join('\n') !== baseOrder.join('\n')) {
        this.s.report('summary-merged', SUMMARY_FILE, `SUMMARY.md: the order under ${this.nameOf(parent)} changed on the service too; your order is sent for the pages you list`)
      }
      // Main's pages the writer's file does not list (new there, or unlisted) follow their main predecessor.
      mainOrder.forEach((id, i) => {
        if (out.includes(id)) return
        const prev = mainOrder.slice(0, i).reverse().find((p) => out.includes(p))
        out.splice(prev === undefined ? 0 : out.indexOf(prev) + 1, 0, id)
      })
      for (const id of members) if (!out.includes(id)) out.push(id)
      return out
    }
    const build = (parent: string) => {
      for (const id of ordered(parent)) {
        addTo(t, id, parent)
        const from = base.title.get(id)
        const to = local.title.get(id)
        t.title.set(id, from !== undefined && to !== undefined && to !== '' && from !== to && this.movable(id) ? to : main.title.get(id)!)
        build(id)
      }
    }
    build('')
    // The home page stays first: the content API's first page is the space's README.md.
    const home = this.homeId()
    const top = t.children.get('') ?? []
    if (home !== undefined && top[0] !== home && top.includes(home)) {
      if (reporting) this.report(local.line.get(home), `${README} is the home page: it stays first`)
      top.splice(top.indexOf(home), 1)
      top.unshift(home)
    }
    return t
  }

  private validParent(handle: string): boolean {
    const s = this.s
    if (s.deleted.has(handle)) return false
    const row = s.main.get(handle)
    return row !== undefined && row.kind !== 'link'
  }

  private homeId(): string | undefined {
    const k = this.s.byPath.get(README)
    return k && this.s.main.get(k.handle)?.parentId === undefined ? k.handle : undefined
  }

  /** This plan's own inserts and moves, so places are counted as the service will see them. */
  private replayPlan(o: Outline) {
    for (const { change } of this.s.changes) {
      if (change.operation === 'insert_page' && change.ref) addTo(o, change.ref, change.into ?? '', change.at)
      if (change.operation === 'update_page' && (change.into !== undefined || change.at !== undefined) && o.parent.has(change.page)) {
        const parent = change.into === undefined ? o.parent.get(change.page)! : (change.into ?? '')
        removeFrom(o, change.page)
        addTo(o, change.page, parent, change.at)
      }
    }
  }

  /**
   * Moves and title updates that take the change request from `start` to `target`: in `target`'s order,
   * parents first (so no page is moved into one of its own subpages), each page placed right after its
   * target predecessor unless it already follows it among the pages of that list.
   */
  private emit(start: Outline, target: Outline, local: Outline) {
    const s = this.s
    const visit = (parent: string) => {
      const list = target.children.get(parent) ?? []
      const members = new Set(list)
      list.forEach((id, i) => {
        const change: Extract<ContentChange, { operation: 'update_page' }> = { operation: 'update_page', page: id }
        if (this.movable(id) && start.parent.has(id)) {
          const prev = list.slice(0, i).reverse().find((p) => start.parent.get(p) === parent)
          const siblings = start.children.get(parent) ?? []
          const current = start.parent.get(id) === parent ? siblings.slice(0, siblings.indexOf(id)).reverse().find((p) => members.has(p)) : null
          if (current !== prev) {
            const into = start.parent.get(id) === parent ? undefined : parent === '' ? null : parent
            removeFrom(start, id)
            const after = start.children.get(parent) ?? []
            const at = prev === undefined ? Math.max(0, after.findIndex((p) => members.has(p))) : after.indexOf(prev) + 1
            addTo(start, id, parent, at)
            Object.assign(change, into === undefined ? {} : { into }, { at })
          }
        }
        const title = target.title.get(id)
        if (title !== undefined && title !== start.title.get(id) && this.titleMaySend(id, title, local)) change.title = title
        if (Object.keys(change).length > 2) s.add(change, [], { title: change.title ?? s.main.get(id)?.title })
        visit(id)
      })
    }
    visit('')
  }

  /** The entry's title goes unless this plan sends the page's file with an H1 that says otherwise. */
  private titleMaySend(id: string, title: string, local: Outline): boolean {
    const sent = this.s.changes.find((c) => c.change.operation === 'update_page' && c.change.page === id && c.change.document)?.change
    const markdown = sent && 'document' in sent && sent.document && 'markdown' in sent.document ? sent.document.markdown : undefined
    if (typeof markdown !== 'string') return true
    let own: string | undefined
    try {
      own = parsePageMarkdown(markdown).title
    } catch {
      own = undefined
    }
    if (own === undefined || own === title) return own === undefined
    this.report(local.line.get(id), `the entry's title "${title}" differs from the H1 "${own}" of the page's file: the H1 is the page's title (edit it to rename the page)`, 'summary-title-kept')
    return false
  }

  private reportUnrepresentable(text: string, baseText: string | undefined, base: Outline, local: Outline, target: Outline) {
    const { structure, entryLines } = scanLines(text)
    // Entries that name no page: a section of a page (`#anchor`), or a path with no file.
    for (const [path, line] of entryLines) {
      if (path.includes('#')) this.report(line, `${path}: an entry linking a section of a page cannot be created through the content API; not sent`)
      else if (!this.handleNow.has(path) && !this.s.input.local.has(path) && !this.s.notRead(path)) this.report(line, `${path}: no such page file; not sent`)
    }
    // Headings and separators as the service's SUMMARY.md would have them after this push.
    const rendered: string[] = []
    let inGroup = false
    for (const id of target.children.get('') ?? []) {
      if (this.s.main.get(id)?.kind === 'group') {
        rendered.push(`h:${target.title.get(id)}`)
        inGroup = true
      } else if (inGroup) {
        rendered.push('sep')
        inGroup = false
      }
    }
    const shaping = structure.filter((l) => !l.key.startsWith('url:'))
    for (const l of unmatched(shaping, rendered)) {
      this.report(l.line, l.key === 'sep' ? `"${l.text}": a separator that ends no group of the space is not sent` : `"${l.text}": a new group cannot be created through the content API; not sent`)
    }
    const baseUrls = baseText === undefined ? [] : scanLines(baseText).structure.filter((l) => l.key.startsWith('url:')).map((l) => l.key)
    if (baseText !== undefined) for (const l of unmatched(structure.filter((l) => l.key.startsWith('url:')), baseUrls)) this.report(l.line, `"${l.text}": an entry linking a URL cannot be created through the content API; not sent`)
    // An entry taken out while its file stays: the page stays (deleting the file deletes it).
    for (const id of base.parent.keys()) {
      if (local.parent.has(id) || !this.movable(id) || this.s.main.get(id)?.kind === 'group') continue
      const k = this.s.known.get(id)
      if (k?.now !== undefined) this.report(undefined, `${k.now} is no longer listed but its file is there: the page stays (delete the file to delete it)`)
    }
  }

  private nameOf(parent: string): string {
    return parent === '' ? 'the top level' : `"${this.s.main.get(parent)?.title ?? parent}"`
  }

  private report(line: number | undefined, message: string, kind: 'summary-not-sent' | 'summary-title-kept' = 'summary-not-sent') {
    if (kind === 'summary-not-sent') this.unsent++
    this.s.reports.push({ kind, path: SUMMARY_FILE, ...(line !== undefined ? { line } : {}), message: `${SUMMARY_FILE}${line !== undefined ? ` line ${line}` : ''}: ${message}` })
  }
}

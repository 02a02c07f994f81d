import { slugify, uniqueSlug } from '../../content'
import { dirName, isValidSlug, placeFolder, README, slugOfPath } from './page-file'
import type { Known, Owner, PlanState } from './plan-state'

/**
 * Where the pages a push inserts or moves go: under the page their folder names, at their SUMMARY.md
 * place among its children, with a slug the service takes.
 */
export class PagePlacement {
  /** Children of the parents this plan places pages under, in order: parent handle ('' top level) -> paths. */
  private readonly order = new Map<string, string[]>()
  /** Pages this plan moved to another parent (so far). */
  private readonly movedOut = new Set<string>()
  /** Slugs this plan gave pages under a parent (parent handle, '' top level). */
  private readonly slugsGiven = new Map<string, string[]>()
  /** The last place computed for a path, for `place` called without one. */
  private readonly lastAt = new Map<string, number | undefined>()

  constructor(private readonly s: PlanState) {}

  /** The page a folder names: its README page, the leaf page of the same name, a group living there, or a new README. */
  folderOwner(folder: string, forPath: string): Owner | undefined {
    for (let current = folder; current !== ''; current = dirName(current)) {
      const owner = this.ownerOf(current)
      if (owner) {
        if (current !== folder) this.s.report('placed-higher', forPath, `no page names the folder ${folder}/; placed under ${current}/`)
        return owner
      }
    }
    if (folder !== '') this.s.report('placed-higher', forPath, `no page names the folder ${folder}/; placed at the top level`)
    return undefined
  }

  private ownerOf(folder: string): Owner | undefined {
    const s = this.s
    for (const path of [`${folder}/${README}`, `${folder}.md`]) {
      const k = s.byPath.get(path)
      if (k && (k.now === path || (k.path === path && s.held.has(k.handle))) && !s.deleted.has(k.handle)) return { handle: k.handle, isRef: k.isRef }
      const ref = s.inserted.get(path)
      if (ref) return { handle: ref, isRef: true }
    }
    for (const [id, row] of s.main) {
      if (row.kind !== 'group' || s.deleted.has(id)) continue
      const child = (s.mainChildren.get(id) ?? []).map((c) => s.known.get(c.id)).find((k) => k?.journal)
      if (child?.journal && placeFolder(child.journal.path) === folder) return { handle: id, isRef: false }
      if (!child && row.parentId === undefined && row.slug === folder) return { handle: id, isRef: false }
    }
    return undefined
  }

  /**
   * The parent SUMMARY.md gives a listed page (its nesting decides, as in Git Sync): the page whose file
   * it is listed under, when that page exists or this plan inserts it; for a top-level entry of a `##`
   * group, a group of main with that title, else the top level (groups cannot be created through the
   * content API). Undefined when SUMMARY.md does not list the path or its parent is no page here: the
   * folder decides then.
   */
  summaryParent(path: string): { owner: Owner | undefined } | undefined {
    const place = this.s.summary.get(path)
    if (!place) return undefined
    if (place.parent === '') {
      const group = place.group === undefined ? undefined : this.mainGroup(place.group)
      return { owner: group ? { handle: group, isRef: false } : undefined }
    }
    const k = this.s.byPath.get(place.parent)
    if (k && k.now === place.parent && !this.s.deleted.has(k.handle)) return { owner: { handle: k.handle, isRef: k.isRef } }
    const ref = this.s.inserted.get(place.parent)
    return ref ? { owner: { handle: ref, isRef: true } } : undefined
  }

  /** A top-level group of main with this title. */
  private mainGroup(title: string): string | undefined {
    return (this.s.mainChildren.get('') ?? []).find((row) => row.kind === 'group' && row.title === title && !this.s.deleted.has(row.id))?.id
  }

  /** The parent's children as the plan's changes leave them so far, by path (a page with no file: by id). */
  private siblingsOf(parent: Owner | undefined): string[] {
    const key = parent?.handle ?? ''
    let list = this.order.get(key)
    if (!list) {
      // Pages this plan deletes or moves away are still there when its inserts apply (they go later).
      const rows = parent?.isRef ? [] : (this.s.mainChildren.get(key) ?? []).filter((row) => !this.movedOut.has(row.id))
      list = rows.map((row) => {
        const k = this.s.known.get(row.id)
        return k?.now ?? k?.path ?? `page:${row.id}`
      })
      this.order.set(key, list)
    }
    return list
  }

  /** The path of the page `parent` names ('' for the top level; undefined for a group or an unknown page). */
  private pathOf(parent: Owner | undefined): string | undefined {
    if (!parent) return ''
    if (parent.isRef) return [...this.s.inserted].find(([, ref]) => ref === parent.handle)?.[0]
    const k = this.s.known.get(parent.handle)
    return k?.now
  }

  /**
   * Zero-based place among the parent's children, from SUMMARY.md: right after the last sibling it lists
   * before this page, else right before the first it lists after; undefined (append) when SUMMARY.md
   * does not list the page under this parent. At the top level a new page never goes before the home
   * page (the first page, README.md): SUMMARY.md's first entry stays first.
   */
  placeAt(path: string, parent: Owner | undefined): number | undefined {
    const place = this.s.summary.get(path)
    if (!place) return undefined
    const parentPath = this.pathOf(parent)
    const inGroup = parent !== undefined && this.s.main.get(parent.handle)?.kind === 'group'
    if (!(inGroup ? place.parent === '' && place.group === this.s.main.get(parent.handle)?.title : parentPath === place.parent)) return undefined
    const siblings = this.siblingsOf(parent)
    const before = new Set(place.before)
    let at: number | undefined
    for (let i = siblings.length - 1; i >= 0 && at === undefined; i--) if (before.has(siblings[i])) at = i + 1
    if (at === undefined) {
      const after = siblings.findIndex((p) => {
        const other = this.s.summary.get(p)
        return other !== undefined && other.parent === place.parent && other.index > place.index
      })
      if (after >= 0) at = after
    }
    if (parent === undefined && at === 0 && path !== README && siblings.length > 0) at = 1
    this.lastAt.set(path, at)
    return at
  }

  /** Records a page placed under `parent` at `at` (undefined: appended), for the places computed after it. */
  place(parent: Owner | undefined, path: string, at: number | undefined = this.lastAt.get(path)) {
    const siblings = this.siblingsOf(parent)
    siblings.splice(at ?? siblings.length, 0, path)
  }

  /** A known page leaves its parent in main (moved elsewhere): later places there no longer count it. */
  private leave(k: Known) {
    this.movedOut.add(k.handle)
    const list = this.order.get(this.s.mainParent(k.handle) ?? '')
    const i = list ? list.indexOf(k.now ?? k.path) : -1
    if (list && i >= 0) list.splice(i, 1)
  }

  /** A slug for `wanted` among the parent's children: as written when the service would take it, else made valid and unique. */
  slugFor(wanted: string, parent: Owner | undefined, self?: string): string {
    const key = parent?.handle ?? ''
    const siblings = parent?.isRef ? [] : (this.s.mainChildren.get(key) ?? []).filter((p) => p.id !== self && !this.s.deleted.has(p.id)).map((p) => p.slug ?? '')
    // Slugs this plan already gave under the same parent count too: pages of different folders can meet
    // there (a SUMMARY.md group's pages placed at the top level: `a/guides.md` and `b/guides.md`).
    const given = this.slugsGiven.get(key) ?? []
    const base = isValidSlug(wanted) ? wanted : slugify(wanted)
    const slug = uniqueSlug(base, [...siblings, ...given])
    this.slugsGiven.set(key, [...given, slug])
    return slug
  }

  /** `slug`, `into` and `at` for a page whose file moved from `k.path` to `path`. */
  moveFields(k: Known, path: string): { slug?: string; into?: string | null; at?: number } {
    const fields: { slug?: string; into?: string | null; at?: number } = {}
    const fromFolder = placeFolder(k.path)
    const toFolder = placeFolder(path)
    const parent = toFolder === fromFolder ? this.currentParent(k) : this.folderOwner(toFolder, path)
    if (toFolder !== fromFolder) {
      this.leave(k)
      fields.into = parent ? parent.handle : null
      const at = this.placeAt(path, parent)
      if (at !== undefined) fields.at = at
      this.place(parent, path, at)
    }
    if (slugOfPath(path) !== slugOfPath(k.path)) fields.slug = this.slugFor(slugOfPath(path), parent, k.handle)
    return fields
  }

  currentParent(k: Known): Owner | undefined {
    const parentId = this.s.mainParent(k.handle)
    return parentId ? { handle: parentId, isRef: false } : undefined
  }

  /** Where SUMMARY.md lists a path among all its entries; unlisted paths come last. */
  summaryIndex(path: string): number {
    return this.s.summary.get(path)?.index ?? Number.MAX_SAFE_INTEGER
  }
}

import { slugify, uniqueSlug } from '../../content'
import { dirName, isValidSlug, movesAway, placeFolder, README, slugOfPath } from './page-file'
import type { Known, Owner, PlanState } from './plan-state'

/**
 * Where the pages a push inserts or moves go: under the page their folder names, at their SUMMARY.md
 * place among its children, with a slug the service takes.
 */
export class PagePlacement {
  /** Pages this plan places under a parent (new or moved): parent handle -> paths, in insert order. */
  private readonly placedUnder = new Map<string, string[]>()

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

  /** Zero-based place among the parent's children, from SUMMARY.md; undefined appends. */
  placeAt(path: string, parent: Owner | undefined): number | undefined {
    const place = this.s.summary.get(path)
    if (!place) return undefined
    const siblings = new Set<string>()
    if (!parent?.isRef) {
      for (const row of this.s.mainChildren.get(parent?.handle ?? '') ?? []) {
        const k = this.s.known.get(row.id)
        if (k?.now && !this.s.deleted.has(row.id) && !movesAway(k)) siblings.add(k.now)
      }
    }
    for (const p of this.placedUnder.get(parent?.handle ?? '') ?? []) siblings.add(p)
    return place.before.filter((p) => siblings.has(p)).length
  }

  place(parent: Owner | undefined, path: string) {
    const key = parent?.handle ?? ''
    this.placedUnder.set(key, [...(this.placedUnder.get(key) ?? []), path])
  }

  /** A slug for `wanted` among the parent's children: as written when the service would take it, else made valid and unique. */
  slugFor(wanted: string, parent: Owner | undefined, self?: string): string {
    const siblings = parent?.isRef ? [] : (this.s.mainChildren.get(parent?.handle ?? '') ?? []).filter((p) => p.id !== self && !this.s.deleted.has(p.id)).map((p) => p.slug ?? '')
    const base = isValidSlug(wanted) ? wanted : slugify(wanted)
    return uniqueSlug(base, siblings)
  }

  /** `slug`, `into` and `at` for a page whose file moved from `k.path` to `path`. */
  moveFields(k: Known, path: string): { slug?: string; into?: string | null; at?: number } {
    const fields: { slug?: string; into?: string | null; at?: number } = {}
    const fromFolder = placeFolder(k.path)
    const toFolder = placeFolder(path)
    const parent = toFolder === fromFolder ? this.currentParent(k) : this.folderOwner(toFolder, path)
    if (toFolder !== fromFolder) {
      fields.into = parent ? parent.handle : null
      const at = this.placeAt(path, parent)
      if (at !== undefined) fields.at = at
      this.place(parent, path)
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
    let index = 0
    for (const p of this.s.summary.keys()) {
      if (p === path) return index
      index++
    }
    return Number.MAX_SAFE_INTEGER
  }
}

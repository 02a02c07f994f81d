import { extractLinks, MAX_FILE_BYTES, MAX_FILES_PER_CHANGE, resolveRelativePath, rewriteLinks, type ContentChange, type InsertFileInput } from '../../content'
import { base64Length, FILE_BYTES_PLACEHOLDER } from '../outbox/file-references'
import type { JournalEntry } from '../sync/plan-types'
import { chunkBounded, MAX_BATCH_BYTES } from './batches'
import { ASSETS_PREFIX, baseName, shortHash } from './page-file'
import type { PlanState } from './plan-state'
import type { EntryUpdate, PlannedChange, PushedEntry } from './push-types'

/** Placeholder of a file's bytes: the outbox keeps it (a reference), the sender reads the bytes. */
export { FILE_BYTES_PLACEHOLDER }

/**
 * Base64 bytes of one insert_files change at most: half a batch, so a change always fits a batch
 * with room to spare and a refused upload holds back few files.
 */
const MAX_CHANGE_FILE_BYTES = MAX_BATCH_BYTES / 2

/**
 * Images of a push: a new file under `.gitbook/assets/` that a page sent now links to is uploaded with
 * `insert_files` and linked through its `ref`, and every other new file there is uploaded too; one over
 * the size limit, or one changed after it was uploaded (the service cannot replace a file's bytes), is
 * reported.
 */
export class AssetUploads {
  private readonly journaled = new Map<string, JournalEntry>()
  private readonly pushed = new Map<string, PushedEntry>()
  private readonly uploads = new Map<string, { ref: string; name: string; hash: string; size: number }>()
  /** Local path -> id of a file the folder names otherwise than main does (a case-only clash on a disk that folds case). */
  private readonly renamed = new Map<string, string>()

  constructor(private readonly s: PlanState) {
    for (const entry of s.input.pushed) if (entry.kind === 'file') this.pushed.set(entry.path, entry)
    for (const j of s.input.journal) if (j.kind === 'file') this.journaled.set(j.path, j)
    const mainPaths = new Map(s.input.main.files.map((f) => [f.id, f.gitPath]))
    for (const j of this.journaled.values()) {
      const gitPath = mainPaths.get(j.id)
      if (gitPath && gitPath !== j.path) this.renamed.set(j.path, j.id)
    }
  }

  /**
   * Links of a page to new local assets become links to the uploads' refs; links to a file the folder
   * names otherwise than main (workspace/local-links.ts) name it by id, so the service keeps its name.
   */
  withUploads(pagePath: string, markdown: string): string {
    if (!markdown.includes('assets')) return markdown // no link to an asset can be in it
    const links = safeLinks(markdown)
    if (links.length === 0) return markdown
    const refs = new Map<string, string>()
    for (const link of links) {
      if (link.kind !== 'file' && link.kind !== 'page') continue
      const target = decodeTarget(link.target.split('#')[0])
      const resolved = resolveRelativePath(pagePath, target)
      if (!resolved?.startsWith(ASSETS_PREFIX)) continue
      const renamed = this.renamed.get(resolved)
      if (renamed !== undefined) {
        refs.set(link.target, `/files/${renamed}${link.target.includes('#') ? link.target.slice(link.target.indexOf('#')) : ''}`)
        continue
      }
      const upload = this.uploadFor(resolved)
      if (upload) refs.set(link.target, `./${upload.ref}`)
    }
    if (refs.size === 0) return markdown
    return rewriteLinks(markdown, (link) => refs.get(link.target))
  }

  /**
   * Every other new file under `.gitbook/assets/` goes up too, linked or not (Git Sync keeps every file
   * there: a `cover:` image, a download not linked yet); one over the limit is reported. A file the
   * folder got from main, or sent before, is not new.
   */
  uploadUnlinked(): void {
    for (const [path, file] of this.s.input.local) {
      if (!path.startsWith(ASSETS_PREFIX) || this.uploads.has(path) || this.journaled.has(path) || this.pushed.has(path)) continue
      this.uploadFor(path, file)
    }
  }

  private uploadFor(assetPath: string, file = this.s.input.local.get(assetPath)): { ref: string } | undefined {
    const existing = this.uploads.get(assetPath)
    if (existing) return existing
    if (!file) return undefined
    const journaled = this.journaled.get(assetPath)
    if (journaled) {
      if (file.hash !== journaled.baseHash) this.assetChanged(assetPath)
      return undefined
    }
    const pushed = this.pushed.get(assetPath)
    if (pushed) {
      if (file.hash !== pushed.hash) this.assetChanged(assetPath)
      return undefined
    }
    const limit = this.s.input.maxFileBytes ?? MAX_FILE_BYTES
    if (file.size > limit) {
      // One wording whoever links to it: a watch says each report once, and a later pass may not send the page.
      if (!this.s.reports.some((r) => r.kind === 'too-large' && r.path === assetPath)) {
        this.s.report('too-large', assetPath, `${assetPath} is ${file.size} bytes, over the ${limit}-byte upload limit: not uploaded (links to it stay broken in the space)`)
      }
      return undefined
    }
    const upload = { ref: `quire-f${shortHash(`file:${assetPath}:${file.hash}`)}`, name: baseName(assetPath), hash: file.hash, size: file.size }
    this.uploads.set(assetPath, upload)
    return upload
  }

  private assetChanged(path: string) {
    if (this.s.reports.some((r) => r.kind === 'asset-changed' && r.path === path)) return
    this.s.report('asset-changed', path, `${path} changed locally; the service cannot replace a file's bytes, so save it under a new name to upload it`)
  }

  /** insert_files changes for the uploads the pages of this plan link to, at most 20 files and MAX_CHANGE_FILE_BYTES each. */
  planUploads(): PlannedChange[] {
    const planned: PlannedChange[] = []
    // Groups of at most 20 files and MAX_CHANGE_FILE_BYTES of base64 (a larger file goes alone).
    for (const group of chunkBounded(this.uploads.entries(), MAX_FILES_PER_CHANGE, MAX_CHANGE_FILE_BYTES, ([, upload]) => base64Length(upload.size))) {
      // The bytes are read by the sender when the batch leaves: a plan and the outbox stay small.
      const files: InsertFileInput[] = group.map(([path, u]) => ({ ref: u.ref, name: u.name, base64: `${FILE_BYTES_PLACEHOLDER}${path}` }))
      const change: ContentChange = { operation: 'insert_files', files }
      const entries: EntryUpdate[] = group.map(([path, u]) => ({ op: 'set', path, kind: 'file', ref: u.ref, hash: u.hash, state: 'pushed' }))
      const key = shortHash(JSON.stringify(change)) + shortHash(JSON.stringify(entries))
      if (this.s.input.refused.has(key)) {
        for (const [path] of group) this.s.report('refused', path, 'the service refused this upload before; it is sent again once the file changes')
        continue
      }
      planned.push({ key, change, entries, uses: [], defines: group.map(([, u]) => u.ref).join(' ') })
    }
    return planned
  }
}

function safeLinks(markdown: string) {
  try {
    return extractLinks(markdown)
  } catch {
    return []
  }
}

function decodeTarget(target: string): string {
  try {
    return decodeURI(target)
  } catch {
    return target
  }
}

/**
 * The link pre-flight run on a space folder as it is on disk: the I/O around `preflightLinks`. Reads
 * what sync up would read (content-names.ts): page files, `.gitbook/includes/`, `.gitbook/assets/`.
 * Synchronous and read-only: a space folder is hundreds of small files, and the app's header count
 * asks for it in one turn.
 */
import fs from 'node:fs'
import path from 'node:path'
import type { PushPlan } from '../push/push-types'
import { contentKind, folderReason } from '../workspace/content-names'
import { preflightLinks, type PreflightFinding, type PreflightInput } from './preflight'

/** Files read as text above this size are left out (sync up does not read them as pages either). */
const MAX_TEXT_BYTES = 8 * 1024 * 1024

/**
 * The space folder's content as the pre-flight takes it; an unreadable file is left out, never fatal.
 * `lazy`: the texts are read when the pre-flight asks for them (the pages it checks, the pages they
 * link to), the folder is only listed.
 */
export function readPreflightInput(folder: string, options: { lazy?: boolean; listing?: Iterable<string> } = {}): PreflightInput {
  const markdown = new Map<string, string>()
  const listed = new Map<string, string>()
  const files: string[] = []
  if (options.lazy && options.listing) {
    // The folder as the push's own scan just listed it: not walked again.
    for (const rel of options.listing) {
      const kind = contentKind(rel)
      if (kind === 'asset') files.push(rel)
      else if (kind !== undefined) listed.set(rel, path.join(folder, ...rel.split('/')))
    }
    return { markdown: new LazyTexts(listed), files }
  }
  const walk = (dir: string, relative: string) => {
    let entries: fs.Dirent[]
    try {
      entries = fs.readdirSync(dir, { withFileTypes: true })
    } catch {
      return
    }
    for (const entry of entries) {
      const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
      if (entry.isDirectory()) {
        if (folderReason(rel) === undefined) walk(path.join(dir, entry.name), rel)
        continue
      }
      if (!entry.isFile()) continue
      const kind = contentKind(rel)
      if (kind === undefined) continue
      if (kind === 'asset') {
        files.push(rel)
        continue
      }
      const full = path.join(dir, entry.name)
      if (options.lazy) listed.set(rel, full)
      else {
        const text = readText(full)
        if (text !== undefined) markdown.set(rel, text)
      }
    }
  }
  walk(folder, '')
  return { markdown: options.lazy ? new LazyTexts(listed) : markdown, files }
}

function readText(full: string): string | undefined {
  try {
    return fs.statSync(full).size <= MAX_TEXT_BYTES ? fs.readFileSync(full, 'utf8') : undefined
  } catch {
    // Gone or unreadable meanwhile: the next look has it.
    return undefined
  }
}

/** Markdown files by path, each read on its first `get`: a file too large or unreadable then reads as empty. */
class LazyTexts implements ReadonlyMap<string, string> {
  private readonly texts = new Map<string, string>()

  constructor(private readonly files: ReadonlyMap<string, string>) {}

  get size() {
    return this.files.size
  }

  has(key: string) {
    return this.files.has(key)
  }

  get(key: string): string | undefined {
    const full = this.files.get(key)
    if (full === undefined) return undefined
    let text = this.texts.get(key)
    if (text === undefined) this.texts.set(key, (text = readText(full) ?? ''))
    return text
  }

  keys() {
    return this.files.keys()
  }

  *entries(): MapIterator<[string, string]> {
    for (const key of this.files.keys()) yield [key, this.get(key)!]
  }

  *values(): MapIterator<string> {
    for (const key of this.files.keys()) yield this.get(key)!
  }

  forEach(callback: (value: string, key: string, map: ReadonlyMap<string, string>) => void) {
    for (const [key, value] of this.entries()) callback(value, key, this)
  }

  [Symbol.iterator]() {
    return this.entries()
  }
}

/** Broken links of the space folder's pages as they are now. */
export function localLinkFindings(folder: string): PreflightFinding[] {
  if (!fs.existsSync(folder)) return []
  return preflightLinks(readPreflightInput(folder))
}

/** What a push plan does to pages, as the pre-flight reads it: old path -> new path, and paths removed. */
export function pushMoves(plan: Pick<PushPlan, 'changes'>): { renamed: Map<string, string>; deleted: Set<string>; written: Set<string> } {
  const renamed = new Map<string, string>()
  const deleted = new Set<string>()
  const written = new Set<string>()
  for (const { change, entries } of plan.changes) {
    const set = entries.filter((e) => e.op === 'set').map((e) => e.path)
    const removed = entries.filter((e) => e.op === 'remove').map((e) => e.path)
    for (const p of set) written.add(p)
    if (change.operation === 'delete_page') for (const p of removed) deleted.add(p)
    else if (set.length === 1) for (const p of removed) if (p !== set[0]) renamed.set(p, set[0])
  }
  return { renamed, deleted, written }
}

/**
 * The broken links a push adds: those in the files it writes, and those anywhere that point into a
 * page it renames or deletes. The push is still sent; the writer decides.
 */
export function pushLinkFindings(folder: string, plan: Pick<PushPlan, 'changes'>, listing?: Iterable<string>): PreflightFinding[] {
  if (plan.changes.length === 0 || !fs.existsSync(folder)) return []
  const { renamed, deleted, written } = pushMoves(plan)
  // With no page renamed or deleted, only the written files can hold a link this push breaks: they alone
  // are checked (and the pages they link to read), not every page of a 20,000-page folder.
  if (renamed.size === 0 && deleted.size === 0) return preflightLinks({ ...readPreflightInput(folder, { lazy: true, listing }), only: written })
  const findings = preflightLinks({ ...readPreflightInput(folder), push: { renamed, deleted } })
  return findings.filter((f) => written.has(f.file) || f.moved !== undefined)
}

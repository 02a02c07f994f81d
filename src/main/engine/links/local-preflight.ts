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

/** The space folder's content as the pre-flight takes it; an unreadable file is left out, never fatal. */
export function readPreflightInput(folder: string): PreflightInput {
  const markdown = new Map<string, string>()
  const files: string[] = []
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
      try {
        const full = path.join(dir, entry.name)
        if (fs.statSync(full).size <= MAX_TEXT_BYTES) markdown.set(rel, fs.readFileSync(full, 'utf8'))
      } catch {
        // Gone or unreadable meanwhile: the next look has it.
      }
    }
  }
  walk(folder, '')
  return { markdown, files }
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
export function pushLinkFindings(folder: string, plan: Pick<PushPlan, 'changes'>): PreflightFinding[] {
  if (plan.changes.length === 0 || !fs.existsSync(folder)) return []
  const { renamed, deleted, written } = pushMoves(plan)
  const findings = preflightLinks({ ...readPreflightInput(folder), push: { renamed, deleted } })
  return findings.filter((f) => written.has(f.file) || f.moved !== undefined)
}

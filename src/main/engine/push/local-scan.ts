import type { Dirent, Stats } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { gitBlobOid, SUMMARY_FILE } from '../../content'
import { isIgnoredName } from '../watch/ignore'
import type { LocalFile } from './push-types'
import { ASSETS_PREFIX } from './push-planner'

interface Seen {
  mtimeMs: number
  size: number
  ino: number
  hash: string
}

export interface LocalScan {
  files: Map<string, LocalFile>
  summary?: string
}

/** Files larger than this are not read as pages (a stray export, not something to send as markdown). */
const MAX_PAGE_BYTES = 8 * 1024 * 1024

/**
 * Lists the files of a space folder that sync up cares about — page files (`*.md` outside `.gitbook/`)
 * and assets (`.gitbook/assets/**`) — with their git blob hashes. Hashes are remembered by
 * (mtime, size, inode) between scans, so a scan re-reads only files that changed; text is kept only
 * for the files the caller asks for.
 */
export class LocalScanner {
  private readonly seen = new Map<string, Seen>()

  constructor(readonly root: string) {}

  async scan(wantText: (path: string, hash: string) => boolean): Promise<LocalScan> {
    const files = new Map<string, LocalFile>()
    let summary: string | undefined
    const visit = async (dir: string, relative: string): Promise<void> => {
      let entries: Dirent[]
      try {
        entries = await fs.readdir(dir, { withFileTypes: true })
      } catch {
        return
      }
      for (const entry of entries) {
        if (isIgnoredName(entry.name)) continue
        const rel = relative === '' ? entry.name : `${relative}/${entry.name}`
        const full = path.join(dir, entry.name)
        if (entry.isDirectory()) {
          // Hidden folders are not content; of `.gitbook/` only the assets are.
          const wanted = rel.startsWith('.gitbook/') ? `${rel}/`.startsWith(ASSETS_PREFIX) : rel === '.gitbook' || !entry.name.startsWith('.')
          if (wanted) await visit(full, rel)
          continue
        }
        if (!entry.isFile()) continue
        const isAsset = rel.startsWith(ASSETS_PREFIX)
        const isPage = !rel.startsWith('.gitbook/') && /\.md$/i.test(entry.name)
        if (!isAsset && !isPage) continue
        const file = await this.read(full, rel, isPage, wantText)
        if (!file) continue
        if (rel === SUMMARY_FILE) summary = file.text
        files.set(rel, file)
      }
    }
    await visit(this.root, '')
    for (const known of this.seen.keys()) if (!files.has(known)) this.seen.delete(known)
    return { files, summary }
  }

  private async read(full: string, rel: string, isPage: boolean, wantText: (path: string, hash: string) => boolean): Promise<LocalFile | undefined> {
    let stat: Stats
    try {
      stat = await fs.stat(full)
    } catch {
      return undefined
    }
    if (isPage && stat.size > MAX_PAGE_BYTES) return undefined
    const seen = this.seen.get(rel)
    const unchanged = seen && seen.mtimeMs === stat.mtimeMs && seen.size === stat.size && seen.ino === stat.ino
    if (unchanged && !(isPage && (rel === SUMMARY_FILE || wantText(rel, seen.hash)))) return { hash: seen.hash, size: stat.size }
    let bytes: Buffer
    try {
      bytes = await fs.readFile(full)
    } catch {
      return undefined
    }
    const hash = gitBlobOid(bytes)
    this.seen.set(rel, { mtimeMs: stat.mtimeMs, size: bytes.byteLength, ino: stat.ino, hash })
    const text = isPage && (rel === SUMMARY_FILE || wantText(rel, hash)) ? bytes.toString('utf8') : undefined
    return { hash, size: bytes.byteLength, ...(text !== undefined ? { text } : {}) }
  }
}

import fs from 'node:fs'
import fsp from 'node:fs/promises'
import path from 'node:path'
import type { ConflictComparison, ConflictEntry } from '../../shared/contract'
import { type CacheRepository, type ConflictRow, type OutboxRepository, spaceFolderPath, writeFileAtomic } from '../engine'
import { AppError } from './errors'

/**
 * The writer's conflicts as the app shows and settles them. A conflict is a row of the outbox's
 * conflicts table: the file holds main's version (theirs), the conflicted copy beside it the writer's
 * own (mine). Settling one is done on disk, as the writer could do it by hand: keep mine puts the copy's
 * text in the file, keep theirs leaves the file; either way the copy goes. The session's next push sees
 * the copy gone and closes the row (and sends the kept edit as any other save), so nothing here writes
 * the outbox. Until then the list already leaves out a conflict whose copy is no longer on disk.
 */
export class Conflicts {
  constructor(
    private readonly deps: {
      cache: CacheRepository
      outbox: OutboxRepository
      workspace: () => string
      /** Runs the session's push of a space (the watcher would too, a little later). */
      push: (spaceId: string) => void
    },
  ) {}

  /** Open conflicts of the given spaces whose copy is still on disk. */
  list(spaceIds: readonly string[]): ConflictEntry[] {
    const wanted = new Set(spaceIds)
    const out: ConflictEntry[] = []
    for (const row of this.deps.outbox.conflicts()) {
      if (row.state !== 'open' || !wanted.has(row.spaceId)) continue
      const entry = this.entry(row)
      // Without a folder on disk there is nothing to look at; a copy the writer removed is settled.
      if (entry.copyFile && !fs.existsSync(entry.copyFile)) continue
      out.push(entry)
    }
    return out
  }

  async compare(spaceId: string, copyPath: string): Promise<ConflictComparison> {
    const { entry, file, copyFile } = this.located(spaceId, copyPath)
    const [theirs, mine] = await Promise.all([readText(file), readText(copyFile)])
    if (mine === undefined) throw new AppError('not-found', `The conflicted copy ${copyPath} is no longer there: the conflict is settled.`)
    return { ...entry, theirs: theirs ?? '', mine }
  }

  /** Keep mine or theirs; returns what the writer should read in the activity log. */
  async resolve(spaceId: string, copyPath: string, keep: 'mine' | 'theirs'): Promise<string> {
    const { entry, file, copyFile } = this.located(spaceId, copyPath)
    const mine = await readText(copyFile)
    if (mine === undefined) throw new AppError('not-found', `The conflicted copy ${copyPath} is no longer there: the conflict is settled.`)
    // The file first, the copy after: a crash between the two leaves the writer's words in both, never in neither.
    if (keep === 'mine') await writeFileAtomic(file, mine)
    await fsp.rm(copyFile, { force: true })
    this.deps.push(spaceId)
    const page = entry.pageTitle ? `${entry.pageTitle} (${entry.path})` : entry.path
    return keep === 'mine'
      ? `Kept your version of ${page} from ${copyPath}; it is sent to your change request`
      : `Kept main's version of ${page}; your conflicted copy ${copyPath} was removed`
  }

  private entry(row: ConflictRow): ConflictEntry {
    const space = this.deps.cache.space(row.spaceId)
    const folder = space ? spaceFolderPath(this.deps.cache, this.deps.workspace(), space) : undefined
    const title = row.pageId ? this.deps.cache.pageLocation(row.spaceId, row.pageId)?.title : undefined
    return {
      spaceId: row.spaceId,
      ...(space ? { spaceTitle: space.title } : {}),
      ...(row.pageId ? { pageId: row.pageId } : {}),
      ...(title ? { pageTitle: title } : {}),
      path: row.path,
      copyPath: row.copyPath,
      ...(folder ? { file: inFolder(folder, row.path), copyFile: inFolder(folder, row.copyPath) } : {}),
      detectedAt: row.detectedAt,
    }
  }

  /** Only a conflict the outbox knows can be compared or settled: never an arbitrary path. */
  private located(spaceId: string, copyPath: string): { entry: ConflictEntry; file: string; copyFile: string } {
    const row = this.deps.outbox.conflicts(spaceId).find((c) => c.copyPath === copyPath)
    if (!row) throw new AppError('not-found', `No conflict with the copy ${copyPath} is known in this space.`)
    if (row.state !== 'open') throw new AppError('conflict', `The conflicted copy ${copyPath} is still being written; try again after the next sync.`)
    const entry = this.entry(row)
    if (!entry.file || !entry.copyFile) throw new AppError('not-found', 'The space folder is not on disk.')
    return { entry, file: entry.file, copyFile: entry.copyFile }
  }
}

function inFolder(folder: string, relative: string): string {
  const full = path.join(folder, ...relative.split('/'))
  const inside = path.relative(folder, full)
  if (inside === '' || inside.startsWith('..') || path.isAbsolute(inside)) throw new AppError('invalid', `${relative} is not inside the space folder.`)
  return full
}

async function readText(file: string): Promise<string | undefined> {
  try {
    return await fsp.readFile(file, 'utf8')
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined
    throw error
  }
}

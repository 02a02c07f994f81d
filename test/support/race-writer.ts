import fs from 'node:fs'
import path from 'node:path'
import { CONFLICT_COPY } from '../../src/main/engine/push/push-types'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { arrangeSpace, editSpaceDirectly, page } from './content-fixtures'
import type { Rng } from './rng'
import type { TestService } from './service'

/**
 * The pieces of the writer-saves-during-a-pass race (issue 9, finding 3; issue 25, item 4) that every
 * front end's race test shares: a space of many pages all changed remotely, and a writer that saves one
 * unique line to each page file while Quire (another process) syncs it down: right while Quire writes
 * that very file (its temp file is there) when it can, otherwise at a random moment. It appends in place
 * (an editor paused between its open and its write) or saves by rename (SaveStyle). test/cli/sync-race.test.ts runs
 * it against `quire sync --once`, test/headless/serve-sync-race.test.ts against `quire serve`.
 */

/** The service takes at most 50 changes a batch. */
const BATCH = 50

/** One line the writer appended, and where. */
export interface Appended {
  /** The space folder. */
  root: string
  /** The page file's name in it. */
  file: string
  line: string
}

/** The page files of a (flat) race space's folder: no SUMMARY.md, no temp file, no conflicted copy. */
export const pageFiles = (root: string): string[] =>
  fs.readdirSync(root).filter((n) => n.endsWith('.md') && n !== 'SUMMARY.md' && !n.startsWith(TEMP_MARK) && !CONFLICT_COPY.test(n))

/** Quire's temp files left in a folder. */
export const tempFiles = (root: string): string[] => fs.readdirSync(root).filter((n) => n.startsWith(TEMP_MARK))

/** The page file a temp file stands for (`.quire-tmp-<12 hex>-<name>`). */
export const targetOf = (temp: string): string => temp.slice(TEMP_MARK.length + 13)

/** A turn of the event loop: the service in this process answers the Quire child meanwhile. */
export const turn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve))

/**
 * Makes race spaces in one organization ("Fixture org"): each call a new space titled `title` of
 * `pages` top-level pages (`page-<i>.md`), with its document page ids in order.
 */
export function raceSpaces(t: TestService, pages: number): (title: string) => Promise<{ spaceId: string; pageIds: string[] }> {
  let orgId: string | undefined
  return async (title) => {
    const inserts = Array.from({ length: pages }, (_, i) => page(`p${i}`, `# Page ${i}\n\nThe first text of page ${i}.\n`, { slug: `page-${i}` }))
    const { spaceId, orgId: org } = arrangeSpace(t.service, inserts.slice(0, BATCH), { title, ...(orgId ? { orgId } : {}) })
    orgId ??= org
    for (let i = BATCH; i < pages; i += BATCH) editSpaceDirectly(t.service, spaceId, inserts.slice(i, i + BATCH))
    const revision = (await t.api.call('getCurrentRevision', { params: { spaceId } })).body as { pages: Array<{ id: string; type: string }> }
    return { spaceId, pageIds: revision.pages.filter((p) => p.type === 'document').map((p) => p.id) }
  }
}

/** Someone else changes every page of the space on main, so the next pass downloads every one. */
export function changeEveryPage(t: TestService, spaceId: string, pageIds: readonly string[], round: number): void {
  const edits = pageIds.map((id, i) => ({ operation: 'update_page' as const, page: id, document: { markdown: `# Page ${i}\n\nRemote text of round ${round}.\n` } }))
  for (let i = 0; i < edits.length; i += BATCH) editSpaceDirectly(t.service, spaceId, edits.slice(i, i + BATCH))
}

/**
 * How the writer saves: 'append' opens the page file and appends its line (in place); 'rename' saves as
 * most editors do, the page's text and its line written to a new file renamed over the page file.
 */
export type SaveStyle = 'append' | 'rename'

/**
 * The writer of one round: saves a line to a page file at most once. `run` loops while `going()` says
 * so and a page is left: every page whose temp file is there gets its line as a paused save (counted in
 * `whileWritten`), and now and then (1 turn in 100, when `randomly()` allows) a random page gets one at
 * once; between polls a turn of the event loop. A save written at once rarely lands between Quire's look
 * at the file and its rename (with the put-back of late saves disabled, serve-sync-race lost a line in 2
 * of 12 runs); a paused one often does (4 of 6). An append is paused between its open and its write; a
 * rename-save reads the page and writes its new file at once, and renames it over the page at once or a
 * turn later (at random), so it lands before, inside or after Quire's own replacement of that page.
 */
export class RaceWriter {
  readonly appended: Appended[] = []
  /** Saves made while Quire's temp file for that very page was there. */
  whileWritten = 0
  /** Rename-saves renamed over the page after Quire's temp file for it was gone (Quire's version in place, or about to be). */
  overQuire = 0
  private readonly pending: Set<string>
  private saves = 0

  constructor(
    readonly root: string,
    private readonly round: number,
    private readonly r: Rng,
    readonly style: SaveStyle = 'append',
  ) {
    this.pending = new Set(pageFiles(root))
  }

  /** Pages not saved to yet. */
  get left(): number {
    return this.pending.size
  }

  /** Appends the file's line at once (open, write, close). */
  append(file: string): void {
    this.saved(file, (line) => fs.appendFileSync(path.join(this.root, file), line))
  }

  /**
   * Opens the file for appending now and writes its line after a turn of the event loop: an editor paused
   * between its open and its write. When Quire renames its new version over the file meanwhile, the line
   * goes into the file Quire replaced, which only Quire's hold on it can put back (issue 9's lost saves).
   */
  async appendPaused(files: readonly string[]): Promise<void> {
    const opened = files.map((file) => ({ file, fd: fs.openSync(path.join(this.root, file), 'a') }))
    await turn()
    for (const { file, fd } of opened) {
      this.saved(file, (line) => {
        try {
          fs.writeSync(fd, line)
        } finally {
          fs.closeSync(fd)
        }
      })
    }
  }

  /** Saves the file's text and its line by rename, at once. */
  renameSave(file: string): void {
    this.saved(file, (line) => this.renameOver(file, this.editorFile(file, line)))
  }

  /**
   * Rename-saves of files Quire is writing (`temps`: its temp file for each): each new file written now
   * from the page's text, renamed over the page now or after a turn of the event loop (at random).
   */
  async renameSavePaused(temps: ReadonlyMap<string, string>): Promise<void> {
    const later: Array<() => void> = []
    for (const [file, temp] of temps) {
      const line = this.lineOf(file)
      const saving = this.editorFile(file, line)
      const save = () => {
        if (!fs.existsSync(path.join(this.root, temp))) this.overQuire++
        this.renameOver(file, saving)
        this.record(file, line)
      }
      if (this.r.chance(0.5)) save()
      else later.push(save)
    }
    if (later.length === 0) return
    await turn()
    for (const save of later) save()
  }

  /** The editor's new file for `file`: the page's text as it is now and `line`. */
  private editorFile(file: string, line: string): string {
    const saving = path.join(this.root, `.${file}.${this.saves++}.swp`)
    fs.writeFileSync(saving, this.textOf(file) + line)
    return saving
  }

  private renameOver(file: string, saving: string): void {
    fs.renameSync(saving, path.join(this.root, file))
  }

  /**
   * The page's text. Quire moves a file aside for microseconds while it replaces it: a read in that
   * moment finds nothing and is tried again (an editor reloading the file would do the same).
   */
  private textOf(file: string): string {
    for (let attempt = 0; ; attempt++) {
      try {
        return fs.readFileSync(path.join(this.root, file), 'utf8')
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'ENOENT' || attempt >= 10_000) throw error
      }
    }
  }

  private lineOf(file: string): string {
    return `${this.style === 'rename' ? 'saved' : 'appended'} in round ${this.round} to ${file}\n`
  }

  private record(file: string, line: string): void {
    this.appended.push({ root: this.root, file, line })
    this.pending.delete(file)
  }

  private saved(file: string, write: (line: string) => void): void {
    const line = this.lineOf(file)
    write(line)
    this.record(file, line)
  }

  async run(going: () => boolean, randomly: () => boolean = () => true): Promise<void> {
    while (going() && this.pending.size > 0) {
      // Files Quire is writing right now (their temp files are there): saved in the middle of those writes.
      const temps = new Map<string, string>()
      for (const name of fs.readdirSync(this.root)) if (name.startsWith(TEMP_MARK) && this.pending.has(targetOf(name))) temps.set(targetOf(name), name)
      for (const file of temps.keys()) this.pending.delete(file)
      this.whileWritten += temps.size
      if (randomly() && this.r.chance(0.01) && this.pending.size > 0) {
        const file = this.r.pick([...this.pending])
        if (this.style === 'rename') this.renameSave(file)
        else this.append(file)
      }
      // The paused saves' turn is the loop's turn: the service in this process answers Quire meanwhile.
      if (temps.size === 0) await turn()
      else if (this.style === 'rename') await this.renameSavePaused(temps)
      else await this.appendPaused([...temps.keys()])
    }
  }
}

/** The files that may hold a line appended to `file`: the file itself and its conflicted copies beside it. */
export function holdersOnDisk(root: string, file: string): string[] {
  const stem = file.replace(/\.md$/, '')
  return fs.readdirSync(root).filter((n) => n === file || (n.startsWith(`${stem} (conflicted copy `) && CONFLICT_COPY.test(n)))
}

/** Whether the line is in its file or in a conflicted copy of it; `where` names the files looked at. */
export function keptOnDisk({ root, file, line }: Appended): { kept: boolean; where: string[] } {
  const where = holdersOnDisk(root, file)
  return { kept: where.some((n) => fs.readFileSync(path.join(root, n), 'utf8').includes(line)), where }
}

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { executePlan, type ExecutionResult, type SpaceFiles } from '../../src/main/engine/sync/executor'
import type { EntryKind, JournalEntry, SyncAction } from '../../src/main/engine/sync/plan-types'
import { syncSpace } from '../../src/main/engine/sync/space-sync'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { holdPath } from '../../src/main/engine/workspace/temp-names'
import { SpaceFolder, type SpaceFolderOptions } from '../../src/main/engine/workspace/space-folder'
import { editSpaceDirectly } from '../support/content-fixtures'
import { removeWorkstation, seededWorkstation, serviceForFile } from './sync-up/support/hooks'
import { mainRevision, openChangeRequests, pagesOf, SEED_PAGES, type Workstation } from './sync-up/support/workspace'

/**
 * A writer saves while a sync pass runs. The executor checks a file, then writes, renames or deletes it;
 * a save that lands between the two must survive, and the page must stay a local edit for sync up.
 */

const BASE = '# Page\n\nThe base text.\n'
const REMOTE = '# Page\n\nThe remote text.\n'
const SAVED = 'A line the writer saved during the pass.\n'

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-race-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const file = (relative: string) => path.join(dir, ...relative.split('/'))
const read = (relative: string) => fs.readFileSync(file(relative), 'utf8')
const write = (relative: string, text: string) => {
  fs.mkdirSync(path.dirname(file(relative)), { recursive: true })
  fs.writeFileSync(file(relative), text)
}
const tempFiles = () => (fs.readdirSync(dir, { recursive: true }) as string[]).filter((n) => path.basename(n).startsWith(TEMP_MARK))

/**
 * The real space folder, with the writer's save made when the executor hands it a step: after the
 * executor's own check of the file, before the folder renames or deletes anything.
 */
class SaveOnStep implements SpaceFiles {
  readonly saves: string[] = []
  constructor(
    private readonly folder: SpaceFolder,
    private readonly save: (step: 'write' | 'rename' | 'remove', relative: string) => void,
  ) {}
  hash(relative: string) {
    return this.folder.hash(relative)
  }
  isAbsent(relative: string) {
    return this.folder.isAbsent(relative)
  }
  write(relative: string, data: Uint8Array, expect: string | undefined) {
    this.save('write', relative)
    return this.folder.write(relative, data, expect)
  }
  rename(from: string, to: string, expect: string) {
    this.save('rename', from)
    return this.folder.rename(from, to, expect)
  }
  remove(relative: string, expect: string) {
    this.save('remove', relative)
    return this.folder.remove(relative, expect)
  }
  flush() {
    return this.folder.flush()
  }
  lateSaves() {
    return this.folder.lateSaves()
  }
}

async function run(actions: SyncAction[], files: SpaceFiles, onStep?: () => void): Promise<{ result: ExecutionResult; journal: Map<string, JournalEntry | null> }> {
  const journal = new Map<string, JournalEntry | null>()
  const result = await executePlan(
    { revision: 'r2', actions, notices: [] },
    {
      files,
      ...(onStep ? { onStep } : {}),
      source: { page: () => Promise.reject(new Error('no download in this test')), file: () => Promise.reject(new Error('no download in this test')) },
      journal: { record: (e) => journal.set(e.id, e), forget: (id: string, _kind: EntryKind) => journal.set(id, null) },
    },
  )
  return { result, journal }
}

const download = (path: string, expect: string | undefined): SyncAction => ({
  type: 'download',
  id: 'p1',
  kind: 'page',
  path,
  oid: gitBlobOid(REMOTE),
  content: REMOTE,
  ...(expect !== undefined ? { expect } : {}),
})

describe('a save between the executor check and the rename is never overwritten', () => {
  it('a download over an edited file keeps the writer bytes, skips the step and leaves the journal alone', async () => {
    write('guide/page.md', BASE)
    const files = new SaveOnStep(new SpaceFolder(dir), (_, relative) => fs.appendFileSync(file(relative), SAVED))
    const { result, journal } = await run([download('guide/page.md', gitBlobOid(BASE))], files)
    expect(read('guide/page.md')).toBe(BASE + SAVED)
    expect(result.done).toBe(0)
    expect(result.skipped).toEqual([{ action: expect.objectContaining({ path: 'guide/page.md' }), reason: 'guide/page.md changed locally' }])
    expect(journal.size).toBe(0)
    expect(tempFiles()).toEqual([])
  })

  it('a download to a free place does not replace a file the writer created there meanwhile', async () => {
    const files = new SaveOnStep(new SpaceFolder(dir), (_, relative) => write(relative, SAVED))
    const { result, journal } = await run([download('new/page.md', undefined)], files)
    expect(read('new/page.md')).toBe(SAVED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['new/page.md appeared locally'])
    expect(journal.size).toBe(0)
    expect(tempFiles()).toEqual([])
  })

  it('a deletion keeps a file the writer saved meanwhile', async () => {
    write('old.md', BASE)
    const files = new SaveOnStep(new SpaceFolder(dir), (_, relative) => fs.appendFileSync(file(relative), SAVED))
    const { result, journal } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'old.md', baseHash: gitBlobOid(BASE) }], files)
    expect(read('old.md')).toBe(BASE + SAVED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['old.md changed locally'])
    expect(journal.size).toBe(0)
  })

  it('a move neither loses a save at its source nor replaces a file created at its target', async () => {
    write('a.md', BASE)
    const move: SyncAction = { type: 'move', id: 'p1', kind: 'page', from: 'a.md', to: 'sub/b.md', oid: 'o1', baseHash: gitBlobOid(BASE) }
    // The source saved: it stays where the writer has it open, as they saved it.
    const saveSource = new SaveOnStep(new SpaceFolder(dir), (_, relative) => fs.appendFileSync(file(relative), SAVED))
    const first = await run([move], saveSource)
    expect(read('a.md')).toBe(BASE + SAVED)
    expect(fs.existsSync(file('sub'))).toBe(false)
    expect(first.result.skipped.map((s) => s.reason)).toEqual(['a.md changed locally'])

    // A new file at the target: not replaced by the move.
    write('a.md', BASE)
    const createTarget = new SaveOnStep(new SpaceFolder(dir), () => write('sub/b.md', SAVED))
    const second = await run([move], createTarget)
    expect(read('sub/b.md')).toBe(SAVED)
    expect(read('a.md')).toBe(BASE)
    expect(second.result.skipped.map((s) => s.reason)).toEqual(['sub/b.md appeared locally'])
    expect(second.journal.size).toBe(0)
  })

  it('an unedited file is still written, moved and deleted (the checks pass)', async () => {
    write('a.md', BASE)
    write('b.md', BASE)
    write('c.md', BASE)
    const folder = new SpaceFolder(dir)
    const { result } = await run(
      [
        { type: 'delete', id: 'p3', kind: 'page', path: 'c.md', baseHash: gitBlobOid(BASE) },
        { type: 'move', id: 'p2', kind: 'page', from: 'b.md', to: 'moved/b.md', oid: 'o', baseHash: gitBlobOid(BASE) },
        download('a.md', gitBlobOid(BASE)),
        { ...download('fresh/new.md', undefined), id: 'p4' },
      ],
      folder,
    )
    expect(result).toMatchObject({ done: 4, skipped: [], failed: [] })
    expect(read('a.md')).toBe(REMOTE)
    expect(read('moved/b.md')).toBe(BASE)
    expect(read('fresh/new.md')).toBe(REMOTE)
    expect(fs.existsSync(file('c.md'))).toBe(false)
    expect(fs.existsSync(file('b.md'))).toBe(false)
    expect(tempFiles()).toEqual([])
  })
})

describe('the last check sits right before the rename', () => {
  /** The folder with a save made at one of its own moments, once. */
  const savingFolder = (moment: keyof SpaceFolderOptions, save: () => void) => {
    let saved = false
    const once = () => {
      if (!saved) save()
      saved = true
    }
    return new SpaceFolder(dir, { [moment]: once })
  }

  it('a save while the temp file was written (after the executor check) is kept', async () => {
    write('page.md', BASE)
    const folder = savingFolder('beforeCommit', () => fs.appendFileSync(file('page.md'), SAVED))
    const { result } = await run([download('page.md', gitBlobOid(BASE))], folder)
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(result.skipped).toHaveLength(1)
    expect(tempFiles()).toEqual([])
  })

  it('a save after the folder read the file and found it unchanged is caught by the stat check before the rename', async () => {
    write('page.md', BASE)
    const folder = savingFolder('afterCheck', () => fs.appendFileSync(file('page.md'), SAVED))
    const { result } = await run([download('page.md', gitBlobOid(BASE))], folder)
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
  })

  it('an editor-style save (new file renamed over the old) after the check is caught too, for a deletion', async () => {
    write('page.md', BASE)
    const folder = savingFolder('afterCheck', () => {
      // Same size and content length as before: only the inode and times tell it apart.
      const edited = BASE.replace('base', 'BASE')
      fs.writeFileSync(file('.page.md.swp'), edited)
      fs.renameSync(file('.page.md.swp'), file('page.md'))
    })
    const { result } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'page.md', baseHash: gitBlobOid(BASE) }], folder)
    expect(read('page.md')).toBe(BASE.replace('base', 'BASE'))
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
  })
})

describe('a save that reaches the file inside the last window (between the final lstat and the rename or unlink)', () => {
  const inWindow = (save: () => void) => {
    let saved = false
    return new SpaceFolder(dir, {
      inWindow: () => {
        if (!saved) save()
        saved = true
      },
    })
  }

  it('is read back from the replaced file and put back in place: a download', async () => {
    write('page.md', BASE)
    const { result, journal } = await run([download('page.md', gitBlobOid(BASE))], inWindow(() => fs.appendFileSync(file('page.md'), SAVED)))
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
    expect(journal.size).toBe(0)
    expect(tempFiles()).toEqual([])
    expect(fs.readdirSync(dir)).toEqual(['page.md'])
  })

  it('is put back in place: a deletion', async () => {
    write('page.md', BASE)
    const { result } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'page.md', baseHash: gitBlobOid(BASE) }], inWindow(() => fs.appendFileSync(file('page.md'), SAVED)))
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
    expect(tempFiles()).toEqual([])
  })

  it('a move carries it along (the moved file is the one saved into)', async () => {
    write('a.md', BASE)
    const { result } = await run(
      [{ type: 'move', id: 'p1', kind: 'page', from: 'a.md', to: 'b.md', oid: 'o', baseHash: gitBlobOid(BASE) }],
      inWindow(() => fs.appendFileSync(file('a.md'), SAVED)),
    )
    expect(read('b.md')).toBe(BASE + SAVED)
    // Journaled at the new place with the old base: the appended line is a local edit for sync up.
    expect(result.done).toBe(1)
  })
})

describe('an editor save by rename (a new file renamed over the name) inside the last window', () => {
  const EDITED = BASE.replace('base', 'edited')
  /** The folder, with the editor's rename-save made after the final lstat, right before the step, once. */
  const renameInWindow = () => {
    let saved = false
    return new SpaceFolder(dir, {
      inWindow: (_operation, relative) => {
        if (saved) return
        saved = true
        fs.writeFileSync(file(`${relative}.swp`), EDITED)
        fs.renameSync(file(`${relative}.swp`), file(relative))
      },
    })
  }

  it('a download does not replace it: the save stays at its name, the step is skipped, the journal left alone', async () => {
    write('guide/page.md', BASE)
    const { result, journal } = await run([{ ...download('guide/page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction], renameInWindow())
    expect(read('guide/page.md')).toBe(EDITED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['guide/page.md changed locally'])
    expect(journal.size).toBe(0)
    expect(tempFiles()).toEqual([])
    expect(fs.readdirSync(file('guide'))).toEqual(['page.md'])
  })

  it('a deletion does not remove it', async () => {
    write('guide/page.md', BASE)
    const { result, journal } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'guide/page.md', baseHash: gitBlobOid(BASE), journaledOid: 'old-oid' }], renameInWindow())
    expect(read('guide/page.md')).toBe(EDITED)
    expect(result.skipped.map((s) => s.reason)).toEqual(['guide/page.md changed locally'])
    expect(journal.size).toBe(0)
    expect(tempFiles()).toEqual([])
  })
})

describe('an editor save by rename that lands after the step, made from the text the step replaced', () => {
  /** After the step (the executor's onStep), the editor renames `text` over the page, once. */
  const renameAfterStep = (relative: string, text: string) => {
    let saved = false
    return () => {
      if (saved) return
      saved = true
      fs.writeFileSync(file(`${relative}.swp`), text)
      fs.renameSync(file(`${relative}.swp`), file(relative))
    }
  }

  it('undoes a download: the save stays, the journal records the old entry again (a local edit of the old text)', async () => {
    write('page.md', BASE)
    const { result, journal } = await run([{ ...download('page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction], new SpaceFolder(dir), renameAfterStep('page.md', BASE + SAVED))
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(journal.get('p1')).toEqual({ id: 'p1', kind: 'page', path: 'page.md', oid: 'old-oid', baseHash: gitBlobOid(BASE) })
    expect(result.done).toBe(0)
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
    expect(tempFiles()).toEqual([])
  })

  it('undoes a deletion the same way', async () => {
    write('page.md', BASE)
    const { result, journal } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'page.md', baseHash: gitBlobOid(BASE), journaledOid: 'old-oid' }], new SpaceFolder(dir), renameAfterStep('page.md', BASE + SAVED))
    expect(read('page.md')).toBe(BASE + SAVED)
    expect(journal.get('p1')).toEqual({ id: 'p1', kind: 'page', path: 'page.md', oid: 'old-oid', baseHash: gitBlobOid(BASE) })
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally'])
  })

  it('a save of the very bytes the step wrote (an editor that reloaded them) leaves the step standing', async () => {
    write('page.md', BASE)
    const { result, journal } = await run([{ ...download('page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction], new SpaceFolder(dir), renameAfterStep('page.md', REMOTE))
    expect(read('page.md')).toBe(REMOTE)
    expect(result.done).toBe(1)
    expect(journal.get('p1')).toMatchObject({ oid: gitBlobOid(REMOTE), baseHash: gitBlobOid(REMOTE) })
  })

  it('a file a later step of the same pass puts at the name is no save: a page deleted and another downloaded to its name', async () => {
    write('page.md', BASE)
    const { result, journal } = await run(
      [
        { type: 'delete', id: 'p1', kind: 'page', path: 'page.md', baseHash: gitBlobOid(BASE), journaledOid: 'old-oid' },
        { ...download('page.md', undefined), id: 'p2' },
      ],
      new SpaceFolder(dir),
    )
    expect(read('page.md')).toBe(REMOTE)
    expect(result).toMatchObject({ done: 2, skipped: [] })
    expect(journal.get('p1')).toBe(null)
    expect(journal.get('p2')).toMatchObject({ path: 'page.md', oid: gitBlobOid(REMOTE) })
  })
})

describe('what a killed step left moved aside is settled by the next pass', () => {
  /** A hold as a step leaves it: the file at `relative` renamed aside, named for the inode it checked. */
  const holdOf = (relative: string, checkedIno: bigint) => holdPath(file(relative), checkedIno)!

  it('nothing at the name (killed between the move aside and the link): the held file goes back, the page is not lost', async () => {
    write('guide/page.md', BASE)
    const ino = fs.statSync(file('guide/page.md'), { bigint: true }).ino
    fs.renameSync(file('guide/page.md'), holdOf('guide/page.md', ino))
    await new SpaceFolder(dir).removeStaleTempFiles()
    expect(read('guide/page.md')).toBe(BASE)
    expect(tempFiles()).toEqual([])
  })

  it('the name holds the new file (killed before the hold was removed): the checked file is dropped', async () => {
    write('page.md', BASE)
    const ino = fs.statSync(file('page.md'), { bigint: true }).ino
    fs.renameSync(file('page.md'), holdOf('page.md', ino))
    write('page.md', REMOTE)
    await new SpaceFolder(dir).removeStaleTempFiles()
    expect(fs.readdirSync(dir)).toEqual(['page.md'])
    expect(read('page.md')).toBe(REMOTE)
  })

  it('a writer save held and the name taken since: the save goes to a conflicted copy', async () => {
    write('page.md', BASE + SAVED)
    // Not the inode the step checked: a save renamed over the name just before the step moved it aside.
    fs.renameSync(file('page.md'), holdOf('page.md', 1n))
    write('page.md', REMOTE)
    await new SpaceFolder(dir, { now: () => new Date(2026, 0, 31, 9, 36, 12) }).removeStaleTempFiles()
    expect(fs.readdirSync(dir).sort()).toEqual(['page (conflicted copy 2026-01-31 093612).md', 'page.md'])
    expect(read('page (conflicted copy 2026-01-31 093612).md')).toBe(BASE + SAVED)
    expect(read('page.md')).toBe(REMOTE)
  })
})

describe('a save begun before the step and written after it (the writer opened the file, then paused)', () => {
  /**
   * The writer opens the file inside the last window (before the rename or unlink) and writes only once
   * the step is over and recorded: the bytes reach the replaced file, which nothing names any more.
   */
  const openedBefore = () => {
    let fd: number | undefined
    let wrote = false
    const folder = new SpaceFolder(dir, {
      inWindow: (_operation, relative) => {
        if (!wrote) fd ??= fs.openSync(file(relative), 'a')
      },
    })
    const writeLate = () => {
      if (fd === undefined || wrote) return
      fs.writeSync(fd, SAVED)
      fs.closeSync(fd)
      wrote = true
    }
    return { folder, writeLate, wrote: () => wrote }
  }

  it('a download: the writer bytes go back in place, the journal records the old entry again, the step counts as skipped', async () => {
    write('guide/page.md', BASE)
    const writer = openedBefore()
    const action: SyncAction = { ...download('guide/page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction
    const { result, journal } = await run([action], writer.folder, writer.writeLate)
    expect(writer.wrote()).toBe(true)
    expect(read('guide/page.md')).toBe(BASE + SAVED)
    expect(journal.get('p1')).toEqual({ id: 'p1', kind: 'page', path: 'guide/page.md', oid: 'old-oid', baseHash: gitBlobOid(BASE) })
    expect(result.done).toBe(0)
    expect(result.skipped.map((s) => s.reason)).toEqual(['guide/page.md changed locally'])
    expect(tempFiles()).toEqual([])
    expect(fs.readdirSync(file('guide'))).toEqual(['page.md'])
  })

  it('a deletion: the file comes back with the writer bytes, in its folder though the step had pruned it, and is journaled again', async () => {
    write('guide/page.md', BASE)
    const writer = openedBefore()
    const { result, journal } = await run([{ type: 'delete', id: 'p1', kind: 'page', path: 'guide/page.md', baseHash: gitBlobOid(BASE), journaledOid: 'old-oid' }], writer.folder, writer.writeLate)
    expect(writer.wrote()).toBe(true)
    expect(read('guide/page.md')).toBe(BASE + SAVED)
    expect(journal.get('p1')).toEqual({ id: 'p1', kind: 'page', path: 'guide/page.md', oid: 'old-oid', baseHash: gitBlobOid(BASE) })
    expect(result.skipped.map((s) => s.reason)).toEqual(['guide/page.md changed locally'])
  })

  it('when the name holds a newer save by then, the late bytes go to a conflicted copy, the newer save stays, and the step is undone', async () => {
    write('page.md', BASE)
    const writer = openedBefore()
    const newer = '# Page\n\nSaved again, by an editor, after the pass wrote the page.\n'
    const { result, journal } = await run([{ ...download('page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction], writer.folder, () => {
      writer.writeLate()
      fs.writeFileSync(file('.page.md.swp'), newer)
      fs.renameSync(file('.page.md.swp'), file('page.md'))
    })
    expect(read('page.md')).toBe(newer)
    const copies = fs.readdirSync(dir).filter((n) => n.startsWith('page (conflicted copy '))
    expect(copies).toHaveLength(1)
    expect(read(copies[0])).toBe(BASE + SAVED)
    // The newer save was renamed over what the step wrote, by a writer who had the old text: it is their
    // edit of that text, so the journal records the old entry again (sync up merges it with the remote).
    expect(journal.get('p1')).toEqual({ id: 'p1', kind: 'page', path: 'page.md', oid: 'old-oid', baseHash: gitBlobOid(BASE) })
    expect(result.skipped.map((s) => s.reason)).toEqual(['page.md changed locally (kept in a conflicted copy)'])
  })

  it('no save: the replaced file is let go and the step stands', async () => {
    write('page.md', BASE)
    const { result, journal } = await run([{ ...download('page.md', gitBlobOid(BASE)), journaledOid: 'old-oid' } as SyncAction], new SpaceFolder(dir))
    expect(read('page.md')).toBe(REMOTE)
    expect(result.done).toBe(1)
    expect(journal.get('p1')).toMatchObject({ oid: gitBlobOid(REMOTE) })
  })
})

describe('a page the writer saved during a pass goes the conflict way, nothing lost', () => {
  const t = serviceForFile()
  let ws: Workstation
  beforeEach(async () => {
    ws = await seededWorkstation(t, 'quire-race-up-')
    await ws.pull()
  })
  afterEach(() => removeWorkstation(ws))

  it('the next push carries the writer version or keeps it in a conflicted copy, and main keeps the remote edit', async () => {
    const spaceId = ws.seeded.spaceId
    const faq = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    const remoteText = '# FAQ\n\nQuestions, answered on the service.\n'
    editSpaceDirectly(t.service, spaceId, [{ operation: 'update_page', page: faq, document: { markdown: remoteText } }])

    const saved = `${SEED_PAGES.faq}Saved by the writer while the pass wrote this page.\n`
    let saves = 0
    const outcome = await syncSpace(ws.cache.space(spaceId)!, ws.folder, {
      cache: ws.cache,
      gateway: ws.gateway,
      refreshLinks: false,
      folder: {
        beforeCommit: (_, relative) => {
          if (relative !== 'faq.md') return
          saves++
          fs.writeFileSync(ws.file('faq.md'), saved)
        },
      },
    })
    expect(saves).toBe(1)
    expect(ws.read('faq.md')).toBe(saved)
    expect(outcome.state).toBe('conflict')
    expect(outcome.issues).toEqual([expect.objectContaining({ kind: 'local-edit', path: 'faq.md' })])

    const push = await ws.push()
    expect(push.failures).toEqual([])
    // The writer's text is on disk (in the file or its conflicted copy) and, when not kept in a copy,
    // in the change request.
    const folderFiles = fs.readdirSync(ws.folder)
    const copies = folderFiles.filter((n) => n.startsWith('faq (conflicted copy '))
    const onDisk = [fs.readFileSync(ws.file('faq.md'), 'utf8'), ...copies.map((c) => fs.readFileSync(ws.file(c), 'utf8'))]
    expect(onDisk).toContain(saved)
    const crs = await openChangeRequests(t.api, spaceId)
    const carried = await Promise.all(
      crs.map(
        async (cr) =>
          (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: cr.id, pageId: faq }, query: { format: 'markdown' } })).body.markdown as string,
      ),
    )
    expect(copies.length > 0 || carried.includes(saved), `copies ${copies.join(', ')}; change requests carry ${JSON.stringify(carried)}`).toBe(true)
    // The remote edit stays on main.
    const mainFaq = (await t.api.call('getPageById', { params: { spaceId, pageId: faq }, query: { format: 'markdown' } })).body.markdown as string
    expect(mainFaq).toBe(remoteText)
  })

  it('a save renamed over the page right after the pass wrote it, from the old text: the push merges it with the remote edit, neither losing it nor undoing that edit', async () => {
    const spaceId = ws.seeded.spaceId
    const faq = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    const remoteText = '# FAQ\n\nQuestions, answered on the service.\n'
    editSpaceDirectly(t.service, spaceId, [{ operation: 'update_page', page: faq, document: { markdown: remoteText } }])

    const added = 'A paragraph the writer added to the text they had open.'
    let saves = 0
    const outcome = await syncSpace(ws.cache.space(spaceId)!, ws.folder, {
      cache: ws.cache,
      gateway: ws.gateway,
      refreshLinks: false,
      // Right after the pass wrote the page, the editor saves its buffer (the old text) by rename.
      onStep: ({ action }) => {
        if (action.type !== 'download' || action.path !== 'faq.md' || saves++ > 0) return
        fs.writeFileSync(ws.file('.faq.md.swp'), `${SEED_PAGES.faq}\n${added}\n`)
        fs.renameSync(ws.file('.faq.md.swp'), ws.file('faq.md'))
      },
    })
    expect(saves).toBe(1)
    expect(ws.read('faq.md')).toBe(`${SEED_PAGES.faq}\n${added}\n`)
    expect(outcome.issues).toEqual([expect.objectContaining({ kind: 'local-edit', path: 'faq.md' })])

    const push = await ws.push()
    expect(push.failures).toEqual([])
    const copies = fs.readdirSync(ws.folder).filter((n) => n.startsWith('faq (conflicted copy '))
    const crs = await openChangeRequests(t.api, spaceId)
    const carried = await Promise.all(
      crs.map(
        async (cr) =>
          (await t.api.call('getPageInChangeRequestById', { params: { spaceId, changeRequestId: cr.id, pageId: faq }, query: { format: 'markdown' } })).body.markdown as string,
      ),
    )
    const onDisk = [ws.read('faq.md'), ...copies.map((c) => fs.readFileSync(ws.file(c), 'utf8'))]
    // The paragraph is kept, and what goes to the change request keeps the remote edit.
    expect(onDisk.some((text) => text.includes(added)) || carried.some((text) => text.includes(added)), JSON.stringify({ onDisk, carried })).toBe(true)
    for (const text of carried) expect(text).toContain('Questions, answered on the service.')
    expect(carried.some((text) => text.includes(added)) || copies.length > 0, JSON.stringify({ copies, carried })).toBe(true)
    const mainFaq = (await t.api.call('getPageById', { params: { spaceId, pageId: faq }, query: { format: 'markdown' } })).body.markdown as string
    expect(mainFaq).toBe(remoteText)
  })
})

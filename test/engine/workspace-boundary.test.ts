import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { executePlan } from '../../src/main/engine/sync/executor'
import type { SyncAction } from '../../src/main/engine/sync/plan-types'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { SpaceFolder, WorkspaceBoundaryError } from '../../src/main/engine/workspace/space-folder'
import { editSpaceDirectly } from '../support/content-fixtures'
import { removeWorkstation, seededWorkstation, serviceForFile } from './sync-up/support/hooks'
import { mainRevision, pagesOf, SEED_PAGES, type Workstation } from './sync-up/support/workspace'

/**
 * Symbolic links in a space folder never carry a write, move or deletion outside it: the folder an
 * operation lands in is resolved on disk, and a link at the name itself is not written through.
 */

const OUTSIDE_TEXT = '# Outside\n\nNot part of any space.\n'
const NEW = new TextEncoder().encode('# New\n\nFrom the service.\n')

let base: string
let root: string
let outside: string
beforeEach(() => {
  base = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-boundary-'))
  root = path.join(base, 'space')
  outside = path.join(base, 'outside')
  fs.mkdirSync(root)
  fs.mkdirSync(path.join(outside, 'nested'), { recursive: true })
  fs.writeFileSync(path.join(outside, 'a.md'), OUTSIDE_TEXT)
  fs.writeFileSync(path.join(outside, 'nested', 'b.md'), OUTSIDE_TEXT)
})
afterEach(() => fs.rmSync(base, { recursive: true, force: true }))

/** Every entry under `dir` with its bytes (folders and links marked), to prove nothing changed. */
function snapshot(dir: string): Record<string, string> {
  const out: Record<string, string> = {}
  const walk = (current: string) => {
    for (const entry of fs.readdirSync(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      const key = path.relative(dir, full)
      if (entry.isSymbolicLink()) out[key] = `link -> ${fs.readlinkSync(full)}`
      else if (entry.isDirectory()) {
        out[key] = 'folder'
        walk(full)
      } else out[key] = `${fs.statSync(full).mtimeMs} ${fs.readFileSync(full, 'base64')}`
    }
  }
  walk(dir)
  return out
}

const hash = gitBlobOid(OUTSIDE_TEXT)

describe('a folder in the space that is a link to outside it', () => {
  beforeEach(() => fs.symlinkSync(outside, path.join(root, 'integrations'), 'dir'))

  it('no write, new file, new subfolder, move or deletion goes through it; the outside folder stays byte-identical', async () => {
    const before = snapshot(outside)
    const folder = new SpaceFolder(root)
    fs.writeFileSync(path.join(root, 'inside.md'), OUTSIDE_TEXT)
    const attempts: Array<[string, () => Promise<void>]> = [
      ['write over a file', () => folder.write('integrations/a.md', NEW, hash)],
      ['write a new file', () => folder.write('integrations/new.md', NEW, undefined)],
      ['write into a new subfolder', () => folder.write('integrations/deeper/new.md', NEW, undefined)],
      ['write in a folder below', () => folder.write('integrations/nested/b.md', NEW, hash)],
      ['move out of it', () => folder.rename('integrations/a.md', 'moved.md', hash)],
      ['move into it', () => folder.rename('inside.md', 'integrations/inside.md', hash)],
      ['delete in it', () => folder.remove('integrations/a.md', hash)],
      ['delete below it', () => folder.remove('integrations/nested/b.md', hash)],
    ]
    for (const [what, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, what).toBeInstanceOf(WorkspaceBoundaryError)
      expect((error as Error).message, what).toMatch(/integrations is a symbolic link that leads outside the space folder/)
    }
    expect(snapshot(outside)).toEqual(before)
    expect(fs.readFileSync(path.join(root, 'inside.md'), 'utf8')).toBe(OUTSIDE_TEXT)
    expect(fs.readdirSync(root).sort()).toEqual(['inside.md', 'integrations'])
  })

  it('in a pass, each refused step is a failed step naming the path; the other steps are done', async () => {
    const before = snapshot(outside)
    const actions: SyncAction[] = [
      { type: 'download', id: 'p1', kind: 'page', path: 'integrations/a.md', oid: gitBlobOid(NEW), content: new TextDecoder().decode(NEW), expect: hash },
      { type: 'delete', id: 'p2', kind: 'page', path: 'integrations/nested/b.md', baseHash: hash },
      { type: 'download', id: 'p3', kind: 'page', path: 'fine.md', oid: gitBlobOid(NEW), content: new TextDecoder().decode(NEW) },
    ]
    const { result, recorded } = await passOver(actions)
    expect(result.done).toBe(1)
    expect(result.failed.map((f) => f.error)).toEqual([
      expect.stringMatching(/^integrations\/nested\/b\.md: integrations is a symbolic link that leads outside the space folder \(to .*\); Quire does not delete through it$/),
      expect.stringMatching(/^integrations\/a\.md: integrations is a symbolic link that leads outside the space folder \(to .*\); Quire does not write through it$/),
    ])
    expect(recorded).toEqual(['p3'])
    expect(snapshot(outside)).toEqual(before)
  })
})

/**
 * A pass over `actions` (their contents all in the plan: no service behind it) into the space folder.
 * Returns the pass's result and the ids it journaled, in order.
 */
async function passOver(actions: SyncAction[], options: Pick<Parameters<typeof executePlan>[1], 'concurrency' | 'onStep'> = {}) {
  const recorded: string[] = []
  const result = await executePlan(
    { revision: 'r', actions, notices: [] },
    {
      files: new SpaceFolder(root),
      source: { page: () => Promise.reject(new Error('unused')), file: () => Promise.reject(new Error('unused')) },
      journal: { record: (e) => recorded.push(e.id), forget: (id) => recorded.push(`-${id}`) },
      ...options,
    },
  )
  return { result, recorded }
}

/** A pass writing six new pages into `guide/`, one at a time, with `swap` run before its third step. */
function passSwappingBeforeThirdPage(swap: () => void) {
  const text = new TextDecoder().decode(NEW)
  const actions: SyncAction[] = Array.from({ length: 6 }, (_, i) => ({ type: 'download', id: `p${i}`, kind: 'page', path: `guide/p${i}.md`, oid: gitBlobOid(NEW), content: text }))
  return passOver(actions, {
    concurrency: 1,
    onStep: ({ index }) => {
      if (index === 2) swap()
    },
  })
}

describe('a folder swapped for a link while a pass writes into it', () => {
  it('the steps after the swap are refused, even when the link leads to that very folder moved outside', async () => {
    // The folder keeps its inode when moved: only a check of the whole path, made for each file, sees it left.
    const moved = path.join(outside, 'guide')
    const { result, recorded } = await passSwappingBeforeThirdPage(() => {
      fs.renameSync(path.join(root, 'guide'), moved)
      fs.symlinkSync(moved, path.join(root, 'guide'), 'dir')
    })
    expect(recorded).toEqual(['p0', 'p1'])
    expect(result.failed.map((f) => f.action.type === 'download' && f.action.path)).toEqual(['guide/p2.md', 'guide/p3.md', 'guide/p4.md', 'guide/p5.md'])
    for (const failure of result.failed) expect(failure.error).toMatch(/guide is a symbolic link that leads outside the space folder/)
    expect(fs.readdirSync(moved).sort()).toEqual(['p0.md', 'p1.md'])
  })
})

describe('the space folder itself swapped for a link while a pass writes into it', () => {
  it('the steps after the swap are refused and the folder the link leads to stays byte-identical', async () => {
    // Each file's folder is looked up with one lstat per level below the space folder, once the space
    // folder is proven to be the very folder the pass started in: a link put in its place is not.
    fs.mkdirSync(path.join(outside, 'guide'))
    const before = snapshot(outside)
    const { result, recorded } = await passSwappingBeforeThirdPage(() => {
      fs.renameSync(root, path.join(base, 'space-moved'))
      fs.symlinkSync(outside, root, 'dir')
    })
    expect(recorded).toEqual(['p0', 'p1'])
    expect(result.failed.map((f) => f.action.type === 'download' && f.action.path)).toEqual(['guide/p2.md', 'guide/p3.md', 'guide/p4.md', 'guide/p5.md'])
    for (const failure of result.failed) expect(failure.error).toMatch(/leads outside the space folder/)
    expect(snapshot(outside)).toEqual(before)
    expect(fs.readdirSync(path.join(base, 'space-moved', 'guide')).sort()).toEqual(['p0.md', 'p1.md'])
  })
})

describe('a file in the space that is a link', () => {
  beforeEach(() => fs.symlinkSync(path.join(outside, 'a.md'), path.join(root, 'page.md')))

  it('is never written through, moved or deleted, and nothing is moved onto it', async () => {
    const before = snapshot(outside)
    const folder = new SpaceFolder(root)
    fs.writeFileSync(path.join(root, 'other.md'), OUTSIDE_TEXT)
    const attempts: Array<[string, () => Promise<void>]> = [
      ['write', () => folder.write('page.md', NEW, hash)],
      ['write where nothing is expected', () => folder.write('page.md', NEW, undefined)],
      ['move it', () => folder.rename('page.md', 'elsewhere.md', hash)],
      ['move onto it', () => folder.rename('other.md', 'page.md', hash)],
      ['delete', () => folder.remove('page.md', hash)],
    ]
    for (const [what, attempt] of attempts) {
      const error = await attempt().then(
        () => undefined,
        (e: unknown) => e,
      )
      expect(error, what).toBeInstanceOf(WorkspaceBoundaryError)
      expect((error as Error).message, what).toBe(`page.md is a symbolic link; Quire does not ${what.startsWith('write') ? 'write' : what.startsWith('move') ? 'move' : 'delete'} through it (the file it points to is left alone)`)
    }
    expect(snapshot(outside)).toEqual(before)
    expect(fs.readlinkSync(path.join(root, 'page.md'))).toBe(path.join(outside, 'a.md'))
    expect(fs.readdirSync(root).filter((n) => n.startsWith(TEMP_MARK))).toEqual([])
  })

  it('a dangling link where a folder goes is refused too', async () => {
    fs.symlinkSync(path.join(outside, 'missing'), path.join(root, 'gone'), 'dir')
    const error = await new SpaceFolder(root).write('gone/new.md', NEW, undefined).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(WorkspaceBoundaryError)
    expect((error as Error).message).toBe('gone/new.md: gone is a symbolic link that leads nowhere; Quire does not write through it')
    expect(fs.existsSync(path.join(outside, 'missing'))).toBe(false)
  })
})

describe('links that stay inside the space folder', () => {
  it('are followed (the space folder itself may be reached through a link too)', async () => {
    fs.mkdirSync(path.join(root, 'real'))
    fs.symlinkSync(path.join(root, 'real'), path.join(root, 'alias'), 'dir')
    const linkedRoot = path.join(base, 'space-link')
    fs.symlinkSync(root, linkedRoot, 'dir')
    const folder = new SpaceFolder(linkedRoot)
    await folder.write('alias/new.md', NEW, undefined)
    await folder.write('plain/new.md', NEW, undefined)
    expect(fs.readFileSync(path.join(root, 'real', 'new.md'))).toEqual(Buffer.from(NEW))
    expect(fs.readFileSync(path.join(root, 'plain', 'new.md'))).toEqual(Buffer.from(NEW))
    await folder.remove('alias/new.md', gitBlobOid(NEW))
    expect(fs.existsSync(path.join(root, 'real', 'new.md'))).toBe(false)
  })
})

describe('sync down with a page folder replaced by a link to outside the workspace', () => {
  const t = serviceForFile()
  let ws: Workstation
  beforeEach(async () => {
    ws = await seededWorkstation(t, 'quire-boundary-up-')
    await ws.pull()
  })
  afterEach(() => removeWorkstation(ws))

  it('a remote edit leaves the outside file alone and reports the step as failed with the reason', async () => {
    const spaceId = ws.seeded.spaceId
    // The writer moves guide/ out of the workspace and leaves a link in its place.
    const elsewhere = path.join(ws.dir, 'elsewhere')
    fs.renameSync(ws.file('guide'), elsewhere)
    fs.symlinkSync(elsewhere, ws.file('guide'), 'dir')
    const before = snapshot(elsewhere)
    expect(fs.readFileSync(path.join(elsewhere, 'install.md'), 'utf8')).toBe(SEED_PAGES.install)

    const install = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'guide/install.md')![0]
    const faq = [...pagesOf(await mainRevision(t.api, spaceId))].find(([, p]) => p.path === 'faq.md')![0]
    editSpaceDirectly(t.service, spaceId, [
      { operation: 'update_page', page: install, document: { markdown: '# Install\n\nRun the new installer.\n' } },
      { operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nNew answers.\n' } },
    ])
    const pulled = await ws.pull()
    expect(snapshot(elsewhere)).toEqual(before)
    expect(pulled.state).toBe('error')
    expect(pulled.issues).toEqual([
      expect.objectContaining({ kind: 'failed', path: 'guide/install.md', message: expect.stringMatching(/^guide\/install\.md: guide is a symbolic link that leads outside the space folder/) }),
    ])
    // The rest of the pass went on.
    expect(ws.read('faq.md')).toBe('# FAQ\n\nNew answers.\n')
  })
})

import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { TEMP_MARK, writeFileAtomic } from '../../src/main/engine/workspace/atomic-write'
import { contentKind, ContentNameRegistry, contentSegment, folderReason, isIgnoredName } from '../../src/main/engine/workspace/content-names'
import { confinedPath, FolderNameRegistry, PathEscapeError, safeSegment } from '../../src/main/engine/workspace/safe-names'

describe('safeSegment', () => {
  it.each([
    ['normal.md', 'normal.md'],
    ['a/b', 'a_b'],
    ['..', '_'],
    ['.', '_'],
    ['', '_'],
    ['nul\u0000byte\u0007.md', 'nul_byte_.md'],
    ['CON', 'CON_'],
    ['com1.md', 'com1_.md'],
    ['CON.md_', 'CON_.md_'],
    ['lpt9', 'lpt9_'],
    ['what?<>:"|*.md', 'what_______.md'],
    ['trailing. . ', 'trailing_'],
    ['back\\slash', 'back_slash'],
  ])('%j -> %j', (input, expected) => {
    expect(safeSegment(input)).toBe(expected)
  })

  it('normalizes to NFC and caps names at 255 bytes keeping the extension', () => {
    expect(safeSegment('cafe\u0301.md')).toBe('caf\u00e9.md')
    const long = `${'é'.repeat(300)}.md`
    const safe = safeSegment(long)
    expect(Buffer.byteLength(safe)).toBeLessThanOrEqual(255)
    expect(safe.endsWith('.md')).toBe(true)
  })

  it('is idempotent: a safe name is left as it is', () => {
    for (const raw of ['CON.md', 'aux', 'x. ', 'a:b', `${'é'.repeat(200)}. .md`, `${'a'.repeat(254)}. `, '..', 'nul\u0000.md']) {
      const once = safeSegment(raw)
      expect(safeSegment(once), raw).toBe(once)
    }
  })
})

describe('confinedPath', () => {
  const root = path.resolve('/tmp/space')
  it('keeps server paths inside the space folder', () => {
    expect(confinedPath(root, 'guide/install.md')).toBe(path.join(root, 'guide', 'install.md'))
    expect(confinedPath(root, '../../etc/passwd')).toBe(path.join(root, '_', '_', 'etc', 'passwd'))
    expect(confinedPath(root, '/etc/passwd')).toBe(path.join(root, 'etc', 'passwd'))
    expect(confinedPath(root, 'a\\..\\..\\b')).toBe(path.join(root, 'a', '_', '_', 'b'))
  })
  it('takes `...`, `..foo` and the like for ordinary names, not for a step out of the folder', () => {
    expect(confinedPath(root, '....md')).toBe(path.join(root, '....md'))
    expect(confinedPath(root, '..foo/README.md')).toBe(path.join(root, '..foo', 'README.md'))
    expect(confinedPath(root, 'guide/..bar.md')).toBe(path.join(root, 'guide', '..bar.md'))
    expect(confinedPath(root, '..foo/../..md')).toBe(path.join(root, '..foo', '_', '..md'))
  })
  it('refuses an empty path', () => {
    expect(() => confinedPath(root, '/')).toThrow(PathEscapeError)
    expect(() => confinedPath(root, './.')).toThrow(PathEscapeError)
  })
})

describe('FolderNameRegistry', () => {
  it('gives names differing only by case or normalization distinct files, stably per owner', () => {
    const names = new FolderNameRegistry()
    expect(names.claim('Guide.md', 'p1')).toBe('Guide.md')
    expect(names.claim('guide.md', 'p2')).toBe('guide (2).md')
    expect(names.claim('GUIDE.md', 'p3')).toBe('GUIDE (3).md')
    expect(names.claim('Guide.md', 'p1')).toBe('Guide.md')
    expect(names.claim('cafe\u0301', 'p4')).toBe('caf\u00e9')
    expect(names.claim('caf\u00e9', 'p5')).toBe('caf\u00e9 (2)')
  })
})

describe('content names: one rule for sync down and sync up', () => {
  it.each([
    ['.notes', '_.notes'],
    ['drafts~', 'drafts~_'],
    ['4913', '_4913'],
    ['x.swp', 'x.swp_'],
    ['work.tmp', 'work.tmp_'],
    ['.git', '_.git'],
    ['.x.swp', '_.x.swp_'],
    ['#draft#', '_#draft#'],
    ['.quire-tmp-abc-page.md', '_.quire-tmp-abc-page.md'],
    ['...', '_'],
    ['....md', '_....md'],
    ['..foo', '_..foo'],
    ['guide', 'guide'],
    ['notes.swp.md', 'notes.swp.md'],
  ])('server name %j is placed as %j, which sync up reads', (raw, placed) => {
    expect(contentSegment(raw)).toBe(placed)
    expect(isIgnoredName(placed) || placed.startsWith('.')).toBe(false)
    expect(contentSegment(placed)).toBe(placed)
  })

  it('gives every server name of a folder a distinct content name, whatever it clashes with', () => {
    const names = new ContentNameRegistry()
    const placed = ['_.notes', '.notes', '.NOTES', 'x.swp_', 'x.swp', '_4913', '4913', '4913'].map((n, i) => names.claim(n, `p${i}`))
    expect(placed).toEqual(['_.notes', '_ (2).notes', '_ (3).NOTES', 'x.swp_', 'x (2).swp_', '_4913', '_4913 (2)', '_4913 (3)'])
    for (const name of placed) expect(folderReason(name), name).toBeUndefined()
  })

  it('reads pages outside .gitbook, assets and includes, nothing hidden or ignored', () => {
    expect(contentKind('guide/install.md')).toBe('page')
    expect(contentKind('SUMMARY.md')).toBe('page')
    expect(contentKind('.gitbook/assets/logo.png')).toBe('asset')
    expect(contentKind('.gitbook/includes/block.md')).toBe('include')
    for (const p of ['.notes/README.md', 'drafts~/child.md', '4913/README.md', '.git/config', '.gitbook/hooks/x.md', '.gitbook/assets/.hidden.png', 'guide/x.swp', 'notes.txt', '.bashrc.md']) {
      expect(contentKind(p), p).toBeUndefined()
    }
  })
})

describe('writeFileAtomic', () => {
  it('replaces content whole and leaves no temp file', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-atomic-'))
    const file = path.join(dir, 'sub', 'page.md')
    await writeFileAtomic(file, 'one\n')
    await writeFileAtomic(file, 'two\n')
    expect(fs.readFileSync(file, 'utf8')).toBe('two\n')
    expect(fs.readdirSync(path.dirname(file)).filter((n) => n.includes(TEMP_MARK))).toEqual([])
    fs.rmSync(dir, { recursive: true, force: true })
  })
  it('removes its temp file and leaves the target alone when the final rename fails', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-atomic-'))
    const target = path.join(dir, 'page.md')
    // A non-empty folder where the file should go: the rename fails even for root.
    fs.mkdirSync(target)
    fs.writeFileSync(path.join(target, 'keep.txt'), 'kept')
    await expect(writeFileAtomic(target, 'new\n')).rejects.toThrow()
    expect(fs.readFileSync(path.join(target, 'keep.txt'), 'utf8')).toBe('kept')
    expect(fs.readdirSync(dir)).toEqual(['page.md'])
    fs.rmSync(dir, { recursive: true, force: true })
  })
})

/**
 * The scan of the watcher's paths (LocalScanner.scan with `changed`): the same files and hashes a walk
 * of the whole folder finds, looking at the reported paths alone; and a walk whenever the paths cannot
 * say it all (a path gone, a folder, a page file expected and missing, a file of the view gone unreported).
 */
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { LocalScanner, scanCounts } from '../../../src/main/engine/push/local-scan'

let root: string | undefined
afterEach(() => {
  if (root) fs.rmSync(root, { recursive: true, force: true })
  root = undefined
})

function folder(files: Record<string, string>): string {
  root = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-limited-scan-'))
  for (const [rel, text] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(root, rel)), { recursive: true })
    fs.writeFileSync(path.join(root, rel), text)
  }
  return root
}
const hashes = (files: ReadonlyMap<string, { hash: string }>) => new Map([...files].map(([p, f]) => [p, f.hash]))
const none = () => false

describe('a scan of the watcher paths', () => {
  it('finds what a walk finds, looking at the changed file (and SUMMARY.md) alone', async () => {
    const dir = folder({ 'SUMMARY.md': '# Summary\n', 'a.md': '# A\n', 'guide/b.md': '# B\n', 'guide/c.md': '# C\n', '.gitbook/assets/x.png': 'png' })
    const scanner = new LocalScanner(dir)
    await scanner.scan(none)
    fs.writeFileSync(path.join(dir, 'guide/b.md'), '# B\n\nEdited.\n')
    fs.writeFileSync(path.join(dir, 'guide/new.md'), '# New\n')
    const before = { ...scanCounts }
    const limited = await scanner.scan(none, ['a.md', 'guide/b.md', 'guide/c.md'], new Set(['guide/b.md', 'guide/new.md']))
    expect(scanCounts.limited - before.limited).toBe(1)
    expect(scanCounts.statted - before.statted).toBe(3) // the two reported files and SUMMARY.md
    const walked = await new LocalScanner(dir).scan(none)
    expect(hashes(limited.files)).toEqual(hashes(walked.files))
    expect(limited.summary).toBe('# Summary\n')
  })

  it('walks the whole folder for a path gone, a folder, a missing page file, or a file of the view gone unreported', async () => {
    const dir = folder({ 'SUMMARY.md': '# Summary\n', 'a.md': '# A\n', 'b.md': '# B\n' })
    const scanner = new LocalScanner(dir)
    const expected = ['a.md', 'b.md']
    const walks = async (changed: string[]) => {
      await scanner.scan(none, expected) // a walk: the view is the folder as it is now
      const before = scanCounts.limited
      const scan = await scanner.scan((p) => p === 'b.md', expected, new Set(changed))
      return { walked: scanCounts.limited === before, scan }
    }
    fs.rmSync(path.join(dir, 'a.md'))
    const gone = await walks(['a.md'])
    expect(gone.walked).toBe(true)
    expect(gone.scan.files.has('a.md')).toBe(false)
    fs.writeFileSync(path.join(dir, 'a.md'), '# A\n')

    fs.mkdirSync(path.join(dir, 'moved'))
    fs.writeFileSync(path.join(dir, 'moved/c.md'), '# C\n')
    const moved = await walks(['moved'])
    expect(moved.walked).toBe(true)
    expect(moved.scan.files.has('moved/c.md')).toBe(true)

    // A page file the caller expects that the view does not hold (renamed to a hidden name): a walk, which
    // looks under the skipped names for it (PROMISES P9).
    fs.renameSync(path.join(dir, 'a.md'), path.join(dir, '.a.md'))
    await scanner.scan(none, [])
    const before0 = scanCounts.limited
    const hidden = await scanner.scan(none, expected, new Set())
    expect(scanCounts.limited).toBe(before0)
    expect(hidden.skippedFiles.has('.a.md')).toBe(true)
    fs.renameSync(path.join(dir, '.a.md'), path.join(dir, 'a.md'))

    // b.md's text is wanted (it differs from its base): read again, and found gone though nothing said so.
    await scanner.scan(none, expected)
    fs.rmSync(path.join(dir, 'b.md'))
    const before = scanCounts.limited
    const unreported = await scanner.scan((p) => p === 'b.md', expected, new Set())
    expect(scanCounts.limited).toBe(before)
    expect(unreported.files.has('b.md')).toBe(false)
  })
})

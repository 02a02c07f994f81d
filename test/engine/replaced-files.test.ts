import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../src/main/content'
import { replaceIfUnchanged, writeTempFile } from '../../src/main/engine/workspace/atomic-write'
import { ReplacedFiles } from '../../src/main/engine/workspace/replaced-files'

/**
 * ReplacedFiles holds the files a pass replaced, so a save that reaches one after the rename is put back.
 * Here: more files than it holds open at once (the oldest are looked at early), and no descriptor left.
 */

let dir: string
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-replaced-'))
})
afterEach(() => fs.rmSync(dir, { recursive: true, force: true }))

const OLD = 'old text\n'
const NEW = 'new text\n'
const openFds = () => fs.readdirSync('/proc/self/fd').length

describe.skipIf(process.platform !== 'linux')('ReplacedFiles', () => {
  it('past the files it holds open, looks at the oldest early: a save there is still put back, and every descriptor is closed', async () => {
    const fdsBefore = openFds()
    const replaced = new ReplacedFiles(0)
    const names = Array.from({ length: 300 }, (_, i) => `page-${i}.md`)
    let writerFd: number | undefined
    for (const [i, name] of names.entries()) {
      const target = path.join(dir, name)
      fs.writeFileSync(target, OLD)
      const temp = await writeTempFile(dir, name, NEW)
      const copyPath = (t: string) => `${t}.copy`
      await replaceIfUnchanged(temp, target, gitBlobOid(OLD), name, {
        copyPath,
        // The writer of the first file opened it before the rename ...
        inWindow: () => {
          if (i === 0) writerFd = fs.openSync(target, 'a')
        },
        keep: (file) => replaced.keep(name, file, copyPath),
      })
      // ... and writes once it is replaced, before the look that the cap starts early.
      if (i === 0) {
        fs.writeSync(writerFd!, 'saved late\n')
        fs.closeSync(writerFd!)
      }
    }
    expect(openFds()).toBeLessThan(fdsBefore + 300)
    const saves = await replaced.settle()
    expect(saves).toEqual([{ relative: 'page-0.md', went: 'in place' }])
    expect(fs.readFileSync(path.join(dir, 'page-0.md'), 'utf8')).toBe(OLD + 'saved late\n')
    expect(fs.readFileSync(path.join(dir, 'page-1.md'), 'utf8')).toBe(NEW)
    expect(openFds()).toBe(fdsBefore)
    // Nothing left to report the next time.
    expect(await replaced.settle()).toEqual([])
  })

  it('waits until the last replaced file is watchMs old before it looks', async () => {
    const replaced = new ReplacedFiles(150)
    const target = path.join(dir, 'page.md')
    fs.writeFileSync(target, OLD)
    let fd: number | undefined
    let keptAt = 0
    await replaceIfUnchanged(await writeTempFile(dir, 'page.md', NEW), target, gitBlobOid(OLD), 'page.md', {
      copyPath: (t) => `${t}.copy`,
      inWindow: () => {
        fd = fs.openSync(target, 'a')
      },
      keep: (file) => {
        keptAt = performance.now()
        replaced.keep('page.md', file, (t) => `${t}.copy`)
      },
    })
    // The writer's write lands while settle waits (a timer, not a condition: settle's own wait is what is tested).
    setTimeout(() => {
      fs.writeSync(fd!, 'saved during the wait\n')
      fs.closeSync(fd!)
    }, 20)
    expect(await replaced.settle()).toEqual([{ relative: 'page.md', went: 'in place' }])
    // A lower bound only: settle may look later on a busy machine, never sooner.
    expect(performance.now() - keptAt).toBeGreaterThanOrEqual(149)
    expect(fs.readFileSync(target, 'utf8')).toBe(OLD + 'saved during the wait\n')
  })
})

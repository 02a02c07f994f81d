import fs from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { gitBlobOid } from '../../../src/main/content'
import { LocalScanner } from '../../../src/main/engine/push/local-scan'
import { scratchFolderPerTest } from './support/workspace'

/**
 * Issue 14: the scan hashes assets through one small buffer instead of reading each whole (a dropped
 * tree of 100 MB of images was 100 MB of buffers to collect). The hashes must be the git blob ids of
 * the whole files, at any size around the buffer's, and a page's text is still read whole.
 */

const scratch = scratchFolderPerTest('quire-scan-')
const write = scratch.write

/** Bytes that differ along the file, so a chunk hashed twice or skipped changes the hash. */
function varied(size: number): Buffer {
  const bytes = Buffer.alloc(size)
  for (let i = 0; i < size; i++) bytes[i] = (i * 31 + (i >> 10)) & 0xff
  return bytes
}

describe('the local scan', () => {
  it('hashes assets of any size as git does, and reads a page whole', async () => {
    const folder = scratch.make()
    const sizes = [0, 1, 256 * 1024 - 1, 256 * 1024, 256 * 1024 + 1, 700_001]
    for (const size of sizes) write(`.gitbook/assets/f${size}.bin`, varied(size))
    write('page.md', Buffer.from('# Page\n\n![](.gitbook/assets/f1.bin)\n'))
    const scan = await new LocalScanner(folder).scan(() => true)
    for (const size of sizes) {
      const file = scan.files.get(`.gitbook/assets/f${size}.bin`)
      expect(file, `f${size}.bin`).toEqual({ hash: gitBlobOid(varied(size)), size })
    }
    expect(scan.files.get('page.md')).toEqual({ hash: gitBlobOid('# Page\n\n![](.gitbook/assets/f1.bin)\n'), size: 36, text: '# Page\n\n![](.gitbook/assets/f1.bin)\n' })
  })

  it('sees an asset rewritten between scans', async () => {
    const folder = scratch.make()
    write('.gitbook/assets/shot.png', varied(300_000))
    const scanner = new LocalScanner(folder)
    expect((await scanner.scan(() => false)).files.get('.gitbook/assets/shot.png')?.hash).toBe(gitBlobOid(varied(300_000)))
    const edited = varied(300_000)
    edited[299_999] ^= 1
    write('.gitbook/assets/shot.png', edited)
    // A new mtime on any disk: the scan remembers hashes by (mtime, size, inode).
    const later = new Date(Date.now() + 5_000)
    fs.utimesSync(path.join(folder, '.gitbook/assets/shot.png'), later, later)
    expect((await scanner.scan(() => false)).files.get('.gitbook/assets/shot.png')?.hash).toBe(gitBlobOid(edited))
  })
})

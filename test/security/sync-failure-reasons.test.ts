import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'
import { failureReason } from '../../src/main/cli/progress'
import { quire, quireHomeForFile } from '../cli/support/cli-home'
import { serviceForFile } from '../engine/sync-up/support/hooks'

/**
 * Issue 10, finding 5: on a full disk `quire sync` said only "N steps failed"; the reason was in
 * `quire status` alone. The sync output now names what each failed step ran into.
 */
const t = serviceForFile({ demo: true })
const home = quireHomeForFile('quire-sync-reasons-')

/** Node's own error for a write on a full disk. */
const enospc = () => Object.assign(new Error('ENOSPC: no space left on device, write'), { errno: -28, code: 'ENOSPC', syscall: 'write' })

/** A tmpfs of `size` mounted at `dir`, when this machine lets the test mount one (root in a privileged container). */
function mountTmpfs(dir: string, size: string): boolean {
  if (process.platform !== 'linux' || process.getuid?.() !== 0) return false
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', dir], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

describe('quire sync names the reason of each failed step', () => {
  it('says "disk full" for every file a full disk refused, and in its last line', async () => {
    expect((await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)).code).toBe(0)
    // Every file write the pass makes fails as it does on a full disk.
    const probe = await fs.promises.open(__filename, 'r')
    const handleProto = Object.getPrototypeOf(probe) as { writeFile: (...a: unknown[]) => Promise<void> }
    await probe.close()
    const spy = vi.spyOn(handleProto, 'writeFile').mockRejectedValue(enospc())
    let run: Awaited<ReturnType<typeof quire>>
    let writes: number
    try {
      run = await quire('sync', '--once', '--all', '--workspace', path.join(home, 'full'))
    } finally {
      writes = spy.mock.calls.length
      spy.mockRestore()
    }
    expect(writes).toBeGreaterThan(0)
    expect(run.code).toBe(1)
    expect(run.out).toMatch(/^error {3}Quire Demo\/User Guide {2}-> .*\n {8}\d+ steps failed\n {8}- \S.*\.md: disk full \(ENOSPC: no space left on device, write\)$/m)
    expect(run.out).toMatch(/… and \d+ more/)
    expect(run.err).toMatch(/quire sync: 3 of 3 spaces are not in sync: disk full \(see above/)
  })

  it('reads the plain reason from the error codes a file system gives', () => {
    expect(failureReason("EACCES: permission denied, open '/x/.quire-tmp-1-a.md'")).toEqual({ reason: 'permission denied', detail: "EACCES: permission denied, open '/x/.quire-tmp-1-a.md'" })
    expect(failureReason('EROFS: read-only file system, rename').reason).toBe('read-only file system')
    expect(failureReason('EDQUOT: disk quota exceeded, write').reason).toBe('disk quota exceeded')
    expect(failureReason('the download answered HTTP 500')).toEqual({ reason: 'the download answered HTTP 500', detail: '' })
  })

  const full = path.join(os.tmpdir(), `quire-full-disk-${process.pid}`)
  fs.mkdirSync(full, { recursive: true })
  const mounted = mountTmpfs(full, '160k')
  afterAll(() => {
    if (mounted) execFileSync('umount', [full])
    fs.rmSync(full, { recursive: true, force: true })
  })

  it.skipIf(!mounted)('on a real full disk (a small tmpfs) too', async () => {
    const run = await quire('sync', '--once', '--all', '--workspace', full)
    expect(run.code).toBe(1)
    expect(run.out).toMatch(/- \S.*: disk full \(ENOSPC/)
    expect(run.err).toMatch(/not in sync: .*disk full/)
  })
})

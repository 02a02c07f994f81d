import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { startTestService, type TestService } from '../support/service'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, seedSpace, type SeededSpace } from '../engine/sync-up/support/workspace'

/**
 * Issue 9, finding 2, as the writer saw it: after an unrelated edit `quire watch --once` said only
 * "N changes queued" and deleted every page whose file it would not read. Now it sends the edit alone
 * and says which files it left alone.
 */

let t: TestService
let home: string
let seeded: SeededSpace
let folder: string

async function quire(...args: string[]) {
  const out: string[] = []
  const err: string[] = []
  const code = await main(args, { out: (l: string) => out.push(l), err: (l: string) => err.push(l), isTTY: false })
  return { code, out: out.join('\n'), err: err.join('\n') }
}

beforeAll(async () => {
  t = await startTestService()
  home = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-notread-'))
  process.env.QUIRE_HOME = home
  process.env.QUIRE_TOKEN_STORE = 'file'
  seeded = await seedSpace(t)
  expect((await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)).code).toBe(0)
  const sync = await quire('sync', '--once', '--space', seeded.spaceId, '--workspace', path.join(home, 'ws'))
  expect(sync.code, sync.err).toBe(0)
  folder = path.join(home, 'ws', 'Acme', 'Docs')
})
afterAll(async () => {
  await t.close()
  fs.rmSync(home, { recursive: true, force: true })
  delete process.env.QUIRE_HOME
  delete process.env.QUIRE_TOKEN_STORE
})

describe('quire watch --once with files it does not read', () => {
  it('sends the unrelated edit only and names the folder it left alone', async () => {
    const outside = path.join(home, 'outside-guide')
    fs.cpSync(path.join(folder, 'guide'), outside, { recursive: true })
    fs.rmSync(path.join(folder, 'guide'), { recursive: true })
    fs.symlinkSync(outside, path.join(folder, 'guide'))
    const main = await mainRevision(t.api, seeded.spaceId)
    fs.writeFileSync(path.join(folder, 'faq.md'), '# FAQ\n\nQuestions and answers.\n')

    const watched = await quire('watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).toMatch(/Docs: 1 change queued \(change request #\d+\)/)
    expect(watched.out).toContain('Docs: guide/ is a symbolic link, which Quire does not follow: its 3 pages stay as in the space, not deleted')
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    const diff = changedPages(main, await changeRequestRevision(t.api, seeded.spaceId, cr.id))
    expect(diff.removed).toEqual([])
    expect(diff.changed).toHaveLength(1)
  })
})

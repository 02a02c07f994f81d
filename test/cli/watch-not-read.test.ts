import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { serviceForFile } from '../engine/sync-up/support/hooks'
import { changedPages, changeRequestRevision, mainRevision, openChangeRequests, type SeededSpace } from '../engine/sync-up/support/workspace'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 9, finding 2, as the writer saw it: after an unrelated edit `quire watch --once` said only
 * "N changes queued" and deleted every page whose file it would not read. Now it sends the edit alone
 * and says which files it left alone.
 */

const t = serviceForFile()
const home = quireHomeForFile('quire-notread-')
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  ;({ seeded, folder } = await mirroredSeededSpace(t, home))
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

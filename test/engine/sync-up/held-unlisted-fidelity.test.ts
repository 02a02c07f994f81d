import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { changeRequestRevision, mainRevision, pagesOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * Issue 14 (structure): a new `.md` file SUMMARY.md does not list, while the writer's SUMMARY.md lists
 * other new pages, stays local (a Git Sync tree's LICENSE.md). It stays local after the change request
 * is merged and the space's SUMMARY.md replaces the writer's (nothing lists it still), and it becomes a
 * page on the next push once SUMMARY.md lists it, before or after that merge.
 */

const t = serviceForFile()
let stations: Workstation[] = []
afterEach(() => {
  for (const ws of stations) removeWorkstation(ws)
  stations = []
})

const LICENSE = '# MIT License\n\nPermission is hereby granted.\n'

/** A writer who lists a new page in SUMMARY.md and drops LICENSE.md beside it; pushed once. */
async function writerWithHeldLicense() {
  const seeded = await seedSpace(t)
  const writer = new Workstation(t, seeded, tempDir('quire-held-'))
  stations.push(writer)
  await writer.pull()
  writer.write('notes.md', '# Notes\n\nSome notes.\n')
  writer.write('LICENSE.md', LICENSE)
  writer.write('SUMMARY.md', `${writer.read('SUMMARY.md').trimEnd()}\n* [Notes](notes.md)\n`)
  const first = await writer.push()
  expect(first.reports.map((r) => r.kind)).toContain('not-in-summary')
  const crId = writer.outbox.session(seeded.spaceId)!.changeRequestId!
  const paths = () => changeRequestRevision(t.api, seeded.spaceId, crId).then((r) => [...pagesOf(r).values()].map((p) => p.path))
  expect(await paths()).toContain('notes.md')
  expect(await paths()).not.toContain('LICENSE.md')
  return { seeded, writer, crId, paths }
}

const listLicense = (writer: Workstation) => writer.write('SUMMARY.md', `${writer.read('SUMMARY.md').trimEnd()}\n* [License](LICENSE.md)\n`)

describe('a new file SUMMARY.md does not list', () => {
  it('becomes a page on the next push once the writer lists it in SUMMARY.md', async () => {
    const { writer, paths } = await writerWithHeldLicense()
    listLicense(writer)
    const second = await writer.push()
    expect(second.reports.map((r) => r.kind)).not.toContain('not-in-summary')
    expect(await paths()).toContain('LICENSE.md')
  })

  it("stays local after the merge, when the space's SUMMARY.md replaces the writer's and still does not list it; listed then, it is sent", async () => {
    const { seeded, writer, crId } = await writerWithHeldLicense()
    expect(await writer.merge(crId)).toBe('merge')
    await writer.push()
    await writer.pull()
    expect(writer.read('SUMMARY.md')).toContain('(notes.md)')
    expect(writer.read('SUMMARY.md')).not.toContain('LICENSE.md')
    expect(writer.read('LICENSE.md')).toBe(LICENSE)

    // Nothing lists it: still held, and said so.
    const after = await writer.push()
    expect(after.reports.filter((r) => r.kind === 'not-in-summary').map((r) => r.message)).toEqual([
      'not in SUMMARY.md: not sent: LICENSE.md (SUMMARY.md lists the new pages; list it there to send it)',
    ])
    expect(writer.outbox.session(seeded.spaceId)?.changeRequestId).toBeUndefined()
    expect([...pagesOf(await mainRevision(t.api, seeded.spaceId)).values()].map((p) => p.path)).not.toContain('LICENSE.md')

    // The writer lists it in the space's SUMMARY.md: a page on the next push.
    listLicense(writer)
    await writer.push()
    const next = writer.outbox.session(seeded.spaceId)!.changeRequestId!
    expect([...pagesOf(await changeRequestRevision(t.api, seeded.spaceId, next)).values()].map((p) => p.path)).toContain('LICENSE.md')
  })

  it('an everyday new file, never held, is still a page without any SUMMARY.md edit', async () => {
    const { seeded, writer, crId } = await writerWithHeldLicense()
    expect(await writer.merge(crId)).toBe('merge')
    await writer.push()
    await writer.pull()
    writer.write('faq-2.md', '# More questions\n')
    await writer.push()
    const next = writer.outbox.session(seeded.spaceId)!.changeRequestId!
    const paths = [...pagesOf(await changeRequestRevision(t.api, seeded.spaceId, next)).values()].map((p) => p.path)
    expect(paths).toContain('faq-2.md')
    expect(paths).not.toContain('LICENSE.md')
  })
})

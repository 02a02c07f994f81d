import { afterEach, describe, expect, it } from 'vitest'
import { removeWorkstation, serviceForFile } from './support/hooks'
import { seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * A comment marker typed after someone merged the writer's change request, before Quire noticed the
 * merge, is posted (P1): the file is not taken for the merge base and overwritten with main's version.
 */

const t = serviceForFile()
let ws: Workstation | undefined
afterEach(() => {
  if (ws) removeWorkstation(ws)
  ws = undefined
})

describe('a marker typed while the change request was being merged', () => {
  it('is posted once and leaves the file; the merged edit stays', async () => {
    const seeded = await seedSpace(t)
    ws = new Workstation(t, seeded, tempDir('quire-marker-merge-'))
    await ws.pull()
    ws.write('faq.md', '# FAQ\n\nQuestions, and an answer.\n')
    await ws.push()
    const crId = ws.outbox.session(seeded.spaceId)!.changeRequestId!
    expect((await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: crId } })).body.result).toBe('merge')

    ws.write('faq.md', '# FAQ\n\nQuestions, and an answer.\n\n<!-- comment: Is this answer complete? -->\n')
    for (let round = 0; round < 3; round++) {
      await ws.push()
      await ws.pull()
    }
    const comments = (await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Array<{ body: { markdown: string } }>
    expect(comments.filter((c) => c.body.markdown === 'Is this answer complete?')).toHaveLength(1)
    expect(ws.read('faq.md')).not.toContain('comment:')
    expect(ws.read('faq.md')).toContain('Questions, and an answer.')
  })
})

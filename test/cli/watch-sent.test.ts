import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import type { SeededSpace } from '../engine/sync-up/support/workspace'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

/**
 * Issue 12: `quire watch` said "1 change queued" and nothing more, whether the change reached the
 * service or waited offline. Now each change and comment is named when the service has it ("sent"),
 * and a comment that has to wait says "queued" until a later round sends it.
 */

const t = restartableServiceForFile()
const home = quireHomeForFile('quire-watch-sent-')
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  ;({ seeded, folder } = await mirroredSeededSpace(t, home))
})

async function commentsOnService(): Promise<Array<{ id: string; body: { markdown: string } }>> {
  return (await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items
}

describe('quire watch says what was sent', () => {
  it('online: the change and the comment are named as sent, with the change request and the thread', async () => {
    fs.writeFileSync(path.join(folder, 'faq.md'), '# FAQ\n\nQuestions, and answers now.\n\n<!-- comment: Is this answer right? -->\n')
    const watched = await quire('watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).toMatch(/^Docs: 1 change queued \(change request #(\d+)\)$/m)
    const number = /change request #(\d+)/.exec(watched.out)![1]
    expect(watched.out).toMatch(new RegExp(`^Docs: change request #${number} opened: .+$`, 'm'))
    expect(watched.out).toMatch(new RegExp(`^Docs: sent to change request #${number}: faq\\.md$`, 'm'))
    const [thread] = (await commentsOnService()).filter((c) => c.body.markdown === 'Is this answer right?')
    expect(thread).toBeDefined()
    expect(watched.out).toContain(`Docs: comment sent on faq.md (thread ${thread.id}): "Is this answer right?"`)
    expect(watched.out).not.toMatch(/queued on/)

    // A round with nothing new says nothing was sent again.
    const quiet = await quire('watch', '--once')
    expect(quiet.code, quiet.err).toBe(0)
    expect(quiet.out).not.toMatch(/^Docs: .*\bsent\b/m)
  })

  it('offline: queued, not sent; when the service is back, the next round names each as sent, once', async () => {
    await t.stop()
    try {
      fs.writeFileSync(path.join(folder, 'getting-started.md'), '# Getting started\n\nRead this first, then the guide.\n\n<!-- comment: Link the guide here? -->\n')
      const offline = await quire('watch', '--once')
      expect(offline.code).toBe(1)
      expect(offline.out).toMatch(/^Docs: 1 change queued/m)
      expect(offline.out).toContain('Docs: comment queued on getting-started.md: "Link the guide here?"')
      expect(offline.out).toMatch(/Docs: offline: .*operation\(s\) wait in the outbox/)
      expect(offline.out).not.toMatch(/^Docs: .*\bsent\b/m)
      // Said once, though the round pushes twice.
      expect(offline.out.match(/wait in the outbox/g)).toHaveLength(1)
    } finally {
      await t.start()
    }
    const back = await quire('watch', '--once')
    expect(back.code, back.err).toBe(0)
    // Nothing new was planned: what goes out now is what waited.
    expect(back.out).not.toMatch(/queued/)
    expect(back.out).toMatch(/^Docs: sent to change request #\d+: getting-started\.md$/m)
    const [thread] = (await commentsOnService()).filter((c) => c.body.markdown === 'Link the guide here?')
    expect(thread).toBeDefined()
    expect(back.out).toContain(`Docs: comment sent on getting-started.md (thread ${thread.id}): "Link the guide here?"`)
    expect(back.out.match(/comment sent/g)).toHaveLength(1)
  })
})

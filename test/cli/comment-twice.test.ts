/**
 * Issue 25, item 2: `quire comment FILE "same text"` run twice while the service could not be reached
 * queued two operations (each under a random key) and posted two comments. An operation's key is now
 * what it is (space, page or thread, normalized text, writer): the second run says "already queued", and
 * one comment is posted; run again once sent, it says "already sent". A comment command is the same as
 * the marker with that text: posted once between them.
 */
import { execFile } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { restartableServiceForFile } from '../engine/sync-up/support/restartable-service'
import type { SeededSpace } from '../engine/sync-up/support/workspace'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
const t = restartableServiceForFile()
const home = quireHomeForFile('quire-comment-twice-')
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  ;({ seeded, folder } = await mirroredSeededSpace(t, home))
})

/** `quire ...args` as its own process (as a writer runs it from a shell), with this file's QUIRE_HOME. */
function quireProcess(...args: string[]): Promise<{ code: number; out: string; err: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, [bin, ...args], { env: { ...process.env } }, (error, stdout, stderr) => {
      const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0
      resolve({ code, out: stdout.trim(), err: stderr.trim() })
    })
  })
}

type Item = { id: string; status: string; body: { markdown: string }; replies?: { count: number } }

async function commentsOnService(markdown: string): Promise<Item[]> {
  const items = (await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { status: 'all', format: 'markdown' } })).body.items as Item[]
  return items.filter((c) => c.body.markdown === markdown)
}

describe('the same comment asked twice is one comment', () => {
  it('run twice as processes while the service is down: queued once, "already queued", one comment once it is back', async () => {
    const faq = path.join(folder, 'faq.md')
    await t.stop()
    let first: Awaited<ReturnType<typeof quireProcess>>
    let second: Awaited<ReturnType<typeof quireProcess>>
    try {
      first = await quireProcess('comment', faq, 'Is this list complete?')
      // The same text, typed a little differently: the same comment.
      second = await quireProcess('comment', faq, '  Is this list\n complete? ')
    } finally {
      await t.start()
    }
    expect(first.code).toBe(1)
    expect(first.err).toMatch(/it waits in the outbox and goes out with the next quire watch or command/)
    expect(second.code, second.err).toBe(0)
    expect(second.out).toMatch(/^already queued: the same comment waits in the outbox/)

    const back = await quire('watch', '--once')
    expect(back.code, back.err).toBe(0)
    const posted = await commentsOnService('Is this list complete?')
    expect(posted).toHaveLength(1)

    // Asked once more now that it is sent: said, not posted again.
    const third = await quireProcess('comment', faq, 'Is this list complete?')
    expect(third.code, third.err).toBe(0)
    expect(third.out).toBe(`already sent: posted ${posted[0].id} (the same comment was sent before; nothing sent again)`)
    expect(await commentsOnService('Is this list complete?')).toHaveLength(1)
  })

  it('a reply asked twice offline is one reply', async () => {
    const [thread] = await commentsOnService('Is this list complete?')
    await t.stop()
    try {
      expect((await quire('reply', thread.id, 'Yes, for v2.')).code).toBe(1)
      const again = await quire('reply', thread.id, 'Yes, for v2.')
      expect(again.code, again.err).toBe(0)
      expect(again.out).toMatch(/^already queued: the same reply/)
    } finally {
      await t.start()
    }
    expect((await quire('watch', '--once')).code).toBe(0)
    const replies = (await t.api.call('listCommentRepliesInSpace', { params: { spaceId: seeded.spaceId, commentId: thread.id }, query: { format: 'markdown' } })).body.items as Item[]
    expect(replies.map((r) => r.body.markdown)).toEqual(['Yes, for v2.'])
  })

  it('a marker and a command with the same text post one comment, whichever comes first', async () => {
    const start = path.join(folder, 'getting-started.md')
    const before = fs.readFileSync(start, 'utf8')
    // The command first, then the marker with that text.
    expect((await quire('comment', start, 'Link the guide here?')).code).toBe(0)
    fs.writeFileSync(start, `${before}\n<!-- comment: Link the guide here? -->\n`)
    expect((await quire('watch', '--once')).code).toBe(0)
    expect(await commentsOnService('Link the guide here?')).toHaveLength(1)
    expect(fs.readFileSync(start, 'utf8')).toBe(before) // the marker left the file all the same

    // The marker first (posted by the watch), then the command.
    fs.writeFileSync(start, `${before}\n<!-- comment: Mention the   installer? -->\n`)
    expect((await quire('watch', '--once')).code).toBe(0)
    expect(await commentsOnService('Mention the   installer?')).toHaveLength(1)
    const command = await quire('comment', start, 'Mention the installer?')
    expect(command.code, command.err).toBe(0)
    expect(command.out).toMatch(/^already sent: posted /)
    expect((await commentsOnService('Mention the installer?')).length + (await commentsOnService('Mention the   installer?')).length).toBe(1)
  })

  it('asked again after its thread was resolved, it is a new comment (once)', async () => {
    const install = path.join(folder, 'guide', 'install.md')
    expect((await quire('comment', install, 'Which version?')).code).toBe(0)
    const [first] = await commentsOnService('Which version?')
    expect((await quire('resolve', first.id)).code).toBe(0)
    // Resolving twice is one resolve.
    expect((await quire('resolve', first.id)).out).toMatch(/^already sent: resolved /)

    const again = await quire('comment', install, 'Which version?')
    expect(again.code, again.err).toBe(0)
    expect(again.out).toMatch(/^posted /)
    expect((await quire('comment', install, 'Which version?')).out).toMatch(/^already sent: /)
    expect((await commentsOnService('Which version?')).map((c) => c.status).sort()).toEqual(['open', 'resolved'])
  })
})

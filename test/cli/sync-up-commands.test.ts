import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from '../support/service'
import { openChangeRequests, SEED_PAGES, type SeededSpace } from '../engine/sync-up/support/workspace'
import { mirroredSeededSpace, quire, quireHomeForFile } from './support/cli-home'

const bin = path.resolve(__dirname, '../../bin/quire.mjs')
let t: TestService
const home = quireHomeForFile('quire-upcli-')
let seeded: SeededSpace
let folder: string

beforeAll(async () => {
  t = await startTestService()
  ;({ seeded, folder } = await mirroredSeededSpace(t, home))
  expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toBe(SEED_PAGES.faq)
})
afterAll(() => t.close())

describe('quire watch, comments, comment, reply, resolve, cr', () => {
  it('watch --once sends an edit and a marker; comments lists the thread; reply and resolve answer it', async () => {
    fs.writeFileSync(path.join(folder, 'faq.md'), `# FAQ\n\nQuestions and answers.\n\n<!-- comment: Is this list complete? -->\n`)
    const watched = await quire('watch', '--once')
    expect(watched.code, watched.err).toBe(0)
    expect(watched.out).toMatch(/Docs: 1 change queued \(change request #\d+\)/)
    expect(fs.readFileSync(path.join(folder, 'faq.md'), 'utf8')).toBe('# FAQ\n\nQuestions and answers.\n')

    const listed = await quire('comments', path.join(folder, 'faq.md'), '--json')
    expect(listed.code, listed.err).toBe(0)
    const threads = JSON.parse(listed.out).threads as Array<{ id: string; markdown: string; status: string; replies: unknown[] }>
    expect(threads.map((th) => th.markdown)).toEqual(['Is this list complete?'])
    const id = threads[0].id

    expect((await quire('reply', id, 'Yes, for v2.')).code).toBe(0)
    expect((await quire('comment', path.join(folder, 'faq.md'), 'One more thought.')).code).toBe(0)
    expect((await quire('resolve', id)).code).toBe(0)
    const again = JSON.parse((await quire('comments', path.join(folder, 'faq.md'), '--json')).out).threads as typeof threads
    expect(again.map((th) => [th.markdown, th.status, th.replies.length])).toEqual([
      ['Is this list complete?', 'resolved', 1],
      ['One more thought.', 'open', 0],
    ])
    const text = await quire('comments', path.join(folder, 'faq.md'))
    expect(text.out).toContain('Yes, for v2.')
  })

  it('cr list, show, pdf, merge; after the merge the workspace follows the space', async () => {
    const list = await quire('cr', 'list', '--json')
    expect(list.code, list.err).toBe(0)
    const crs = JSON.parse(list.out).changeRequests as Array<{ id: string; number: number; subject: string }>
    expect(crs).toHaveLength(1)
    expect(crs[0].subject).toBe('Edit FAQ')
    const shown = await quire('cr', 'show', String(crs[0].number))
    expect(shown.code, shown.err).toBe(0)
    expect(shown.out).toContain('carries faq.md')
    const pdf = await quire('cr', 'pdf', `#${crs[0].number}`)
    expect(pdf.code, pdf.err).toBe(0)
    expect(pdf.out).toMatch(/^https?:\/\//)
    const merged = await quire('cr', 'merge', crs[0].id)
    expect(merged.code, merged.err).toBe(0)
    expect(merged.out).toContain(`merged #${crs[0].number}`)
    expect(await openChangeRequests(t.api, seeded.spaceId)).toEqual([])
    expect((await quire('cr', 'list')).out).toContain('no open change requests')
  })

  it('a conflict shows in quire status: state conflict, the copy named', async () => {
    const revision = (await t.api.call('getCurrentRevision', { params: { spaceId: seeded.spaceId } })).body
    const start = revision.pages.find((p: { slug?: string }) => p.slug === 'getting-started').id
    const cr = (await t.api.call('createChangeRequest', { params: { spaceId: seeded.spaceId }, body: { subject: 'Remote' } })).body
    await t.api.call('updateChangeRequestContent', {
      params: { spaceId: seeded.spaceId, changeRequestId: cr.id },
      body: { changes: [{ operation: 'update_page', page: start, document: { markdown: '# Getting started\n\nTheir words.\n' } }] },
    })
    await t.api.call('mergeChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id } })
    fs.writeFileSync(path.join(folder, 'getting-started.md'), '# Getting started\n\nMy words.\n')
    const watched = await quire('watch', '--once')
    expect(watched.out).toMatch(/conflict: getting-started \(conflicted copy .*\)\.md keeps your version/)
    const status = JSON.parse((await quire('status', '--json')).out)
    const space = status.spaces.find((s: { spaceId: string }) => s.spaceId === seeded.spaceId)
    expect(space.state).toBe('conflict')
    expect(space.syncUp.conflicts).toEqual([expect.objectContaining({ path: 'getting-started.md', copy: expect.stringMatching(/conflicted copy/) })])
    expect((await quire('status')).out).toMatch(/Docs: conflict[\s\S]*conflict: getting-started\.md — your version is in getting-started \(conflicted copy/)
    // The writer keeps their words and drops the copy: the conflict ends.
    fs.writeFileSync(path.join(folder, 'getting-started.md'), '# Getting started\n\nTheir words. My words.\n')
    for (const name of fs.readdirSync(folder)) if (name.includes('conflicted copy')) fs.rmSync(path.join(folder, name))
    await quire('watch', '--once')
    const after = JSON.parse((await quire('status', '--json')).out).spaces.find((s: { spaceId: string }) => s.spaceId === seeded.spaceId)
    expect(after.syncUp.conflicts).toEqual([])
    expect(after.state).not.toBe('conflict')
  })

  it('quire watch runs as a process, pushes a save as it happens, and stops cleanly on SIGINT', async () => {
    const child = spawn(process.execPath, [bin, 'watch', '--debounce', '100'], { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env } })
    const lines = readline.createInterface({ input: child.stdout })
    const seen: string[] = []
    const waitFor = (pattern: RegExp) =>
      new Promise<string>((resolve, reject) => {
        const onLine = (line: string) => {
          seen.push(line)
          if (pattern.test(line)) {
            lines.off('line', onLine)
            resolve(line)
          }
        }
        lines.on('line', onLine)
        child.once('exit', (code) => reject(new Error(`watch exited (${code}) before ${pattern}: ${seen.join('\n')}`)))
      })
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
    await waitFor(/^watching 1 space/)
    fs.writeFileSync(path.join(folder, 'guide', 'install.md'), '# Install\n\nSaved while watching.\n')
    await waitFor(/Docs: 1 change queued/)
    child.kill('SIGINT')
    expect(await exited).toBe(0)
    const [cr] = await openChangeRequests(t.api, seeded.spaceId)
    expect(cr.subject).toBe('Edit Getting started, Install')
  })
})

import fs from 'node:fs'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { QuireBackend } from '../../../src/main/app/backend'
import { AppWorkstation } from './support/app-workstation'
import { serviceForFile } from './support/hooks'
import { changeRequestRevision, mainRevision, pagesOf, remoteOf, seedSpace, tempDir, Workstation } from './support/workspace'

/**
 * A cache that heals (issue 25 item 5), on the engine's and the app's paths: one outbox row whose
 * stored JSON cannot be read is set aside and reported while the rest of the outbox drains; the app's
 * backend opened over a damaged cache sets it aside, says so in its activity log naming both files,
 * and works (sign in again, the folder recovered without a duplicate page).
 */

const t = serviceForFile()
const dirs: string[] = []
const closers: Array<() => void | Promise<void>> = []
afterEach(async () => {
  for (const close of closers.splice(0)) await close()
  for (const dir of dirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

function dir(prefix: string): string {
  const d = tempDir(prefix)
  dirs.push(d)
  return d
}

describe('a damaged cache', () => {
  it('an outbox row with bad JSON is set aside and reported; the rest of the outbox drains', { timeout: 60_000 }, async () => {
    const seeded = await seedSpace(t)
    const ws = new Workstation(t, seeded, dir('quire-bad-row-'))
    closers.push(() => ws.close())
    await ws.pull()
    const session = ws.outbox.ensureSession(seeded.spaceId, t.service.ownerId)
    const { seq } = ws.outbox.enqueue({ spaceId: seeded.spaceId, generation: session.generation, kind: 'comment', key: 'damaged-row', payload: { pageId: 'p', text: 'hi', target: 'space', userId: t.service.ownerId } })
    const db = (ws.cache as unknown as { db: import('better-sqlite3').Database }).db
    db.prepare('UPDATE outbox SET payload = ? WHERE seq = ?').run('{"pageId": ', seq)
    ws.write('faq.md', '# FAQ\n\nQuestions.\n\nSent past a damaged row.\n')

    const pushed = await ws.push()
    expect(pushed.failures.join('\n')).toContain(`comment #${seq}: set aside: its stored payload cannot be read`)
    expect(db.prepare('SELECT state FROM outbox WHERE seq = ?').get(seq)).toEqual({ state: 'set-aside' })
    expect(ws.outbox.unfinished(seeded.spaceId)).toEqual([])
    const crId = ws.outbox.session(seeded.spaceId)!.changeRequestId!
    const faqId = [...pagesOf(await changeRequestRevision(t.api, seeded.spaceId, crId))].find(([, p]) => p.path === 'faq.md')![0]
    const markdown = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: crId, pageId: faqId }, query: { format: 'markdown' } })).body.markdown
    expect(markdown).toContain('Sent past a damaged row.')
  })

  it("the app's backend over a zeroed cache.db: set aside, said in the activity log, and it works", { timeout: 90_000 }, async () => {
    const seeded = await seedSpace(t)
    const dataDir = dir('quire-app-heal-')
    const gateway = { maxAttempts: 2, timeoutMs: 10_000 }
    const first = await AppWorkstation.open(remoteOf(t), seeded, dataDir, gateway, (work) => work())
    await first.pull()
    await first.close()
    const cacheFile = path.join(dataDir, 'cache.db')
    fs.writeFileSync(cacheFile, Buffer.alloc(fs.statSync(cacheFile).size))

    const backend = await QuireBackend.open({ dataDir, desktop: { openFile: async () => {}, openUrl: async () => {}, openFolder: async () => {} }, autoSync: false, watch: false, gateway })
    closers.push(() => backend.close())
    const said = (await backend.listActivity()).filter((e) => e.message.includes('damaged'))
    expect(said).toHaveLength(1)
    const aside = fs.readdirSync(dataDir).find((f) => f.startsWith('cache.db.damaged-'))!
    expect(said[0].message).toContain(cacheFile)
    expect(said[0].message).toContain(path.join(dataDir, aside))
    expect(fs.readFileSync(path.join(dataDir, aside)).every((b) => b === 0)).toBe(true)
    expect((await backend.getSession()).signedIn).toBe(false)
    expect((await backend.signIn({ endpoint: t.service.origin, token: t.service.token })).signedIn).toBe(true)
    await backend.close()
    closers.pop()

    // The rebuild: the folder is matched to its pages, nothing doubled.
    const again = await AppWorkstation.open(remoteOf(t), seeded, dataDir, gateway, (work) => work())
    closers.push(() => again.close())
    // Before the rebuilt cache's first pass (which names the folder again as it was).
    fs.writeFileSync(path.join(dataDir, 'workspace', 'Acme', 'Docs', 'faq.md'), '# FAQ\n\nQuestions.\n\nAfter the cache was rebuilt.\n')
    await again.pull()
    await again.push()
    const crId = again.outbox.session(seeded.spaceId)!.changeRequestId!
    const pages = pagesOf(await changeRequestRevision(t.api, seeded.spaceId, crId))
    expect(pages.size).toBe(pagesOf(await mainRevision(t.api, seeded.spaceId)).size)
    expect([...pages.values()].filter((p) => p.title === 'FAQ')).toHaveLength(1)
  })
})

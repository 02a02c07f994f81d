import { spawn } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import readline from 'node:readline'
import type { Comment } from '@gitbook/api'
import { describe, expect, it } from 'vitest'
import { openCacheDatabase } from '../../../src/main/engine/cache/open-cache'
import { OutboxRepository } from '../../../src/main/engine/outbox/outbox-repository'
import { serviceForFile } from './support/hooks'
import { rng } from '../../support/rng'
import { changedPages, changeRequestRevision, FolderFiles, mainRevision, openChangeRequests, pagesOf, PNG, remoteOf, seedSpace, SEED_PAGES, tempDir, Workstation, type SeededSpace, type SpaceFiles } from './support/workspace'

// No writer saves during these passes: the wait for a paused save after each pass (ReplacedFiles, 100 ms)
// would only add up, pass after pass; the replaced files are still looked at.
process.env.QUIRE_LATE_SAVE_MS = '0'

const seed = Number(process.env.QUIRE_CRASH_SEED ?? Date.now() % 1_000_000)

/**
 * The two ways a writer runs Quire: the CLI's engine (push, then pull, as `quire watch` cycles) and the
 * app's backend (QuireBackend over the workspace session, as the Electron app and `quire serve` run it).
 */
const FRONT_ENDS = {
  cli: path.resolve(__dirname, 'support/push-child.ts'),
  app: path.resolve(__dirname, 'support/backend-child.ts'),
} as const
type FrontEnd = keyof typeof FRONT_ENDS

/**
 * Runs the writer's Quire as a process; kills it with SIGKILL right after its `killAt`-th HTTP answer
 * arrives. The app's backend starts with discovery (a few GETs on every start), so for it answers count
 * from the first answer to a write: every kill lands among the uploads, not before them.
 */
function runChild(frontEnd: FrontEnd, args: unknown, killAt: number | undefined): Promise<{ killed: boolean; answers: number; done: boolean }> {
  return new Promise((resolve, reject) => {
    const proc = spawn(process.execPath, ['--import', 'tsx', FRONT_ENDS[frontEnd], JSON.stringify(args)], { stdio: ['ignore', 'pipe', 'pipe'] })
    let answers = 0
    let done = false
    let killed = false
    let stderr = ''
    proc.stderr.on('data', (d) => (stderr += String(d)))
    readline.createInterface({ input: proc.stdout }).on('line', (line) => {
      if (line.startsWith('answer ')) {
        if (frontEnd === 'app' && answers === 0 && / GET /.test(line)) return
        answers++
        if (killAt !== undefined && answers >= killAt && !killed) {
          killed = true
          proc.kill('SIGKILL')
        }
      }
      if (line.startsWith('done ')) done = true
    })
    proc.once('error', reject)
    proc.once('exit', (code, signal) => {
      if (signal !== 'SIGKILL' && code !== 0) reject(new Error(`child exited with ${code}: ${stderr.slice(-2000)}`))
      else resolve({ killed, answers, done })
    })
  })
}

const t = serviceForFile()

describe.each(Object.keys(FRONT_ENDS) as FrontEnd[])('crash safety of sync up, through the %s', (frontEnd) => {
  it(`SIGKILL at random points of uploads, 20 times: one change request, each comment once, content right (seed ${seed})`, { timeout: 900_000 }, async () => {
    const random = rng(seed).next
    const dir = tempDir('quire-crash-')
    const seeded: SeededSpace = await seedSpace(t)
    const main = await mainRevision(t.api, seeded.spaceId)
    const idOf = (p: string) => [...pagesOf(main)].find(([, page]) => page.path === p)![0]
    // The CLI's workstation and the app's default workspace lay the space out at the same place.
    const folder = path.join(dir, 'workspace', 'Acme', 'Docs')
    const args = frontEnd === 'cli' ? { remote: remoteOf(t), seeded, dir } : { remote: remoteOf(t), seeded, dataDir: dir }
    if (frontEnd === 'cli') {
      const setup = new Workstation(t, seeded, dir)
      await setup.pull()
      setup.close()
    } else {
      // The app's first start: sign in, choose the space, sync it down.
      expect((await runChild(frontEnd, args, undefined)).done).toBe(true)
    }

    // What the writer does, in rounds; each round's upload is killed a few times.
    const expected = new Map<string, string>()
    const comments: Array<{ page: string; text: string }> = []
    const rounds: Array<(ws: SpaceFiles) => void> = [
      (ws) => {
        ws.write('guide/install.md', '# Install\n\nRun the installer, then restart.\n')
        ws.write('guide/upgrade.md', '# Upgrade\n\nFrom v1 to v2.\n')
        ws.write('.gitbook/assets/diagram.png', Buffer.concat([PNG, Buffer.from('diagram')]))
        ws.write('faq.md', `${SEED_PAGES.faq}\n![Diagram](.gitbook/assets/diagram.png)\n\n<!-- comment: Is the FAQ complete? -->\n`)
        fs.renameSync(ws.file('getting-started.md'), ws.file('start-here.md'))
        comments.push({ page: idOf('faq.md'), text: 'Is the FAQ complete?' })
      },
      (ws) => {
        ws.write('guide/configure.md', `${SEED_PAGES.configure}\nMore settings.\n\n<!-- comment: Which settings matter most? -->\n`)
        ws.write('README.md', `${SEED_PAGES.home}\n<!-- comment: Welcome text too short? -->\n`)
        comments.push({ page: idOf('guide/configure.md'), text: 'Which settings matter most?' }, { page: idOf('README.md'), text: 'Welcome text too short?' })
      },
      (ws) => {
        ws.write('guide/install.md', '# Install\n\nRun the installer, then restart. Check the logs.\n')
        ws.write('start-here.md', `${SEED_PAGES.start}\nAnd then some.\n\n<!-- comment: Rename this page? -->\n`)
        comments.push({ page: idOf('getting-started.md'), text: 'Rename this page?' })
      },
      (ws) => {
        ws.write('guide/upgrade.md', '# Upgrade\n\nFrom v1 to v2, and v3.\n\n<!-- comment: Mention v4? -->\n')
        fs.rmSync(ws.file('guide/configure.md'))
        comments.push({ page: 'new:guide/upgrade.md', text: 'Mention v4?' })
      },
    ]
    const ws = new FolderFiles(folder)
    let kills = 0
    const started = Date.now()
    for (const [index, round] of rounds.entries()) {
      round(ws)
      for (let attempt = 0; attempt < 5; attempt++) {
        const killAt = 1 + Math.floor(random() * 5)
        const run = await runChild(frontEnd, args, killAt)
        if (run.killed) kills++
        if (run.done) break
      }
      const finished = await runChild(frontEnd, args, undefined)
      expect(finished.done, `round ${index} completes after the kills`).toBe(true)
    }
    // More kills where the first rounds finished quickly, until 20.
    for (let extra = 0; kills < 20 && extra < 40; extra++) {
      ws.write('faq.md', `${ws.read('faq.md').trimEnd()}\n\nEdit ${extra}.\n\n<!-- comment: Extra question ${extra}? -->\n`)
      comments.push({ page: idOf('faq.md'), text: `Extra question ${extra}?` })
      const run = await runChild(frontEnd, args, 1 + Math.floor(random() * 4))
      if (run.killed) kills++
      expect((await runChild(frontEnd, args, undefined)).done).toBe(true)
    }
    expect(kills).toBeGreaterThanOrEqual(20)

    // Exactly one change request.
    const crs = await openChangeRequests(t.api, seeded.spaceId)
    expect(crs).toHaveLength(1)
    const cr = crs[0]
    const after = await changeRequestRevision(t.api, seeded.spaceId, cr.id)
    const pages = pagesOf(after)

    // Content right: every local page file is in the change request as it is on disk.
    const db = openCacheDatabase(path.join(dir, 'cache.db'))
    const outbox = new OutboxRepository(db)
    try {
      expect(outbox.unfinished(seeded.spaceId)).toEqual([])
      expect(outbox.failures(seeded.spaceId)).toEqual([])
      for (const [id, page] of pages) {
        const served = (await t.api.call('getPageInChangeRequestById', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id, pageId: id }, query: { format: 'markdown' } })).body.markdown
        expected.set(page.path, served)
      }
      const localPages = listPages(folder)
      expect([...expected.keys()].sort()).toEqual(localPages.sort())
      for (const p of localPages) expect(expected.get(p), p).toBe(ws.read(p))
      const diff = changedPages(main, after)
      expect(diff.removed).toEqual([idOf('guide/configure.md')])
      expect(diff.added).toHaveLength(1) // guide/upgrade.md, once
      expect(pages.get(idOf('getting-started.md'))?.path).toBe('start-here.md')
      expect(after.files.filter((f) => f.name === 'diagram.png')).toHaveLength(1)

      // Each comment exactly once, and no marker left in any file.
      const upgrade = [...pages].find(([, p]) => p.path === 'guide/upgrade.md')![0]
      const posted: Comment[] = []
      for (const scope of ['space', 'cr'] as const) {
        const list =
          scope === 'space'
            ? await t.api.call('listCommentsInSpace', { params: { spaceId: seeded.spaceId }, query: { limit: 1000 } })
            : await t.api.call('listCommentsInChangeRequest', { params: { spaceId: seeded.spaceId, changeRequestId: cr.id }, query: { limit: 1000 } })
        posted.push(...(list.body.items as Comment[]))
      }
      const got = posted.map((c) => `${c.target.page?.id}|${(c.body as { markdown: string }).markdown}`).sort()
      const want = comments.map((c) => `${c.page === 'new:guide/upgrade.md' ? upgrade : c.page}|${c.text}`).sort()
      expect(got).toEqual(want)
      for (const p of localPages) expect(ws.read(p), p).not.toMatch(/<!-- (comment|reply)/)
    } finally {
      db.close()
      fs.rmSync(dir, { recursive: true, force: true })
    }
    console.log(`crash test (${frontEnd}): seed ${seed}, ${kills} kills, ${Date.now() - started} ms`)
  })
})

function listPages(root: string): string[] {
  const out: string[] = []
  const walk = (dir: string, rel: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const r = rel ? `${rel}/${entry.name}` : entry.name
      // Hidden names are not page files (a temp file a kill left behind is one; the next pass removes it).
      if (entry.isDirectory()) {
        if (!entry.name.startsWith('.')) walk(path.join(dir, entry.name), r)
      } else if (entry.name.endsWith('.md') && r !== 'SUMMARY.md' && !entry.name.startsWith('.')) out.push(r)
    }
  }
  walk(root, '')
  return out
}

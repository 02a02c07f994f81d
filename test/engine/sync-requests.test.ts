import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { main } from '../../src/main/cli/main'
import { gitBlobOid } from '../../src/main/content'
import { StatJournal } from '../../src/main/engine/cache/stat-journal'
import { SpaceFolder } from '../../src/main/engine/workspace/space-folder'
import { RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, editSpaceDirectly, page } from '../support/content-fixtures'
import { startTestService } from '../support/service'
import { startSyncHarness, type SyncHarness } from './support/sync-harness'

/**
 * What a pass costs the service, counted at the gateway's fetch against the real local service, and
 * which local files it reads. Counts, not timings: they hold however busy the machine is.
 */

let h: SyncHarness | undefined
afterEach(async () => {
  await h?.close()
  h = undefined
})

async function demo(harness: SyncHarness) {
  const orgs = (await harness.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string; title: string }> }
  const orgId = orgs.items[0].id
  const list = (await harness.t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgId } })).body as { items: Array<{ id: string; title: string }> }
  return { orgId, spaces: list.items, guide: list.items.find((s) => s.title === 'User Guide')! }
}

/** The service's page id and Git Sync path for each page of a space's head, by path. */
function pagesOf(harness: SyncHarness, spaceId: string): Map<string, string> {
  const store = harness.t.service.store
  const head = store.repo(RevisionsRepository).get(store.repo(SpacesRepository).get(spaceId)!.revisionId!)!
  const byPath = new Map<string, string>()
  const walk = (pages: typeof head.tree.pages, prefix: string) => {
    for (const p of pages) {
      const hasChildren = p.pages.length > 0
      if (p.type === 'document') byPath.set(`${prefix}${p.slug}${hasChildren ? '/README.md' : '.md'}`, p.id)
      walk(p.pages, `${prefix}${p.slug}/`)
    }
  }
  walk(head.tree.pages, '')
  return byPath
}

describe('sync down: requests per pass', () => {
  it('an unchanged pass is one request (the space list) for 3 spaces or 13 in one organization', async () => {
    h = await startSyncHarness()
    const { orgId, spaces } = await demo(h)
    h.cache.setSelection({})
    await h.engine().discover()
    h.cache.setSelection({ organizations: [orgId] })
    expect((await h.engine().pass()).inSync).toBe(true)
    expect(await h.counting(() => h!.engine().pass())).toEqual([`GET /orgs/${orgId}/spaces`])

    // Ten more spaces in the organization: the selected organization gains them, then costs the same.
    for (let i = 0; i < 10; i++) arrangeSpace(h.t.service, [page(`p${i}`, `# Page ${i}\n`)], { orgId, title: `Extra ${i}` })
    const grown = await h.engine().pass()
    expect(grown.spaces).toHaveLength(spaces.length + 10)
    expect(grown.inSync).toBe(true)
    expect(await h.counting(() => h!.engine().pass())).toEqual([`GET /orgs/${orgId}/spaces`])

    // Chosen one by one instead of by organization: still the one list.
    h.cache.setSelection({ spaces: h.cache.spaces(orgId).map((s) => s.id) })
    expect(await h.counting(() => h!.engine().pass())).toEqual([`GET /orgs/${orgId}/spaces`])
  })

  it('quire sync --all (discover, then a pass) lists organizations, collections and spaces once', async () => {
    h = await startSyncHarness()
    const { orgId } = await demo(h)
    await h.engine().discover()
    h.cache.setSelection({ organizations: [orgId] })
    await h.engine().pass()
    const engine = h.engine({ handOverLists: true })
    const seen = await h.counting(async () => {
      await engine.discover()
      await engine.pass()
    })
    expect(seen).toEqual(['GET /orgs', `GET /orgs/${orgId}/collections`, `GET /orgs/${orgId}/spaces`])

    // An engine that lists for display (the app's space list) hands nothing over: the pass looks for itself.
    const display = h.engine()
    await display.discover()
    expect(await h.counting(() => h!.engine().pass())).toEqual([`GET /orgs/${orgId}/spaces`])
  })

  it('quire sync --space ID the first time (resolve, then a pass) asks for the space once: no list, no page GET', async () => {
    h = await startSyncHarness()
    const { orgId, guide } = await demo(h)
    const engine = h.engine({ handOverLists: true })
    const seen = await h.counting(async () => {
      await engine.resolveSpaces([guide.id])
      h!.cache.setSelection({ spaces: [guide.id] })
      await engine.pass()
    })
    // File bytes are downloads, not API requests: left out.
    expect(seen.filter((r) => !r.startsWith('GET /files/'))).toEqual([`GET /spaces/${guide.id}`, `GET /orgs/${orgId}`, `GET /spaces/${guide.id}/content`])
  })

  it('through the CLI, as a new user would count them: quire sync --once --all is 3 requests unchanged, quire sync --once is 1', async () => {
    const t = await startTestService({ demo: true })
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-requests-'))
    const env = { QUIRE_HOME: process.env.QUIRE_HOME, QUIRE_TOKEN_STORE: process.env.QUIRE_TOKEN_STORE }
    process.env.QUIRE_HOME = home
    process.env.QUIRE_TOKEN_STORE = 'file'
    const original = globalThis.fetch
    const seen: string[] = []
    globalThis.fetch = (input, init) => {
      const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url)
      if (url.pathname.startsWith('/v1/')) seen.push(url.pathname.slice(3))
      return original(input, init)
    }
    const io = { out: () => undefined, err: () => undefined, isTTY: false }
    const quire = async (...args: string[]) => {
      const from = seen.length
      expect(await main(args, io)).toBe(0)
      return seen.slice(from)
    }
    try {
      await quire('login', '--endpoint', t.service.baseUrl, '--token', t.service.token)
      await quire('sync', '--once', '--all', '--workspace', path.join(home, 'docs'))
      const orgId = ((await t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }).items[0].id
      expect(await quire('sync', '--once', '--all')).toEqual(['/orgs', `/orgs/${orgId}/collections`, `/orgs/${orgId}/spaces`])
      expect(await quire('sync', '--once')).toEqual([`/orgs/${orgId}/spaces`])
    } finally {
      globalThis.fetch = original
      Object.assign(process.env, env)
      for (const [key, value] of Object.entries(env)) if (value === undefined) delete process.env[key]
      await t.close()
      fs.rmSync(home, { recursive: true, force: true })
    }
  })

  it('a selected collection costs its organization\'s collection list too', async () => {
    h = await startSyncHarness()
    const { orgId } = await demo(h)
    await h.engine().discover()
    const collection = h.cache.collections(orgId)[0]
    expect(collection, 'the demo organization has a collection').toBeDefined()
    h.cache.setSelection({ collections: [collection.id] })
    await h.engine().pass()
    expect(await h.counting(() => h!.engine().pass())).toEqual([`GET /orgs/${orgId}/collections`, `GET /orgs/${orgId}/spaces`])
  })

  it('one changed page costs the list, the revision, its changes and that page; read by the whole tree, its markdown is used, or that page read where it does not hash', async () => {
    h = await startSyncHarness()
    const { orgId, guide } = await demo(h)
    await h.engine().resolveSpaces([guide.id])
    h.cache.setSelection({ spaces: [guide.id] })
    await h.engine().pass()
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    const faq = pagesOf(h, guide.id).get('faq.md')!

    // Issue 29: by difference (the revision's tree read without markdown or git metadata, only for its parents).
    let head = editSpaceDirectly(h.t.service, guide.id, [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nBy difference.\n' } }])
    expect((await h.counting(() => h!.engine().pass())).sort()).toEqual(
      [`GET /orgs/${orgId}/spaces`, `GET /spaces/${guide.id}/revisions/${head}`, `GET /spaces/${guide.id}/revisions/${head}/changes`, `GET /spaces/${guide.id}/revisions/${head}/path/faq`].sort(),
    )
    expect(fs.readFileSync(path.join(root, 'faq.md'), 'utf8')).toBe('# FAQ\n\nBy difference.\n')

    // Read whole (a pass that may not go by difference): the tree's markdown is used.
    const whole = { byDifference: false }
    editSpaceDirectly(h.t.service, guide.id, [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nFrom the tree.\n' } }])
    expect(await h.counting(() => h!.engine(whole).pass())).toEqual([`GET /orgs/${orgId}/spaces`, `GET /spaces/${guide.id}/content`])
    expect(fs.readFileSync(path.join(root, 'faq.md'), 'utf8')).toBe('# FAQ\n\nFrom the tree.\n')

    // A tree whose markdown does not hash to the page's git.oid (or has none) is not trusted: one GET.
    h.rewrite = (p, body) => (p.endsWith('/content') ? body.replace('From the page.', 'Not what the oid says.') : undefined)
    head = editSpaceDirectly(h.t.service, guide.id, [{ operation: 'update_page', page: faq, document: { markdown: '# FAQ\n\nFrom the page.\n' } }])
    const seen = await h.counting(() => h!.engine(whole).pass())
    expect(seen).toEqual([`GET /orgs/${orgId}/spaces`, `GET /spaces/${guide.id}/content`, `GET /spaces/${guide.id}/revisions/${head}/page/${faq}`])
    expect(fs.readFileSync(path.join(root, 'faq.md'), 'utf8')).toBe('# FAQ\n\nFrom the page.\n')
  })
})

describe('sync down: local files are read only when their stat changed', () => {
  it('reads only what changed; a touched file is read and plans nothing; a same-size edit with its mtime put back is still seen', async () => {
    h = await startSyncHarness()
    const { guide } = await demo(h)
    await h.engine().resolveSpaces([guide.id])
    h.cache.setSelection({ spaces: [guide.id] })
    const reads: string[] = []
    const steps: string[] = []
    // The settled rule's clock runs 10 s ahead, so files written a moment ago count as settled.
    const engine = () =>
      h!.engine({
        folder: { onRead: (p) => reads.push(p), nowNs: () => BigInt(Date.now() + 10_000) * 1_000_000n },
        onProgress: (e) => {
          if (e.type === 'step') steps.push(`${e.step.action.type} ${'path' in e.step.action ? e.step.action.path : e.step.action.id}`)
        },
      })
    const pass = async () => {
      reads.length = 0
      steps.length = 0
      return engine().pass()
    }
    expect((await pass()).inSync).toBe(true)
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    const ids = pagesOf(h, guide.id)
    const journaled = h.cache.journal(guide.id).length
    // A whole-second mtime, which utimes can put back exactly after an edit (below).
    const edited = path.join(root, 'guides/using-blocks/hints.md')
    const roundMtime = new Date('2026-01-01T00:00:00Z')
    fs.utimesSync(edited, roundMtime, roundMtime)
    const edit = (gitPath: string, text: string) => editSpaceDirectly(h!.t.service, guide.id, [{ operation: 'update_page', page: ids.get(gitPath)!, document: { markdown: text } }])

    // Unchanged: no scan at all.
    await pass()
    expect(reads).toEqual([])

    // First changed pass after the mirror: what the mirror wrote is remembered as written (no file is
    // read for it); only the file touched since is read.
    edit('faq.md', '# FAQ\n\nOne.\n')
    await pass()
    expect(journaled).toBeGreaterThan(5)
    expect(reads).toEqual(['guides/using-blocks/hints.md'])

    // Next: the file that pass wrote (a new inode) is remembered too, so nothing is read.
    edit('faq.md', '# FAQ\n\nTwo.\n')
    await pass()
    expect(reads).toEqual([])
    expect(steps).toEqual(['download faq.md'])

    // mtime touched, content the same: read again, and nothing planned for it.
    const touched = path.join(root, 'guides/writing-pages.md')
    const later = new Date(Date.now() + 60_000)
    fs.utimesSync(touched, later, later)
    edit('faq.md', '# FAQ\n\nThree.\n')
    await pass()
    expect(reads.sort()).toEqual(['guides/writing-pages.md'])
    expect(steps).toEqual(['download faq.md'])

    // Same size, same mtime, other bytes (an editor that keeps timestamps): ctime moved, so it is read
    // and the edit is kept; the remote change to that page is held back.
    const before = fs.statSync(edited, { bigint: true })
    const original = fs.readFileSync(edited, 'utf8')
    const mine = original.replace(/[a-z]/, (c) => (c === 'x' ? 'y' : 'x'))
    expect(mine.length).toBe(original.length)
    fs.writeFileSync(edited, mine)
    fs.utimesSync(edited, roundMtime, roundMtime)
    const after = fs.statSync(edited, { bigint: true })
    expect([after.ino, after.size, after.mtimeNs]).toEqual([before.ino, before.size, before.mtimeNs])
    edit('guides/using-blocks/hints.md', '# Hints\n\nRemote.\n')
    const report = await pass()
    expect(reads).toContain('guides/using-blocks/hints.md')
    expect(report.spaces[0].state).toBe('conflict')
    expect(fs.readFileSync(edited, 'utf8')).toBe(mine)
  })

  it('a file the folder wrote is vouched for by its stat; an edit right after the write (same size, same moment) is read', async () => {
    h = await startSyncHarness()
    const dir = path.join(h.workspace, 'written')
    fs.mkdirSync(dir, { recursive: true })
    const reads: string[] = []
    const memo = StatJournal.of(h.cache, 'space')
    const folder = new SpaceFolder(dir, { onRead: (p) => reads.push(p), written: memo })
    await folder.write('a.md', Buffer.from('# A\n'), undefined)
    await folder.write('b.md', Buffer.from('# B\n'), undefined)
    await folder.writeStream('c.png', { size: 3, chunks: (async function* () { yield Buffer.from('png') })() }, undefined, undefined)
    // A writer saves b.md at once, the same size: its mtime is the clock's, not the one the write gave.
    fs.writeFileSync(path.join(dir, 'b.md'), '# b\n')
    memo.save(['a.md', 'b.md', 'c.png'])
    const next = StatJournal.of(h.cache, 'space')
    expect(await folder.scan(['a.md', 'b.md', 'c.png'], { memo: next })).toEqual(
      new Map([
        ['a.md', gitBlobOid('# A\n')],
        ['b.md', gitBlobOid('# b\n')],
        ['c.png', gitBlobOid('png')],
      ]),
    )
    expect(reads).toEqual(['b.md'])
  })

  it('a file changed within the last moments is not vouched for by its stat: read again on every scan', async () => {
    h = await startSyncHarness()
    const dir = path.join(h.workspace, 'racy')
    fs.mkdirSync(dir, { recursive: true })
    fs.writeFileSync(path.join(dir, 'a.md'), '# A\n')
    const reads: string[] = []
    const folder = new SpaceFolder(dir, { onRead: (p) => reads.push(p) })
    for (let i = 0; i < 2; i++) {
      const memo = StatJournal.of(h.cache, 'space')
      expect(await folder.scan(['a.md'], { memo })).toEqual(new Map([['a.md', gitBlobOid('# A\n')]]))
      memo.save(['a.md'])
    }
    // Written a moment ago (real clock): never remembered, so read both times.
    expect(reads).toEqual(['a.md', 'a.md'])

    // The same file seen by a clock 10 s later is settled: remembered once, then not read.
    reads.length = 0
    const later = new SpaceFolder(dir, { onRead: (p) => reads.push(p), nowNs: () => BigInt(Date.now() + 10_000) * 1_000_000n })
    for (let i = 0; i < 2; i++) {
      const memo = StatJournal.of(h.cache, 'space')
      await later.scan(['a.md'], { memo })
      memo.save(['a.md'])
    }
    expect(reads).toEqual(['a.md'])
  })
})

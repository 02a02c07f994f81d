import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { applyContentChanges, gitBlobOid, type ContentChange, type TreePage } from '../../src/main/content'
import { TEMP_MARK } from '../../src/main/engine/workspace/atomic-write'
import { createSpaceRevision, RevisionsRepository } from '../../src/main/service/store/revisions'
import { SpacesRepository } from '../../src/main/service/store/spaces'
import { arrangeSpace, page } from '../support/content-fixtures'
import { startTestService } from '../support/service'
import { listFiles, startSyncHarness, type SyncHarness } from './support/sync-harness'

let h: SyncHarness | undefined
const extraDirs: string[] = []
afterEach(async () => {
  await h?.close()
  h = undefined
  for (const dir of extraDirs.splice(0)) fs.rmSync(dir, { recursive: true, force: true })
})

async function userGuide(harness: SyncHarness) {
  const orgs = (await harness.t.api.call('listOrganizationsForAuthenticatedUser')).body as { items: Array<{ id: string }> }
  const list = (await harness.t.api.call('listSpacesInOrganizationById', { params: { organizationId: orgs.items[0].id } })).body as { items: Array<{ id: string; title: string }> }
  const space = list.items.find((s) => s.title === 'User Guide')!
  await harness.engine().resolveSpaces([space.id])
  harness.cache.setSelection({ spaces: [space.id] })
  return space
}

/** Every file's bytes under `root`, for "untouched" checks. */
function snapshotFolder(root: string): Record<string, string> {
  return Object.fromEntries(listFiles(root).map((f) => [f, gitBlobOid(fs.readFileSync(path.join(root, f)))]))
}

const pageGets = (seen: string[]) => seen.filter((r) => /\/revisions\/[^/]+\/page\//.test(r)).map((r) => r.split('/').pop()!)

describe('sync down: offline, interruption, resume', () => {
  it('goes offline when the service is closed, leaves the folder alone, and resumes after a restart', async () => {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-service-'))
    extraDirs.push(dataDir)
    h = await startSyncHarness({ demo: true, dataDir })
    const space = await userGuide(h)
    expect((await h.engine().pass()).inSync).toBe(true)
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    const before = snapshotFolder(root)

    const port = Number(new URL(h.t.service.origin).port)
    const token = h.t.service.token
    // A remote change, then the service goes away before the client sees it.
    const head = h.t.service.store.repo(SpacesRepository).get(space.id)!.revisionId!
    const tree = h.t.service.store.repo(RevisionsRepository).get(head)!.tree
    const faq = tree.pages.find((p) => p.slug === 'faq')!
    const edited = applyContentChanges(tree, [{ operation: 'update_page', page: faq.id, document: { markdown: '# FAQ\n\nChanged while offline.\n' } }], { newId: () => 'x', now: h.t.service.store.now() })
    createSpaceRevision(h.t.service.store, space.id, edited.tree, edited.blobs, [head])
    await h.t.close()

    const offline = await h.engine().pass()
    expect(offline).toMatchObject({ offline: true, inSync: false })
    expect(offline.spaces[0]).toMatchObject({ state: 'offline' })
    expect(h.cache.space(space.id)!.state).toBe('offline')
    expect(snapshotFolder(root)).toEqual(before)

    h.t = await startTestService({ dataDir, port, token })
    const back = await h.engine().pass()
    expect(back.inSync).toBe(true)
    expect(fs.readFileSync(path.join(root, 'faq.md'), 'utf8')).toBe('# FAQ\n\nChanged while offline.\n')
  })

  it('an initial sync cut off by the network mid-pass is offline, leaves no partial file, and resumes without re-downloading', async () => {
    h = await startSyncHarness()
    await userGuide(h)
    let served = 0
    const flaky: typeof fetch = async (input, init) => {
      const url = String(input instanceof Request ? input.url : input)
      if (url.includes('/page/') && ++served > 15) throw Object.assign(new TypeError('fetch failed'), { cause: { code: 'ECONNREFUSED' } })
      return fetch(input, init)
    }
    // Page texts fetched one by one (as from a tree without markdown), so the network can fail between them.
    const cut = await h.engine({ pageTextsFromTree: false }, { fetch: flaky }).pass()
    expect(cut).toMatchObject({ offline: true, inSync: false })
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    const written = listFiles(root)
    expect(written.some((f) => path.basename(f).startsWith(TEMP_MARK))).toBe(false)
    const journaled = h.cache.journal(cut.spaces[0].spaceId).filter((j) => j.kind === 'page')
    expect(journaled.length).toBeGreaterThanOrEqual(15 - 8)
    const run = h.cache.run(cut.spaces[0].spaceId)!
    expect(run.completed).toBeLessThan(run.total)
    // Every file on disk is complete: it hashes to what the journal says was written.
    for (const j of journaled) expect(gitBlobOid(fs.readFileSync(path.join(root, j.path)))).toBe(j.baseHash)

    const seen = await h.counting(() => h!.engine({ pageTextsFromTree: false }).pass())
    const again = pageGets(seen)
    expect(again).toHaveLength(47 - journaled.length)
    expect(again.filter((id) => journaled.some((j) => j.id === id))).toEqual([])
    expect(h.cache.space(cut.spaces[0].spaceId)!.state).toBe('synced')
    expect(h.cache.run(cut.spaces[0].spaceId)).toBeUndefined()
  })

  it('a pass killed after N steps (the executor throws) resumes without downloading a page twice', async () => {
    h = await startSyncHarness()
    const space = await userGuide(h)
    for (const killAt of [1, 9, 30]) {
      fs.rmSync(h.workspace, { recursive: true, force: true })
      fs.mkdirSync(h.workspace)
      for (const j of h.cache.journal(space.id)) h.cache.forgetJournal(space.id, j.id, j.kind)
      h.cache.setSpaceState(space.id, 'idle', { syncedRevision: 'none' })
      const first = await h.counting(() =>
        h!
          .engine({
            pageTextsFromTree: false,
            onProgress: (e) => {
              if (e.type === 'step' && e.step.index === killAt) throw new Error('killed')
            },
          })
          .pass(),
      )
      expect(h.cache.space(space.id)!.state).toBe('error')
      const second = await h.counting(() => h!.engine({ pageTextsFromTree: false }).pass())
      const downloaded = [...pageGets(first), ...pageGets(second)]
      expect(new Set(downloaded).size, `killed at ${killAt}`).toBe(downloaded.length)
      expect(new Set(downloaded).size).toBe(47)
      expect(h.cache.space(space.id)!.state).toBe('synced')
      expect(listFiles(path.join(h.workspace, 'Quire Demo', 'User Guide')).filter((f) => f.endsWith('.md'))).toHaveLength(48)
    }
  })

  it("first sync into a folder that already has files merges: identical files adopted, a file at a page's place is that page's local edit, nothing overwritten", async () => {
    h = await startSyncHarness()
    await userGuide(h)
    const root = path.join(h.workspace, 'Quire Demo', 'User Guide')
    fs.mkdirSync(path.join(root, 'guides'), { recursive: true })
    fs.writeFileSync(path.join(root, 'my-notes.txt'), 'mine\n')
    fs.writeFileSync(path.join(root, 'faq.md'), '# My own FAQ\n')
    const seen = await h.counting(() => h!.engine({ pageTextsFromTree: false }).pass())
    expect(fs.readFileSync(path.join(root, 'my-notes.txt'), 'utf8')).toBe('mine\n')
    expect(fs.readFileSync(path.join(root, 'faq.md'), 'utf8')).toBe('# My own FAQ\n')
    // 46 pages written, and the FAQ's text read as the merge base of the writer's edit (it is not written).
    expect(pageGets(seen)).toHaveLength(47)
    // Recovery without a journal: faq.md is the FAQ page, edited (a push sends it as its update, not a new page).
    const space = h.cache.selectedSpaces()[0]
    const faq = h.cache.journal(space.id).find((j) => j.path === 'faq.md')
    expect(faq).toMatchObject({ kind: 'page' })
    expect(faq!.baseHash).toBe(faq!.oid)
    expect(space.state).toBe('synced')
    expect(space.issues).toEqual([])
  })
})

describe('sync down: a hostile server', () => {
  it('keeps every name from the server inside the space folder and never gives two pages one file', async () => {
    h = await startSyncHarness({ demo: false })
    const outer = fs.mkdtempSync(path.join(os.tmpdir(), 'quire-outer-'))
    extraDirs.push(outer)
    const workspace = path.join(outer, 'ws')
    // Names the store itself would refuse, written straight into a revision.
    const changes: ContentChange[] = [
      page('home', '# Home\n'),
      page('dots', '# Dots\n'),
      page('con', '# Con\n'),
      page('colon', '# Colon\n'),
      page('upper', '# Upper\n'),
      page('lower', '# Lower\n'),
      page('child', '# Child\n', { into: 'lower' }),
      page('nfd', '# NFD\n'),
      page('nfc', '# NFC\n'),
      page('long', '# Long\n'),
      page('trail', '# Trail\n'),
      page('temp', '# Temp\n'),
      page('summary', '# Summary page\n'),
      { operation: 'insert_files', files: [{ name: 'evil.png', base64: Buffer.from('not really a png').toString('base64') }] },
    ]
    const arranged = arrangeSpace(h.t.service, changes, { title: '../../Space:Name' })
    const revisions = h.t.service.store.repo(RevisionsRepository)
    const base = revisions.get(arranged.revisionId)!
    const slugs: Record<string, string> = {
      dots: '../../x',
      con: 'CON',
      colon: 'a:b',
      upper: 'Guide',
      lower: 'guide',
      nfd: 'e\u0301',
      nfc: '\u00e9',
      long: 'l'.repeat(100),
      trail: 'trailing. ',
      temp: `${TEMP_MARK}x`,
      summary: 'SUMMARY',
    }
    const rename = (pages: TreePage[]): TreePage[] =>
      pages.map((p) => {
        const ref = Object.entries(arranged.pages).find(([, id]) => id === p.id)?.[0]
        return { ...p, slug: ref && slugs[ref] ? slugs[ref] : p.slug, pages: rename(p.pages) }
      })
    const blobs = new Map<string, Uint8Array>()
    const tree = { ...base.tree, pages: rename(base.tree.pages) }
    createSpaceRevision(h.t.service.store, arranged.spaceId, tree, blobs, [base.id])

    // And a server that sends paths no honest Git Sync would: escapes, absolute paths, NUL, Windows names.
    const hostilePaths = [
      '../../escape.md',
      '/etc/quire-absolute.md',
      'a/../../../b.md',
      'C:\\Windows\\system.md',
      'CON.md',
      'a:b.md',
      'Same.md',
      'same.md',
      'nul\u0000byte.md',
      `${'x'.repeat(300)}.md`,
      'caf\u00e9.md',
      'cafe\u0301.md',
      '.gitbook.yaml',
    ]
    let next = 0
    const rewritePaths = (node: unknown): void => {
      if (Array.isArray(node)) node.forEach(rewritePaths)
      else if (node && typeof node === 'object') {
        const record = node as Record<string, unknown>
        const git = record.git as { path?: string } | undefined
        if (git?.path !== undefined && typeof record.title === 'string') git.path = hostilePaths[next++ % hostilePaths.length]
        else if (git?.path !== undefined && typeof record.name === 'string') git.path = '../../../../evil.png'
        for (const value of Object.values(record)) rewritePaths(value)
      }
    }
    h.rewrite = (p, body) => {
      if (!p.endsWith('/content')) return undefined
      const json = JSON.parse(body) as unknown
      next = 0
      rewritePaths(json)
      return JSON.stringify(json)
    }

    const engine = h.engine({ workspace })
    await engine.resolveSpaces([arranged.spaceId])
    h.cache.setSelection({ spaces: [arranged.spaceId] })
    const report = await engine.pass()
    expect(report.spaces[0], JSON.stringify(h.cache.space(arranged.spaceId))).toMatchObject({ state: 'synced' })

    // Nothing outside the workspace, nothing in the outer folder but the workspace.
    expect(fs.readdirSync(outer)).toEqual(['ws'])
    expect(fs.existsSync('/etc/quire-absolute.md')).toBe(false)
    const [orgFolder] = fs.readdirSync(workspace)
    const spaceFolders = fs.readdirSync(path.join(workspace, orgFolder))
    expect(spaceFolders).toHaveLength(1)
    expect(spaceFolders[0]).not.toMatch(/[/\\:]/)
    const root = path.join(workspace, orgFolder, spaceFolders[0])
    const files = listFiles(root)
    expect(files).not.toContain('.gitbook.yaml')

    // Every page has its own file holding its own content; names are safe on every OS.
    const pages = h.cache.journal(arranged.spaceId).filter((j) => j.kind === 'page')
    expect(pages).toHaveLength(13)
    expect(new Set(pages.map((p) => p.path.normalize('NFC').toLowerCase())).size).toBe(13)
    for (const p of pages) {
      expect(gitBlobOid(fs.readFileSync(path.join(root, p.path)))).toBe(p.baseHash)
      for (const segment of p.path.split('/')) {
        expect(Buffer.byteLength(segment)).toBeLessThanOrEqual(255)
        // eslint-disable-next-line no-control-regex
        expect(segment).not.toMatch(/[<>:"\\|?*\u0000-\u001f]|^(con|prn|aux|nul)(\..*)?$|[. ]$|^\.\.?$/i)
        expect(segment.startsWith(TEMP_MARK)).toBe(false)
      }
    }
    const evil = h.cache.journal(arranged.spaceId).find((j) => j.kind === 'file')!
    // A file goes only under .gitbook/assets/, whatever path the server gives it.
    expect(evil.path).toBe('.gitbook/assets/evil.png')
    expect(fs.readFileSync(path.join(root, evil.path), 'utf8')).toBe('not really a png')
    expect(files).toHaveLength(15)

    // A second pass over the same hostile tree changes nothing.
    const seen = await h.counting(() => h!.engine({ workspace }).pass())
    expect(seen).toEqual([`GET /orgs/${h.cache.space(arranged.spaceId)!.orgId}/spaces`])
  })
})
